"""The builders against a real local backend (marked ``live``): constructed, saved, read back."""

from __future__ import annotations

import pytest

from toolkit import local
from toolkit.widgets import FunnelBuilder, TrendBuilder

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    demo = tmp_path_factory.mktemp("builders") / "demo.db"
    with local.start(demo, now="2026-01-15T12:00:00Z", events=10_000, seed=7) as client:  # the notebooks' size
        yield client


def test_a_saved_funnel_reads_back_with_the_builders_filters(backend):
    builder = FunnelBuilder(backend, steps=["$pageview", "signup"], funnel_window_interval=7)
    builder.order.value = "strict"
    builder.name.value = "Pageview to signup, strict"
    builder.save_button.click()
    assert builder.error is None and builder.short_id is not None
    saved = backend.insight(builder.short_id)
    assert saved.loc[0, "name"] == "Pageview to signup, strict"
    filters = saved.loc[0, "filters"]
    assert [step["id"] for step in filters["events"]] == ["$pageview", "signup"]
    assert (filters["funnel_order_type"], filters["funnel_window_interval"]) == ("strict", 7)
    assert builder.short_id in builder.saved.value


def test_a_trend_builder_survives_whatever_the_backend_answers(backend):
    builder = TrendBuilder(backend, events=["$pageview"], date_from="-14d")
    frame = builder.run()
    # the backend either calculates the trend or refuses it in its error envelope; never a traceback
    if frame is None:
        assert builder.error.startswith("The API refused the request: ")
        assert builder.df is None
    else:
        assert set(frame["series"]) == {"$pageview"} and builder.figure is not None
