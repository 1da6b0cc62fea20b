"""The trend and funnel builders of notebook 4, driven by clicking in JupyterLab in Chromium.

After the notebook has run, each builder's controls are changed in the page as an analyst would (an event,
a math, the breakdown, the date range, ...) and Run is clicked. Then, in the same kernel through Jupyter's
kernel protocol, a direct ``client.trend(...)`` / ``client.funnel(...)`` call with the request written out
by hand gives the frame the builder must hold; its readable table must be the table the page shows, and its
plot, drawn as the builder draws, must be the picture the page shows. Both must differ from what the page
showed before the click.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .lab import VIEWPORT, JupyterLab, run_in_kernel
from .pages import (
    notebook_copy_run,
    open_notebook,
    run_all_cells,
    screenshot_notebook,
    screenshot_on_failure,
    wait_for,
    wait_for_idle_kernel,
)

pytestmark = pytest.mark.browser

SOURCE = "04_builders.ipynb"
NOTEBOOK = "04_builders_driven.ipynb"
"""A copy of notebook 4 run in a kernel of its own, apart from the run of `test_notebooks_in_lab`."""
WIDGET_OUTPUT = ".jp-OutputArea-output:has(> .jupyter-widgets)"
RUN_TIMEOUT_MS = 120_000
ERROR_COLOUR = "#b00020"
"""The colour of a builder's error message (`Builder._fail`)."""

# the rows of a table as cell texts: the last one in the builder's output, or one given as HTML text
TABLE_SCRIPT = """(table) => table ? [...table.querySelectorAll('tr')].map(
    row => [...row.querySelectorAll('th, td')].map(cell => cell.textContent.trim())) : null"""

# what the kernel prints about a builder after the direct call (``request``, ``frame`` and ``shown`` defined)
COMPARE_CODE = """
import base64 as _base64, json as _json
from toolkit.frames.readable_tables import readable_table as _readable_table, table_html as _table_html
from toolkit.widgets.results import figure_png as _figure_png

print(_json.dumps({
    "request_shown": shown.request.to_dict(),
    "request_expected": request.to_dict(),
    "same_frame": shown.df is not None and shown.df.equals(frame),
    "html": _table_html(_readable_table(frame)),
    "rows": len(frame),
    "png": _base64.b64encode(_figure_png(shown._draw(frame))).decode(),
}))
"""


@dataclass(frozen=True)
class Driven:
    """What one builder showed before and after Run was clicked, and what the direct call gave."""

    images_before: list[str]
    tables_before: int
    table_before: list[list[str]] | None
    images_after: list[str]
    tables_after: int
    table_shown: list[list[str]] | None
    table_expected: list[list[str]]
    greyed_after: int
    message_after: list[str]
    request_shown: dict[str, Any]
    request_expected: dict[str, Any]
    same_frame: bool
    expected_rows: int
    expected_png: str
    screenshot: Path


@pytest.fixture(scope="module")
def builders_page(browser: Any, lab: JupyterLab, screenshots: Path) -> Iterator[Any]:
    """Notebook 4 run top to bottom in the lab (a copy, so it has a kernel of its own), as a reader leaves it."""
    with notebook_copy_run(browser, lab, SOURCE, NOTEBOOK, screenshots / "04_builders_driven_failed.png") as page:
        yield page


def _builder(page: Any, constructor: str) -> Any:
    """The displayed builder made by the cell that calls ``constructor``."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea-editor", has_text=constructor))
    return cell.locator(WIDGET_OUTPUT).first


def _images(builder: Any) -> list[str]:
    return builder.locator(".widget-output img").evaluate_all("images => images.map(image => image.src)")


def _control(builder: Any, label: str, kind: str = "select") -> Any:
    """The ``select`` or ``input`` of the control described ``label`` (ipywidgets puts it in a <label>)."""
    return builder.locator(f".widget-inline-hbox:has(> label:text-is('{label}')) {kind}").first


def _fill(locator: Any, text: str) -> None:
    locator.fill(text)
    locator.press("Enter")  # number and text boxes send their value to the kernel on Enter as on typing


# the builder's error messages: a run that fails changes them instead of the plot
ERRORS_SCRIPT = f"""(output) => [...output.querySelectorAll('span[style*="{ERROR_COLOUR}"]')]
    .map(note => note.textContent).join('|')"""


def _click_run(page: Any, builder: Any, name: str) -> None:
    """Click Run and wait until the run has ended (a new plot or a changed error message), then for the
    kernel idle.

    A Run clicked in the page goes on off the kernel's event loop (the kernel is idle while the API answers,
    and "Running…" shows after half a second), so only its result says it is over.
    """
    before = {"images": _images(builder), "errors": builder.evaluate(ERRORS_SCRIPT)}
    builder.locator("button.widget-button", has_text="Run").click()
    wait_for(
        page,
        f"""([output, before]) => {{
            const images = [...output.querySelectorAll('.widget-output img')].map(image => image.src);
            const last = before.images[before.images.length - 1];
            const changed = images.length > 0 && images[images.length - 1] !== last;
            return changed || ({ERRORS_SCRIPT})(output) !== before.errors;
        }}""",
        arg=[builder.element_handle(), before],
        what=f"a new plot or a changed message in the {name} builder after Run",
        timeout_ms=RUN_TIMEOUT_MS,
    )
    wait_for_idle_kernel(page, timeout_ms=RUN_TIMEOUT_MS)


def _drive(
    page: Any,
    lab: JupyterLab,
    builder: Any,
    screenshots: Path,
    name: str,
    expected_code: str,
    notebook: str = NOTEBOOK,
) -> Driven:
    """Click Run on ``builder`` (controls already changed), then compare with ``expected_code``'s direct call.

    ``expected_code`` defines ``request`` (written by hand), ``frame`` (the direct call with it) and ``shown``
    (the builder); the kernel of ``notebook`` renders the frame's table and plot the way the builder does.
    """
    tables = builder.locator(".widget-output table")
    images_before, tables_before = _images(builder), tables.count()
    table_before = tables.last.evaluate(TABLE_SCRIPT) if tables_before else None
    _click_run(page, builder, name)
    builder.scroll_into_view_if_needed()
    screenshot = screenshot_notebook(page, screenshots / f"04_builders_{name}_clicked.png")
    printed = run_in_kernel(lab, notebook, textwrap.dedent(expected_code) + COMPARE_CODE)
    answer = json.loads(printed.strip().splitlines()[-1])
    return Driven(
        images_before=images_before,
        tables_before=tables_before,
        table_before=table_before,
        images_after=_images(builder),
        tables_after=tables.count(),
        table_shown=tables.last.evaluate(TABLE_SCRIPT) if tables.count() else None,
        table_expected=page.evaluate(
            f"(html) => ({TABLE_SCRIPT})(new DOMParser().parseFromString(html, 'text/html').querySelector('table'))",
            answer["html"],
        ),
        greyed_after=builder.locator(".insightlab-stale").count(),
        message_after=builder.locator(f'span[style*="{ERROR_COLOUR}"]').all_text_contents(),
        request_shown=answer["request_shown"],
        request_expected=answer["request_expected"],
        same_frame=answer["same_frame"],
        expected_rows=answer["rows"],
        expected_png=answer["png"],
        screenshot=screenshot,
    )


@pytest.fixture(scope="module")
def trend_driven(builders_page: Any, lab: JupyterLab, screenshots: Path, after_run_all: RunAll) -> Driven:
    """Notebook 4 leaves the trend at total $pageview by week, 2025-12-18 to 2026-01-14, by $browser (top 2)."""
    page = builders_page
    builder = _builder(page, "toolkit.TrendBuilder(")
    with screenshot_on_failure(page, screenshots / "04_builders_trend_failed.png"):
        series = builder.locator(".widget-hbox:has(> .widget-dropdown > label:text-is('Series'))").first
        series.locator("select").nth(0).select_option(label="report_viewed")
        series.locator("select").nth(1).select_option(label="Unique users")
        _control(builder, "Interval").select_option(label="day")
        _control(builder, "Dates").select_option(label="Custom")
        _fill(_control(builder, "From", "input"), "2026-01-01")
        _fill(_control(builder, "To", "input"), "2026-01-14")
        _control(builder, "Breakdown").select_option(label="Person property")
        breakdown = builder.locator(".widget-hbox:has(> .widget-dropdown > label:text-is('Breakdown')) input")
        _fill(breakdown.first, "plan")
        _fill(_control(builder, "Top values", "input"), "3")
        compare = builder.locator(".widget-checkbox:has-text('Compare to previous period') input")
        if compare.is_checked():
            compare.uncheck()
        return _drive(
            page,
            lab,
            builder,
            screenshots,
            "trend",
            """
            from toolkit import event

            request = toolkit.TrendRequest(
                events=[event("report_viewed", math="dau")],
                interval="day",
                date_from="2026-01-01",
                date_to="2026-01-14",
                breakdown="plan",
                breakdown_type="person",
                breakdown_limit=3,
                display="ActionsLineGraph",
                filter_test_accounts=True,
            )
            frame = client.trend(request)
            shown = trend
            """,
        )


@pytest.fixture(scope="module")
def funnel_driven(builders_page: Any, lab: JupyterLab, screenshots: Path, trend_driven: Driven) -> Driven:
    """Notebook 4 leaves the funnel at signed_up, purchase, onboarding_completed in strict order within 14 days,
    2025-10-17 to 2026-01-15, without a breakdown."""
    page = builders_page
    builder = _builder(page, "toolkit.FunnelBuilder(")
    with screenshot_on_failure(page, screenshots / "04_builders_funnel_failed.png"):
        step = "div.widget-hbox:has(> .widget-label:text-is('Step {}')) select"
        builder.locator(step.format(2)).first.select_option(label="onboarding_completed")
        builder.locator(step.format(3)).first.select_option(label="purchase")
        _control(builder, "Order").select_option(label="Sequential")
        _fill(_control(builder, "Window", "input"), "10")
        _control(builder, "Dates").select_option(label="Custom")
        _fill(_control(builder, "From", "input"), "2025-11-01")
        _fill(_control(builder, "To", "input"), "2026-01-14")
        _control(builder, "Breakdown").select_option(label="Event property")
        breakdown = builder.locator(".widget-hbox:has(> .widget-dropdown > label:text-is('Breakdown')) input")
        _fill(breakdown.first, "$browser")
        return _drive(
            page,
            lab,
            builder,
            screenshots,
            "funnel",
            """
            request = toolkit.FunnelRequest(
                steps=["signed_up", "onboarding_completed", "purchase"],
                funnel_order_type="ordered",
                funnel_viz_type="steps",
                funnel_window_interval=10,
                funnel_window_interval_unit="day",
                date_from="2025-11-01",
                date_to="2026-01-14",
                interval="day",
                breakdown="$browser",
                breakdown_type="event",
                filter_test_accounts=True,
            )
            frame = client.funnel(request)
            shown = funnel
            """,
        )


@pytest.fixture(params=["trend", "funnel"])
def driven(request: pytest.FixtureRequest) -> Driven:
    return request.getfixturevalue(f"{request.param}_driven")


def test_the_builder_sends_what_the_changed_controls_show(driven):
    assert driven.request_shown == driven.request_expected, f"see {driven.screenshot}"


def test_after_run_the_builder_holds_the_direct_calls_frame_and_shows_no_error(driven):
    assert driven.message_after == [], f"see {driven.screenshot}"
    assert driven.same_frame, f"the builder's df is not what client.trend/funnel returns: see {driven.screenshot}"


def test_the_table_shown_after_run_changed_and_is_the_direct_calls_readable_table(driven):
    assert driven.expected_rows > 1 and len(driven.table_expected) > 2  # a header and rows to compare
    assert driven.table_shown != driven.table_before, f"see {driven.screenshot}"
    assert driven.table_shown == driven.table_expected, f"see {driven.screenshot}"


def test_the_plot_shown_after_run_changed_and_is_the_direct_calls_plot(driven):
    assert driven.images_after[-1] != driven.images_before[-1], f"see {driven.screenshot}"
    assert driven.images_after[-1] == f"data:image/png;base64,{driven.expected_png}", f"see {driven.screenshot}"


def test_after_clicking_run_the_output_shows_only_that_runs_plot_and_table_not_greyed(driven):
    assert (len(driven.images_after), driven.tables_after) == (1, 1), f"see {driven.screenshot}"
    assert driven.greyed_after == 0, f"the new result is greyed out as stale: see {driven.screenshot}"


def test_after_runs_from_code_the_output_shows_only_the_last_runs_plot_and_table(driven):
    """Notebook 4 runs each builder from code several times (``run()``, ``run_button.click()``)."""
    assert (len(driven.images_before), driven.tables_before) == (1, 1), f"see {driven.screenshot}"


# the way from a chart to its people --------------------------------------------------------------------------

# the persons the panel's table shows, by the texts of its distinct_id column
PEOPLE_SCRIPT = """(output) => {
    const table = output.querySelector('.widget-html table');
    if (!table) return null;
    const headers = [...table.querySelectorAll('thead th')].map(cell => cell.textContent.trim());
    const column = headers.indexOf('distinct_id');
    return [...table.querySelectorAll('tbody tr')]
        .map(row => row.querySelectorAll('th, td')[column].textContent.trim());
}"""

# how far (pixels) the people table's box reaches past the right edge of the builder's output (0: it fits)
PEOPLE_OVERFLOW_SCRIPT = """(output) => {
    const box = output.querySelector('.widget-html table').closest('.widget-html');
    return Math.max(0, box.getBoundingClientRect().right - output.getBoundingClientRect().right);
}"""


@dataclass(frozen=True)
class PeopleShown:
    """What the trend builder's people panel showed for a picked point, and what the client says of it."""

    label: str
    shown: list[str]
    message: str
    saved: str
    expected: list[str]
    value: float
    members: list[str]
    overflow: float
    screenshot: Path


@pytest.fixture(scope="module")
def trend_people(builders_page: Any, lab: JupyterLab, screenshots: Path, trend_driven: Driven) -> PeopleShown:
    """After the trend run above (unique users of report_viewed by plan, by day), the busiest point is picked
    under the chart, its people read from the page, and "Save as cohort" clicked."""
    page = builders_page
    builder = _builder(page, "toolkit.TrendBuilder(")
    chosen = json.loads(
        run_in_kernel(
            lab,
            NOTEBOOK,
            "import json as _json\n"
            "_point = max(trend.people.points, key=lambda point: point.value or 0)\n"
            "print(_json.dumps({'label': _point.label, 'row': _point.row}))",
        )
        .strip()
        .splitlines()[-1]
    )
    with screenshot_on_failure(page, screenshots / "04_builders_people_failed.png"):
        _control(builder, "People of").select_option(label=chosen["label"])
        wait_for(
            page,
            f"(output) => ({PEOPLE_SCRIPT})(output) !== null",
            arg=builder.element_handle(),
            what="the people table of the picked point",
            timeout_ms=RUN_TIMEOUT_MS,
        )
        wait_for_idle_kernel(page, timeout_ms=RUN_TIMEOUT_MS)
        shown = builder.evaluate(PEOPLE_SCRIPT)
        overflow = builder.evaluate(PEOPLE_OVERFLOW_SCRIPT)
        message = builder.locator(".widget-html", has_text="behind").first.text_content()
        _fill(_control(builder, "Cohort", "input"), "Busiest day in the lab")
        builder.locator("button.widget-button", has_text="Save as cohort").click()
        saved = builder.locator(".widget-html", has_text="Saved cohort")
        saved.wait_for(timeout=RUN_TIMEOUT_MS)
        wait_for_idle_kernel(page, timeout_ms=RUN_TIMEOUT_MS)
        builder.scroll_into_view_if_needed()
        screenshot = screenshot_notebook(page, screenshots / "04_builders_trend_people.png")
    printed = run_in_kernel(
        lab,
        NOTEBOOK,
        textwrap.dedent(
            f"""
            import json as _json
            _row = trend.df.iloc[{chosen["row"]}]
            _cohort = int(trend.people.cohort.loc[0, "id"])
            _members = client.paginate(client.project_path(f"cohorts/{{_cohort}}/persons/"))
            print(_json.dumps({{
                "expected": [ids[0] for ids in client.people(_row)["distinct_ids"]],
                "value": float(_row["value"]),
                "members": [person["distinct_ids"][0] for person in _members],
            }}))
            """
        ),
    )
    answer = json.loads(printed.strip().splitlines()[-1])
    return PeopleShown(
        label=chosen["label"],
        shown=shown,
        message=message or "",
        saved=saved.text_content() or "",
        expected=answer["expected"],
        value=answer["value"],
        members=answer["members"],
        overflow=overflow,
        screenshot=screenshot,
    )


def test_a_point_picked_under_the_chart_shows_exactly_the_people_it_counts(trend_people):
    # unique users: the point's value is its number of persons, and they are client.people's for that row
    assert trend_people.value > 1, f"pick a busier point: see {trend_people.screenshot}"
    assert sorted(trend_people.shown) == sorted(trend_people.expected), f"see {trend_people.screenshot}"
    assert len(trend_people.shown) == trend_people.value, f"see {trend_people.screenshot}"
    assert f"{int(trend_people.value)} persons behind {trend_people.label}" in trend_people.message


def test_the_people_table_fits_the_output_area_and_scrolls_sideways_inside_it(trend_people):
    assert trend_people.overflow <= 1, f"{trend_people.overflow} px past the output: see {trend_people.screenshot}"


def test_save_as_cohort_makes_a_cohort_of_those_people_and_says_so(trend_people):
    assert sorted(trend_people.members) == sorted(trend_people.expected), f"see {trend_people.screenshot}"
    assert "Saved cohort “Busiest day in the lab”" in trend_people.saved
    assert f"of {len(trend_people.expected)} persons" in trend_people.saved


@dataclass(frozen=True)
class PeopleClicked:
    """What a click on a point of the trend's interactive chart (``%matplotlib widget``) listed."""

    picked: str
    shown: list[str]
    expected: list[str]
    value: float
    screenshot: Path


@pytest.fixture(scope="module")
def trend_clicked(builders_page: Any, lab: JupyterLab, screenshots: Path, trend_people: PeopleShown) -> PeopleClicked:
    """The same trend run again under ``%matplotlib widget``, then its busiest point clicked on the canvas; the
    kernel goes back to the inline backend afterwards, as the other builders' pictures are compared as PNGs."""
    page = builders_page
    builder = _builder(page, "toolkit.TrendBuilder(")
    run_in_kernel(lab, NOTEBOOK, "get_ipython().run_line_magic('matplotlib', 'widget')")
    try:
        with screenshot_on_failure(page, screenshots / "04_builders_people_click_failed.png"):
            builder.locator("button.widget-button", has_text="Run").click()
            canvas = builder.locator(".jupyter-matplotlib-canvas-div canvas").first
            canvas.wait_for(timeout=RUN_TIMEOUT_MS)
            wait_for_idle_kernel(page, timeout_ms=RUN_TIMEOUT_MS)
            # where the busiest anchored point is, as a share of the figure (matplotlib counts y from the bottom)
            target = json.loads(
                run_in_kernel(
                    lab,
                    NOTEBOOK,
                    textwrap.dedent(
                        """
                        import json as _json
                        _points = [point for point in trend.people.points if point.anchor is not None]
                        _point = max(_points, key=lambda point: point.value or 0)
                        _x, _y = trend.figure.axes[0].transData.transform(_point.anchor)
                        _box = trend.figure.bbox
                        print(_json.dumps({"x": _x / _box.width, "y": _y / _box.height, "row": _point.row,
                                           "label": _point.label}))
                        """
                    ),
                )
                .strip()
                .splitlines()[-1]
            )
            box = canvas.bounding_box()
            page.mouse.click(box["x"] + target["x"] * box["width"], box["y"] + (1 - target["y"]) * box["height"])
            wait_for(
                page,
                """([output, label]) => [...output.querySelectorAll('.widget-html')]
                    .some(note => note.textContent.includes('behind ' + label))""",
                arg=[builder.element_handle(), target["label"]],
                what="the people of the clicked point",
                timeout_ms=RUN_TIMEOUT_MS,
            )
            wait_for_idle_kernel(page, timeout_ms=RUN_TIMEOUT_MS)
            shown = builder.evaluate(PEOPLE_SCRIPT)
            builder.scroll_into_view_if_needed()
            screenshot = screenshot_notebook(page, screenshots / "04_builders_trend_people_clicked.png")
        printed = run_in_kernel(
            lab,
            NOTEBOOK,
            textwrap.dedent(
                f"""
                import json as _json
                _row = trend.df.iloc[{target["row"]}]
                print(_json.dumps({{
                    "picked": trend.people.point.label if trend.people.point is not None else None,
                    "expected": [ids[0] for ids in client.people(_row)["distinct_ids"]],
                    "value": float(_row["value"]),
                }}))
                """
            ),
        )
    finally:
        run_in_kernel(lab, NOTEBOOK, "get_ipython().run_line_magic('matplotlib', 'inline')")
    answer = json.loads(printed.strip().splitlines()[-1])
    assert answer["picked"] == target["label"], f"the click picked another point: see {screenshot}"
    return PeopleClicked(target["label"], shown, answer["expected"], answer["value"], screenshot)


def test_a_click_on_a_point_of_the_interactive_chart_lists_its_people(trend_clicked):
    assert trend_clicked.value > 1, f"click a busier point: see {trend_clicked.screenshot}"
    assert sorted(trend_clicked.shown) == sorted(trend_clicked.expected), f"see {trend_clicked.screenshot}"
    assert len(trend_clicked.shown) == trend_clicked.value, f"see {trend_clicked.screenshot}"


@dataclass(frozen=True)
class RunAll:
    """What notebook 4 shows once Run All is over, before anything is clicked."""

    greyed: dict[str, int]
    screenshot: Path


@pytest.fixture(scope="module")
def after_run_all(builders_page: Any, screenshots: Path) -> RunAll:
    page = builders_page
    greyed = {
        name: _builder(page, constructor).locator(".insightlab-stale").count()
        for name, constructor in (("trend", "toolkit.TrendBuilder("), ("funnel", "toolkit.FunnelBuilder("))
    }
    _builder(page, "toolkit.TrendBuilder(").scroll_into_view_if_needed()
    return RunAll(greyed, screenshot_notebook(page, screenshots / "04_builders_after_run_all.png"))


def test_after_run_all_no_builder_is_greyed_out(after_run_all):
    """Notebook 4's later cells change the trend builder and change it back (a filter row added, then
    removed): its controls describe the result shown again, which stays in colour."""
    assert after_run_all.greyed == {"trend": 0, "funnel": 0}, f"see {after_run_all.screenshot}"


WIDGET_NOTEBOOK = "04_builders_ipympl.ipynb"
"""A short notebook showing a trend builder's result under ``%matplotlib widget`` (ipympl's canvas)."""
WIDGET_CELLS = [
    "%matplotlib widget",
    "import toolkit\nfrom toolkit import local\n\n"
    'client = local.start("ipympl.db", now="2026-01-15T12:00:00Z", events=10_000, seed=7)',
    'trend = toolkit.TrendBuilder(\n    client, events=["$pageview"], breakdown="$browser", date_from="2025-12-18", '
    'date_to="2026-01-14"\n)\ntrend.run()\ntrend',
]
# each cell of the builder's table: its text, its height and the height of one line of its text
CELLS_SCRIPT = """(output) => {
    const table = output.querySelector('.widget-output table');
    if (!table) return null;
    const cells = [...table.querySelectorAll('th, td')].map(cell => {
        const style = getComputedStyle(cell);
        const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.3;
        return {text: cell.textContent.trim(), height: cell.getBoundingClientRect().height, line: line};
    });
    const box = table.parentElement.getBoundingClientRect();
    return {cells: cells, table: table.getBoundingClientRect().width, scroll: table.parentElement.scrollWidth,
            box: box.width};
}"""


@dataclass(frozen=True)
class WidgetTable:
    """The builder's table as shown under ``%matplotlib widget``."""

    cells: list[dict[str, Any]]
    table_width: float
    box_width: float
    canvases: int
    screenshot: Path


@pytest.fixture(scope="module")
def widget_table(browser: Any, lab: JupyterLab, screenshots: Path) -> WidgetTable:
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in WIDGET_CELLS])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, lab.root / WIDGET_NOTEBOOK)
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        with screenshot_on_failure(page, screenshots / "04_builders_ipympl_failed.png"):
            open_notebook(page, lab, WIDGET_NOTEBOOK)
            run_all_cells(page)
            builder = _builder(page, "toolkit.TrendBuilder(")
            wait_for(
                page,
                "(output) => output.querySelector('.widget-output table')",
                arg=builder.element_handle(),
                what="the builder's table under %matplotlib widget",
                timeout_ms=RUN_TIMEOUT_MS,
            )
            shown = builder.evaluate(CELLS_SCRIPT)
            canvases = builder.locator(".widget-output canvas").count()
            builder.scroll_into_view_if_needed()
            screenshot = screenshot_notebook(page, screenshots / "04_builders_ipympl.png")
            run_in_kernel(lab, WIDGET_NOTEBOOK, "client.stop()")
        return WidgetTable(shown["cells"], shown["table"], shown["box"], canvases, screenshot)
    finally:
        context.close()


def test_under_matplotlib_widget_the_plot_is_the_interactive_canvas(widget_table):
    assert widget_table.canvases >= 1, f"see {widget_table.screenshot}"


def test_under_matplotlib_widget_the_table_keeps_every_cell_on_one_line(widget_table):
    dates = [cell for cell in widget_table.cells if cell["text"].startswith("2025-12-")]
    assert dates, f"no dates in the table: see {widget_table.screenshot}"
    wrapped = [cell["text"] for cell in widget_table.cells if cell["height"] > 1.8 * cell["line"]]
    assert wrapped == [], f"cells wrapped onto two lines: see {widget_table.screenshot}"


def test_under_matplotlib_widget_the_table_is_as_wide_as_its_content(widget_table):
    """Squeezed into a narrow column, the table's headers and dates wrapped; it may scroll, never shrink."""
    assert widget_table.table_width > 0.5 * VIEWPORT["width"], f"see {widget_table.screenshot}"
