"""The retention, paths (also restricted to a funnel), stickiness and lifecycle builders of notebook 4, driven
by clicking in JupyterLab.

As `test_builders_in_lab` does for the trend and funnel: after Run All, each builder's controls are changed
in the page and Run is clicked; a direct ``client.retention(...)`` / ``paths`` / ``stickiness`` /
``lifecycle`` call with the request written out by hand, in the same kernel, gives the frame the builder must
hold, the table the page must show and the picture it must show. Then the way from the chart to its people:
a point is picked under the chart, and the persons the page lists must be those the client lists for it
(`client.people` of its row, `client.path_people` of its edge), as many as the point counts.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .lab import JupyterLab, run_in_kernel
from .pages import (
    notebook_copy_run,
    screenshot_notebook,
    screenshot_on_failure,
    wait_for,
    wait_for_idle_kernel,
)
from .test_builders_in_lab import PEOPLE_SCRIPT, RUN_TIMEOUT_MS, SOURCE, Driven, _builder, _control, _drive, _fill

pytestmark = pytest.mark.browser

NOTEBOOK = "04_builders_kinds.ipynb"
"""A copy of notebook 4 with a kernel of its own, apart from the other browser tests' copies."""


@pytest.fixture(scope="module")
def kinds_page(browser: Any, lab: JupyterLab, screenshots: Path) -> Iterator[Any]:
    with notebook_copy_run(browser, lab, SOURCE, NOTEBOOK, screenshots / "04_builders_kinds_failed.png") as page:
        yield page


def _tick(builder: Any, label: str, checked: bool) -> None:
    box = builder.locator(f".widget-checkbox:has-text('{label}') input").first
    if box.is_checked() != checked:
        box.click()


def _custom_dates(builder: Any, date_from: str, date_to: str) -> None:
    _control(builder, "Dates").select_option(label="Custom")
    _fill(_control(builder, "From", "input"), date_from)
    _fill(_control(builder, "To", "input"), date_to)


def _drive_retention(page: Any, builder: Any) -> str:
    """Notebook 4 leaves it at signed_up, back with report_viewed, by week, 6 periods up to 2026-01-12."""
    _control(builder, "Cohort event").select_option(label="report_viewed")
    _control(builder, "Comes back with").select_option(label="Same as the first event")
    _control(builder, "Period").select_option(label="Day")
    _fill(_control(builder, "Periods", "input"), "7")
    _fill(_control(builder, "Up to", "input"), "2026-01-14")
    return """
        request = toolkit.RetentionRequest(
            target_entity={"id": "report_viewed", "type": "events"},
            period="Day",
            total_intervals=7,
            retention_type="retention_recurring",
            date_to="2026-01-14",
            filter_test_accounts=True,
        )
        frame = client.retention(request)
        shown = retention
    """


def _drive_paths(page: Any, builder: Any) -> str:
    """Notebook 4 leaves it at pageviews, 4 steps, 1 to 14 January."""
    _tick(builder, "Pageviews (by URL)", False)
    _tick(builder, "Custom events (by name)", True)
    _fill(_control(builder, "Steps", "input"), "3")
    _custom_dates(builder, "2025-12-15", "2026-01-14")
    return """
        request = toolkit.PathsRequest(
            include_event_types=["custom_event"],
            step_limit=3,
            date_from="2025-12-15",
            date_to="2026-01-14",
            filter_test_accounts=True,
        )
        frame = client.paths(request)
        shown = paths
    """


def _drive_paths_funnel(page: Any, builder: Any) -> str:
    """Notebook 4 leaves it at custom events from step 1 (signed_up) on, of who dropped off before step 2."""
    _control(builder, "Restrict to a funnel").select_option(label="After a step")
    _control(builder, "of the people").select_option(label="who reached it")
    _fill(_control(builder, "Step", "input"), "2")
    return """
        request = toolkit.PathsRequest(
            include_event_types=["custom_event"],
            step_limit=3,
            date_from="2026-01-01",
            date_to="2026-01-14",
            filter_test_accounts=True,
            funnel=toolkit.FunnelRequest(
                steps=["signed_up", "onboarding_completed"],
                date_from="2026-01-01",
                date_to="2026-01-14",
                filter_test_accounts=True,
            ),
            funnel_step=2,
            funnel_paths="after",
        )
        frame = client.paths(request)
        shown = dropped
    """


def _drive_stickiness(page: Any, builder: Any) -> str:
    """Notebook 4 leaves it at report_viewed, at least 2 events a day, 1 to 14 January."""
    _control(builder, "Series").select_option(label="$pageview")
    _control(builder, "Counts with").select_option(label="exactly")
    counts = builder.locator(".widget-hbox:has(> .widget-dropdown > label:text-is('Counts with')) input").first
    _fill(counts, "1")
    _tick(builder, "Cumulative (k or more intervals)", True)
    _control(builder, "Interval").select_option(label="week")
    _custom_dates(builder, "2025-12-01", "2026-01-14")
    return """
        request = toolkit.StickinessRequest(
            events=[{"id": "$pageview", "type": "events"}],
            interval="week",
            criteria=("exact", 1),
            cumulative=True,
            date_from="2025-12-01",
            date_to="2026-01-14",
            filter_test_accounts=True,
        )
        frame = client.stickiness(request)
        shown = stickiness
    """


def _drive_lifecycle(page: Any, builder: Any) -> str:
    """Notebook 4 leaves it at report_viewed by week from 17 November."""
    _control(builder, "Event").select_option(label="$pageview")
    _control(builder, "Interval").select_option(label="day")
    _custom_dates(builder, "2026-01-01", "2026-01-14")
    return """
        request = toolkit.LifecycleRequest(
            event={"id": "$pageview", "type": "events"},
            interval="day",
            date_from="2026-01-01",
            date_to="2026-01-14",
            filter_test_accounts=True,
        )
        frame = client.lifecycle(request)
        shown = lifecycle
    """


KINDS = {
    "retention": ("toolkit.RetentionBuilder(", _drive_retention),
    "paths": ("toolkit.PathsBuilder(", _drive_paths),
    # the paths builder restricted to a funnel: the cell that makes ``dropped``
    "dropped": ("dropped = toolkit.PathsBuilder(", _drive_paths_funnel),
    "stickiness": ("toolkit.StickinessBuilder(", _drive_stickiness),
    "lifecycle": ("toolkit.LifecycleBuilder(", _drive_lifecycle),
}

# the busiest point with people, and what the client lists for it (the row of the builder's frame, or the edge)
CHOOSE_CODE = """
import json as _json
_points = [point for point in {name}.people.points if point.row is not None and abs(point.value or 0) > 1]
_point = max(_points, key=lambda point: abs(point.value or 0))
_row = {name}.df.iloc[_point.row]
if isinstance({name}, toolkit.PathsBuilder):
    _expected = client.path_people({name}.request, start_key=_row["source"], end_key=_row["target"])
else:
    _expected = client.people(_row)
print(_json.dumps({{"label": _point.label, "value": abs(_point.value),
                   "expected": sorted(ids[0] for ids in _expected["distinct_ids"])}}))
"""


@dataclass(frozen=True)
class KindDriven:
    """One builder driven by clicks: its run (`Driven`), then the people of its busiest point."""

    run: Driven
    label: str
    value: float
    people_shown: list[str]
    people_expected: list[str]
    message: str
    screenshot: Path


@pytest.fixture(scope="module")
def kinds_driven(kinds_page: Any, lab: JupyterLab, screenshots: Path) -> dict[str, KindDriven]:
    page = kinds_page
    found = {}
    for name, (constructor, drive) in KINDS.items():
        builder = _builder(page, constructor)
        with screenshot_on_failure(page, screenshots / f"04_builders_{name}_failed.png"):
            builder.scroll_into_view_if_needed()
            expected_code = drive(page, builder)
            run = _drive(page, lab, builder, screenshots, name, expected_code, NOTEBOOK)
            chosen = json.loads(
                run_in_kernel(lab, NOTEBOOK, textwrap.dedent(CHOOSE_CODE.format(name=name))).strip().splitlines()[-1]
            )
            _control(builder, "People of").select_option(label=chosen["label"])
            wait_for(
                page,
                f"(output) => ({PEOPLE_SCRIPT})(output) !== null",
                arg=builder.element_handle(),
                what=f"the people table of the {name} builder's picked point",
                timeout_ms=RUN_TIMEOUT_MS,
            )
            wait_for_idle_kernel(page, timeout_ms=RUN_TIMEOUT_MS)
            shown = builder.evaluate(PEOPLE_SCRIPT)
            message = builder.locator(".widget-html", has_text="behind").first.text_content() or ""
            builder.scroll_into_view_if_needed()
            screenshot = screenshot_notebook(page, screenshots / f"04_builders_{name}_people.png")
        found[name] = KindDriven(
            run, chosen["label"], chosen["value"], sorted(shown), chosen["expected"], message, screenshot
        )
    return found


@pytest.fixture(params=list(KINDS))
def driven(request: pytest.FixtureRequest, kinds_driven: dict[str, KindDriven]) -> KindDriven:
    return kinds_driven[request.param]


def test_the_builder_sends_what_the_clicked_controls_show(driven):
    assert driven.run.request_shown == driven.run.request_expected, f"see {driven.run.screenshot}"


def test_after_run_the_builder_holds_the_direct_calls_frame_and_shows_no_error(driven):
    assert driven.run.message_after == [], f"see {driven.run.screenshot}"
    assert driven.run.same_frame, f"the builder's df is not the client call's: see {driven.run.screenshot}"


def test_the_table_shown_after_run_changed_and_is_the_direct_calls_readable_table(driven):
    assert driven.run.expected_rows > 1 and len(driven.run.table_expected) > 2
    assert driven.run.table_shown != driven.run.table_before, f"see {driven.run.screenshot}"
    assert driven.run.table_shown == driven.run.table_expected, f"see {driven.run.screenshot}"


def test_the_plot_shown_after_run_changed_and_is_the_direct_calls_plot(driven):
    assert driven.run.images_after[-1] != driven.run.images_before[-1], f"see {driven.run.screenshot}"
    assert driven.run.images_after[-1] == f"data:image/png;base64,{driven.run.expected_png}"
    assert (len(driven.run.images_after), driven.run.tables_after) == (1, 1), f"see {driven.run.screenshot}"
    assert driven.run.greyed_after == 0, f"the new result is greyed out as stale: see {driven.run.screenshot}"


def test_a_point_picked_under_the_chart_lists_the_people_the_client_lists_for_it(driven):
    assert driven.people_shown == driven.people_expected, f"see {driven.screenshot}"
    assert f"{len(driven.people_expected)} persons behind {driven.label}" in driven.message, driven.message


def test_the_people_listed_are_as_many_as_the_point_counts(driven, request):
    if request.node.callspec.id in ("paths", "dropped"):
        # an edge counts sessions, and a person may make it in several: never more persons than sessions
        assert 0 < len(driven.people_shown) <= driven.value, f"see {driven.screenshot}"
    else:
        assert len(driven.people_shown) == driven.value, f"see {driven.screenshot}"


# a click on the interactive chart -----------------------------------------------------------------------------

# where the busiest clickable point of ``{name}`` is, as a share of its figure (matplotlib counts y from the
# bottom), and the persons the client lists for its row
TARGET_CODE = """
import json as _json
_points = [point for point in {name}.people.points if point.anchor is not None and point.row is not None]
_point = max(_points, key=lambda point: abs(point.value or 0))
_x, _y = {name}.figure.axes[0].transData.transform(_point.anchor)
_box = {name}.figure.bbox
_people = client.people({name}.df.iloc[_point.row])
print(_json.dumps({{"x": _x / _box.width, "y": _y / _box.height, "label": _point.label,
                   "expected": sorted(ids[0] for ids in _people["distinct_ids"])}}))
"""


@dataclass(frozen=True)
class Clicked:
    """What a click inside a cell or segment of a builder's ipympl chart listed."""

    label: str
    picked: str | None
    shown: list[str]
    expected: list[str]
    screenshot: Path


@pytest.fixture(scope="module")
def kinds_clicked(
    kinds_page: Any, lab: JupyterLab, screenshots: Path, kinds_driven: dict[str, KindDriven]
) -> dict[str, Clicked]:
    """The retention and lifecycle builders run again under ``%matplotlib widget``, then their busiest cell or
    segment clicked on the canvas (the kernel goes back to inline afterwards)."""
    page = kinds_page
    found = {}
    run_in_kernel(lab, NOTEBOOK, "get_ipython().run_line_magic('matplotlib', 'widget')")
    try:
        for name in ("retention", "lifecycle"):
            builder = _builder(page, KINDS[name][0])
            with screenshot_on_failure(page, screenshots / f"04_builders_{name}_click_failed.png"):
                builder.locator("button.widget-button", has_text="Run").click()
                canvas = builder.locator(".jupyter-matplotlib-canvas-div canvas").first
                canvas.wait_for(timeout=RUN_TIMEOUT_MS)
                wait_for_idle_kernel(page, timeout_ms=RUN_TIMEOUT_MS)
                code = textwrap.dedent(TARGET_CODE.format(name=name))
                target = json.loads(run_in_kernel(lab, NOTEBOOK, code).strip().splitlines()[-1])
                box = canvas.bounding_box()
                page.mouse.click(box["x"] + target["x"] * box["width"], box["y"] + (1 - target["y"]) * box["height"])
                wait_for(
                    page,
                    """([output, label]) => [...output.querySelectorAll('.widget-html')]
                        .some(note => note.textContent.includes('behind ' + label))""",
                    arg=[builder.element_handle(), target["label"]],
                    what=f"the people of the clicked point of the {name} builder",
                    timeout_ms=RUN_TIMEOUT_MS,
                )
                wait_for_idle_kernel(page, timeout_ms=RUN_TIMEOUT_MS)
                shown = builder.evaluate(PEOPLE_SCRIPT)
                builder.scroll_into_view_if_needed()
                screenshot = screenshot_notebook(page, screenshots / f"04_builders_{name}_people_clicked.png")
            picked = run_in_kernel(
                lab, NOTEBOOK, f"print({name}.people.point.label if {name}.people.point is not None else '')"
            ).strip()
            found[name] = Clicked(target["label"], picked, sorted(shown), target["expected"], screenshot)
    finally:
        run_in_kernel(lab, NOTEBOOK, "get_ipython().run_line_magic('matplotlib', 'inline')")
    return found


@pytest.mark.parametrize("name", ["retention", "lifecycle"])
def test_a_click_inside_a_cell_or_segment_lists_its_people(kinds_clicked, name):
    clicked = kinds_clicked[name]
    assert clicked.picked == clicked.label, f"the click picked another point: see {clicked.screenshot}"
    assert len(clicked.expected) > 1, f"click a busier point: see {clicked.screenshot}"
    assert clicked.shown == clicked.expected, f"see {clicked.screenshot}"
