"""What a builder shows after a run: one result at a time, readable and safe from MathJax, greyed out once the
controls change, downloadable, and one sentence when the backend is gone."""

from __future__ import annotations

import base64
import io

import pandas as pd
import pytest
import requests

from toolkit.widgets import FunnelBuilder, TrendBuilder
from toolkit.widgets.results import STALE_CLASS

from .fake_project import FUNNEL, TREND

NULL = "$$_posthog_breakdown_null_$$"


def trend_answer(*series):
    return (200, {"result": list(series), "timezone": "UTC"})


def series(data, breakdown_value=None):
    item = {"action": {"id": "signup", "name": "signup", "order": 0}, "label": "signup"}
    return {**item, "days": ["2026-01-01", "2026-01-02"], "data": data, "breakdown_value": breakdown_value}


@pytest.fixture
def shown(monkeypatch):
    """What the builder sends to the front end, in order: ``("clear", kwargs)`` and displayed objects."""
    calls = []
    monkeypatch.setattr("toolkit.widgets.results.in_kernel", lambda: True)
    monkeypatch.setattr("IPython.display.display", lambda item: calls.append(item))
    return calls


def capture_clears(builder, calls):
    builder.output.clear_output = lambda *args, **kwargs: calls.append(("clear", kwargs))


def test_each_run_replaces_the_previous_result_even_when_runs_come_back_to_back(client, fake, shown):
    fake.routes[("POST", TREND)] = trend_answer(series([1, 2]))
    builder = TrendBuilder(client, events=["signup"])
    capture_clears(builder, shown)
    builder.run()
    builder.run_button.click()
    kinds = [item[0] if isinstance(item, tuple) else type(item).__name__ for item in shown]
    # the clear waits for the next output and goes with it, so the browser never holds two results
    assert kinds == ["clear", "Image", "HTML", "clear", "Image", "HTML"]
    assert shown[0] == ("clear", {"wait": True})


def test_the_table_shown_is_readable_with_none_for_the_null_bucket_and_no_maths(client, fake, shown):
    fake.routes[("POST", TREND)] = trend_answer(series([1, 2], "Chrome"), series([3, 0], NULL))
    builder = TrendBuilder(client, events=["signup"], breakdown="$browser")
    builder.run()
    picture, table = shown
    assert picture.format == "png" and picture.data.startswith(b"\x89PNG")
    assert "signup - None" in table.data and NULL not in table.data
    assert "mathjax_ignore" in table.data
    assert builder.df["breakdown_value"].tolist()[2] == NULL  # the frame keeps the raw value


def test_the_funnel_table_sits_in_a_box_that_scrolls_sideways_and_down(client, fake, shown):
    # 8 columns are wider than a notebook: in an Output widget JupyterLab would cut them at the edge
    groups = [
        [{"order": order, "name": name, "count": count, "breakdown_value": plan}
         for order, (name, count) in enumerate([("signup", 9), ("purchase", 3)])]
        for plan in ("free", "pro")
    ]  # fmt: skip
    fake.routes[("POST", FUNNEL)] = (200, {"result": groups})
    builder = FunnelBuilder(client, steps=["signup", "purchase"])
    builder.run()
    table = shown[-1].data
    style = "max-height: 420px; max-width: 100%; overflow: auto; white-space: nowrap"
    assert table.startswith(f'<div class="insightlab-table" style="{style}">')
    assert table.count("<tr") == 1 + 4 and "dropped off" in table and "median time" in table  # header + 4 rows
    assert builder.output.layout.overflow == "auto"


def test_every_row_of_a_long_table_can_be_reached(client, fake, shown, monkeypatch):
    # ten days of hours: 240 rows, every one in the table (the box scrolls), none left out; the plain table,
    # as without itables (test_big_tables covers the interactive one)
    monkeypatch.setattr("toolkit.widgets.big_tables.itables_installed", lambda: False)
    hours = [f"2026-01-{1 + hour // 24:02d} {hour % 24:02d}:00:00" for hour in range(240)]
    item = {"action": {"id": "signup", "name": "signup", "order": 0}, "label": "signup"}
    fake.routes[("POST", TREND)] = trend_answer({**item, "days": hours, "data": list(range(240))})
    builder = TrendBuilder(client, events=["signup"], interval="hour")
    builder.run()
    table = shown[-1].data
    assert table.count("<tr") == 1 + 240 and "not shown" not in table  # header + every hour
    assert "2026-01-10 23:00" in table and "<td>239</td>" in table


def test_messages_keep_dollar_signs_from_mathjax(client, fake):
    fake.routes[("POST", TREND)] = (
        400,
        {"type": "validation_error", "code": "invalid_input", "detail": "No $browser on $pageview.", "attr": None},
    )
    builder = TrendBuilder(client, events=["signup"])
    builder.run()
    assert "tex2jax_ignore mathjax_ignore" in builder.message.value
    assert "No $browser on $pageview." in builder.message.value


def test_a_stopped_backend_is_one_sentence(client, fake):
    def refuse(call):
        raise requests.ConnectionError(
            "HTTPConnectionPool(host='127.0.0.1', port=38357): Max retries exceeded with url: /api/projects/1/"
        )

    fake.routes[("POST", TREND)] = refuse
    builder = TrendBuilder(client, events=["signup"])
    assert builder.run() is None
    assert builder.error == "The backend at https://posthog.example.com is not reachable: is the server running?"
    assert "Max retries" not in builder.message.value


def test_a_backend_too_slow_to_answer_is_one_sentence(client, fake):
    def slow(call):
        raise requests.ReadTimeout("read timed out")

    fake.routes[("POST", TREND)] = slow
    builder = TrendBuilder(client, events=["signup"])
    builder.run()
    assert builder.error.startswith("The backend at https://posthog.example.com did not answer in time")


def test_changing_a_control_after_a_run_greys_the_result_out_until_the_next_run(client, fake):
    fake.routes[("POST", TREND)] = trend_answer(series([1, 2]))
    builder = TrendBuilder(client, events=["signup"])
    builder.interval.value = "week"  # before any result: nothing to grey out
    assert not builder.stale and builder.message.value == ""
    builder.run()
    assert not builder.stale and STALE_CLASS not in builder.output._dom_classes
    builder.interval.value = "day"
    assert builder.stale and STALE_CLASS in builder.output._dom_classes
    assert "Run to update it" in builder.message.value
    builder.run()
    assert not builder.stale and STALE_CLASS not in builder.output._dom_classes and builder.message.value == ""


@pytest.mark.parametrize(
    "change",
    [
        lambda builder: setattr(builder.series[0].math, "value", "dau"),
        lambda builder: builder.add_series(),
        lambda builder: setattr(builder.filters.add_row().value, "value", "Chrome"),
        lambda builder: setattr(builder.dates.preset, "value", "Last 30 days"),
        lambda builder: setattr(builder.breakdown.type, "value", "person"),
    ],
)
def test_every_control_even_rows_added_later_marks_the_result_stale(client, fake, change):
    fake.routes[("POST", TREND)] = trend_answer(series([1, 2]))
    builder = TrendBuilder(client, events=["signup"])
    builder.run()
    change(builder)
    assert builder.stale


def test_the_saved_note_is_cleared_when_the_controls_change(client, fake):
    builder = TrendBuilder(client, events=["signup"])
    builder.save("Signups")
    assert "a1B2c3D4" in builder.saved.value
    builder.compare.value = True
    assert builder.saved.value == ""


def test_downloads_give_the_tidy_frame_as_csv_and_the_plot_as_png(client, fake):
    fake.routes[("POST", TREND)] = trend_answer(series([1, 2]))
    builder = TrendBuilder(client, events=["signup"])
    builder.run()
    links = dict(
        (part.split('download="')[1].split('"')[0], part.split("base64,")[1].split('"')[0])
        for part in builder.result.downloads.value.split("<a ")[1:]
    )
    assert sorted(links) == ["trend.csv", "trend.png"]
    csv = pd.read_csv(io.BytesIO(base64.b64decode(links["trend.csv"])))
    assert csv["value"].tolist() == [1.0, 2.0] and list(csv.columns) == list(builder.df.columns)
    assert base64.b64decode(links["trend.png"]).startswith(b"\x89PNG")


def test_other_is_the_last_column_of_the_table_and_entry_of_the_legend(client, fake, shown):
    # the API orders buckets by count: here Other (the rest added up) comes first and None second
    answer = [series([9, 9], "$$_posthog_breakdown_other_$$"), series([8, 8], NULL), series([5, 5], "Chrome")]
    fake.routes[("POST", TREND)] = trend_answer(*answer)
    builder = TrendBuilder(client, events=["signup"], breakdown="$browser")
    builder.run()
    legend = [text.get_text() for text in builder.figure.axes[0].get_legend().get_texts()]
    assert legend == ["signup - Chrome", "signup - None", "signup - Other"]
    table = shown[-1].data
    assert table.index("signup - Chrome") < table.index("signup - None") < table.index("signup - Other")
