"""`Builder`: what every builder shares (trend, funnel, retention, paths, stickiness, lifecycle).

A builder turns its controls into a request object (`Builder.request`), runs it through the client
(`Builder.run`, also the Run button), keeps the frame and figure (`Builder.df`, `Builder.figure`), shows
them in its output area, and saves the request as an insight (`Builder.save`, the "Save as insight"
button). Nothing needs a browser: setting control values and calling ``run()`` or ``.click()`` works in
plain Python. Errors, from the API or from what was typed, become a message (`Builder.error`), never
a traceback in the notebook; a backend that stopped answering is one sentence saying so.

The result area (`results.ResultArea`) shows the plot, the readable table and download links; a control
changed after a run greys the result out and clears the "Saved as" note, since both describe an earlier
request (changed back, so that the controls describe the shown result again, the grey goes).

Every builder has the "Filter out test accounts" toggle, on from the start when the project defines
test-account filters. A Run that lasts says so after half a second, and a Run clicked in the page while
another is in flight supersedes it (`runs`): only the newest result is shown.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any
from urllib.parse import urlsplit

import ipywidgets as widgets
import pandas as pd
import requests
from matplotlib.figure import Figure

from ..entities import entity_dict
from ..errors import APIError, ToolkitError, TransportError
from ..labels import NO_MATHJAX_CLASSES
from ..plots.layout import settle_layout
from ..plots.style import request_title
from .catalog import Catalog
from .controls import BreakdownControl, DateRangeControl, PropertyFilterEditor
from .results import STALE_NOTE, ResultArea, watch_values
from .reuse import builder_name, request_code, request_entities, request_from_filters
from .runs import BusyNote, RunTickets, clicked_in_page, running_loop

__all__ = ["BREAKDOWN_FIELDS", "INTERVALS", "Builder", "UnseenNamesError", "error_message"]

INTERVALS = ["hour", "day", "week", "month"]
BREAKDOWN_FIELDS = ("breakdown", "breakdown_type", "breakdown_limit")


class UnseenNamesError(ValueError):
    """Events or properties the project never saw: the request would answer a chart of zeros.

    Unlike other errors, the warning follows the controls: it is checked again whenever one changes, and
    goes once the names it was about are fixed or their rows removed.
    """


def error_message(error: Exception) -> str:
    """One readable sentence for an error shown in a builder.

    Examples
    --------
    >>> from toolkit import ValidationError
    >>> error_message(ValidationError(400, code="invalid_input", detail="Unknown interval.", attr="interval"))
    'The API refused the request: Unknown interval. (field interval, 400 invalid_input)'
    """
    if isinstance(error, APIError):
        where = f"field {error.attr}, " if error.attr else ""
        code = f" {error.code}" if error.code else ""
        return f"The API refused the request: {error.detail or 'no detail given'} ({where}{error.status}{code})"
    if isinstance(error, TransportError):
        return _unreachable(error)
    if isinstance(error, ToolkitError):
        return f"Could not reach the API: {error}"
    return f"Check the builder: {error}"


def _unreachable(error: TransportError) -> str:
    """One line for a request that got no answer (the full urllib3 story stays on ``error``)."""
    parts = urlsplit(error.url)
    where = f"{parts.scheme}://{parts.netloc}" if parts.netloc else error.url
    cause = error.__cause__
    if isinstance(cause, requests.Timeout) and not isinstance(cause, requests.ConnectionError):
        return f"The backend at {where} did not answer in time: try again, or a shorter date range."
    return f"The backend at {where} is not reachable: is the server running?"


class Builder:
    """Base of every builder (`TrendBuilder`, ...); subclasses give the request class and their controls."""

    request_class: type
    run_label = "Run"
    kind = "result"
    """Names the downloaded files (``trend.csv``, ``funnel.png``)."""

    def __init__(self, client: Any, initial: Any) -> None:
        self.client = client
        self.catalog = Catalog(client)
        self.df: pd.DataFrame | None = None
        self.figure: Figure | None = None
        self.error: str | None = None
        self.short_id: str | None = None
        self._initial = initial
        self.dates = DateRangeControl()
        self.interval = widgets.Dropdown(options=INTERVALS, value="day", description="Interval")
        self.breakdown = BreakdownControl(self.catalog)
        self.filters = PropertyFilterEditor(self.catalog)
        self.test_accounts = widgets.Checkbox(
            value=bool(initial.filter_test_accounts), description="Filter out test accounts", indent=False
        )
        self.run_button = widgets.Button(description=self.run_label, button_style="primary", icon="play")
        self.busy = widgets.HTML()
        self._busy = BusyNote(self.busy, self.run_button, self._note)
        self._tickets = RunTickets()
        self._shown_request: Any = None
        self.message = widgets.HTML()
        self.result = ResultArea(self.kind)
        self.output = self.result.output
        self.name = widgets.Text(placeholder="Insight name", description="Name")
        self.save_button = widgets.Button(description="Save as insight", icon="save")
        self.saved = widgets.HTML()
        self.code_button = widgets.Button(description="Copy as code", icon="code", tooltip="The equivalent call")
        self.code_box = widgets.HTML(layout=widgets.Layout(display="none"))
        self._panels: list[tuple[widgets.Widget, Callable[[Any, pd.DataFrame, Figure | None], None]]] = []
        self.run_button.on_click(lambda _button: self._clicked(self.click_run))
        self.save_button.on_click(lambda _button: self._clicked(self.save))
        self.code_button.on_click(lambda _button: self._clicked(self.toggle_code))
        self.dates.load(initial.date_from, initial.date_to)
        interval = getattr(initial, "interval", None)  # retention has periods, paths neither
        if interval is not None:
            self.interval.options = INTERVALS if interval in INTERVALS else [*INTERVALS, interval]
            self.interval.value = interval
        self.breakdown.load(*(getattr(initial, name, None) for name in BREAKDOWN_FIELDS))
        self.filters.load(initial.properties)

    def _ready(self) -> None:
        """Called at the end of a subclass's ``__init__``, once every control exists: say which picker lists
        could not be loaded, and start watching the controls."""
        if self.catalog.problems:
            self.message.value = self._note("Pickers show only the given values: " + "; ".join(self.catalog.problems))
        if self._initial.filter_test_accounts is None and self.catalog.test_account_filters():
            self.test_accounts.value = True  # as PostHog's toggle starts in a project that defines them
        self._running = False
        self._warned_unseen = False
        for control in [*self._controls(), self.test_accounts]:
            watch_values(control, self._controls_changed)

    def _controls_changed(self, _change: Any = None) -> None:
        """A control changed: the shown result and the "Saved as" note describe an earlier request, and a
        "never seen" warning may no longer hold."""
        if self._running:
            return
        self.saved.value = ""
        if self.code_box.layout.display != "none":
            self._show_code()
        if self.df is not None:
            stale = not self._describes_shown()
            if stale != self.result.stale:
                self.result.set_stale(stale)
                if stale:
                    self.message.value = self._note(STALE_NOTE)
                elif self.message.value == self._note(STALE_NOTE):
                    self.message.value = ""
        if self._warned_unseen:
            self._recheck_names()

    def _describes_shown(self) -> bool:
        """Whether the controls describe the request of the result shown (a control changed back, or a row
        added and removed again, leaves it current)."""
        try:
            return self.request == self._shown_request
        except ValueError:  # a control being filled in describes no request yet
            return False

    def _recheck_names(self) -> None:
        """Check the names again after a control changed: the warning names what is still unseen, or goes."""
        try:
            self._check_names(self.request)
        except UnseenNamesError as error:
            self._fail(error)
            return
        except ValueError:  # a control being filled in; Run will say what is missing
            pass
        self._warned_unseen = False
        self.error = None
        self.message.value = self._note(STALE_NOTE) if self.result.stale else ""

    @property
    def stale(self) -> bool:
        """Whether a control changed since the shown result was computed."""
        return self.result.stale

    # what subclasses provide ------------------------------------------------------------------------------

    def _fields(self) -> dict[str, Any]:  # pragma: no cover - each builder defines it
        raise NotImplementedError

    def _compute(self, request: Any) -> pd.DataFrame:  # pragma: no cover - each builder defines it
        raise NotImplementedError

    def _draw(self, frame: pd.DataFrame) -> Figure:  # pragma: no cover - each builder defines it
        raise NotImplementedError

    def _controls(self) -> list[widgets.Widget]:  # pragma: no cover - each builder defines it
        raise NotImplementedError

    # shared -----------------------------------------------------------------------------------------------

    @property
    def request(self) -> Any:
        """The request the controls describe (fields no control shows are kept from the initial values).

        Raises
        ------
        ValueError
            When a control holds something that is not a valid request (the message names it).
        """
        values = {
            **self.dates.values(),
            "interval": self.interval.value,
            **self.breakdown.values(),
            **self.filters.values(),
            "filter_test_accounts": self._test_accounts_value(),
            **self._fields(),
        }
        known = {item.name for item in fields(self.request_class)}
        return replace(self._initial, **{key: value for key, value in values.items() if key in known})

    def _test_accounts_value(self) -> bool | None:
        """True with the toggle on; off, left out (the API's default), unless the request said False."""
        if self.test_accounts.value:
            return True
        return False if self._initial.filter_test_accounts is False else None

    @property
    def widget(self) -> widgets.VBox:
        """The whole builder as one widget (what a notebook displays)."""
        if not hasattr(self, "_widget"):
            actions = widgets.HBox([self.run_button, self.busy])
            save = widgets.HBox([self.name, self.save_button, self.code_button, self.saved])
            controls = [*self._controls(), self.test_accounts]
            panels = [box for box, _ in self._panels]
            self._widget = widgets.VBox(
                [*controls, actions, self.message, self.result.box, *panels, save, self.code_box]
            )
        return self._widget

    @classmethod
    def from_insight(cls, client: Any, id_or_short_id: int | str) -> Builder:
        """A builder showing a saved insight's request, named as the insight (``Save`` then saves a copy).

        Raises
        ------
        ValueError
            When the insight is of another kind (a funnel opened with `TrendBuilder`, a retention, ...) or
            holds no legacy filters.

        Examples
        --------
        >>> builder = TrendBuilder.from_insight(client, "a1B2c3D4")  # doctest: +SKIP
        """
        frame = client.insight(id_or_short_id)
        filters = frame.loc[0, "filters"] if "filters" in frame.columns else None
        if not isinstance(filters, dict) or not filters:
            raise ValueError(f"insight {id_or_short_id} holds no filters a builder can show")
        request = request_from_filters(filters)
        if not isinstance(request, cls.request_class):
            other = builder_name(request)
            raise ValueError(f"insight {id_or_short_id} is a {filters.get('insight')} insight: open it with {other}")
        builder = cls(client, **{item.name: getattr(request, item.name) for item in fields(request)})
        name = frame.loc[0, "name"] if "name" in frame.columns else None
        builder.name.value = "" if pd.isna(name) else str(name)
        return builder

    def code(self) -> str:
        """The ``client.trend(...)`` or ``client.funnel(...)`` call for what the controls describe.

        Raises
        ------
        ValueError
            When a control holds something that is not a valid request.
        """
        return request_code(self.request)

    def toggle_code(self) -> None:
        """Show or hide the equivalent call under the builder (the "Copy as code" button)."""
        if self.code_box.layout.display == "none":
            self._show_code()
            self.code_box.layout.display = None
        else:
            self.code_box.layout.display = "none"

    def _check_names(self, request: Any) -> None:
        """Refuse events and properties the project never saw: PostHog would answer a chart of zeros."""
        unseen: list[str] = []
        events = self.catalog.seen_events()
        for item in map(entity_dict, request_entities(request)):
            name = item.get("id")
            if events is not None and item.get("type") != "actions" and name not in (None, "") and name not in events:
                unseen.append(f"event {name!r}")
        used = [(row.type.value, row.key.value.strip()) for row in self.filters.rows]
        breakdown, breakdown_type = getattr(request, "breakdown", None), getattr(request, "breakdown_type", None)
        if isinstance(breakdown, str) and breakdown_type in ("event", "person", None):
            used.append((breakdown_type or "event", breakdown))
        for kind, key in used:
            known = self.catalog.seen_properties(kind) if kind in ("event", "person") else None
            if known is not None and key and key not in known:
                unseen.append(f"{kind} property {key!r}")
        if unseen:
            names = ", ".join(dict.fromkeys(unseen))
            raise UnseenNamesError(
                f"never seen in this project: {names}. Check the spelling (the result would be zeros)"
            )

    def _show_code(self) -> None:
        try:
            text = self.code()
        except ValueError as error:
            self.code_box.value = self._note(f"Check the builder: {error}", "#b00020")
            return
        # <pre> is one of the tags MathJax skips; the class covers front ends that typeset it anyway
        self.code_box.value = f'<pre class="{NO_MATHJAX_CLASSES}">{html.escape(text)}</pre>'

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):  # a short text form instead of the nested VBox repr
            bundle = {**bundle, "text/plain": repr(self)}
        return bundle

    def __repr__(self) -> str:
        try:
            title = request_title({"request": self.request.to_dict()}) or "no series"
        except ValueError as error:
            title = f"incomplete: {error}"
        return f"<{type(self).__name__}: {title}>"

    @staticmethod
    def _note(text: str, colour: str = "#666") -> str:
        # escaped for HTML, and kept from MathJax, which would read "$pageview ... $browser" as a formula
        return f'<span class="{NO_MATHJAX_CLASSES}" style="color:{colour}">{html.escape(text)}</span>'

    def _clicked(self, action: Any) -> None:
        """A button's action: anything unexpected is shown as a message too, since a click has no caller
        to raise to (called from code, `run` and `save` raise what they do not expect)."""
        try:
            action()
        except Exception as error:  # the message is the only place a click can report to
            self.error = f"Unexpected error, please report it: {type(error).__name__}: {error}"
            self.message.value = self._note(self.error, "#b00020")

    def _fail(self, error: Exception) -> None:
        self.error = error_message(error)
        self.message.value = self._note(self.error, "#b00020")

    def run(self) -> pd.DataFrame | None:
        """Send the request, keep and show the frame and its plot; on an error show it and return None.

        Returns
        -------
        pandas.DataFrame or None
            The result frame (also `df`), or None when the request could not be built or the API refused
            it (`error` says why).
        """
        ticket, request = self._begin()
        if request is None:
            return None
        try:
            outcome: Any = self._work(request)
        except (ToolkitError, ValueError) as error:
            outcome = error
        except BaseException:
            self._busy.stop(ticket)
            raise
        return self._finish(ticket, request, outcome)

    def click_run(self) -> Any:
        """What the Run button does: in the page, the run goes on off the kernel's event loop (a new click
        supersedes it, see `run_in_background`); from code, as `run`."""
        if clicked_in_page() and running_loop() is not None:
            return self.run_in_background()
        return self.run()

    def run_in_background(self) -> asyncio.Future[pd.DataFrame | None] | pd.DataFrame | None:
        """Start a run whose API call and drawing happen in a worker thread; its result is shown when it comes,
        unless another run was started meanwhile (only the newest result is shown).

        Returns
        -------
        asyncio.Future or pandas.DataFrame or None
            Inside a running event loop, a future of what `run` returns (None for a superseded run);
            without one, `run`'s result.
        """
        loop = running_loop()
        if loop is None:
            return self.run()
        ticket, request = self._begin()
        done: asyncio.Future[pd.DataFrame | None] = loop.create_future()
        if request is None:
            done.set_result(None)
            return done
        work = loop.run_in_executor(None, self._work, request)

        def finish(future: asyncio.Future[Any]) -> None:
            error = future.exception()
            if error is not None and not isinstance(error, (ToolkitError, ValueError)):
                self._busy.stop(ticket)
                self._clicked(lambda: future.result())  # shown as an unexpected error
                done.set_result(None)
                return
            outcome = error if error is not None else future.result()
            done.set_result(self._finish(ticket, request, outcome, captured=False))

        work.add_done_callback(finish)
        return done

    def _begin(self) -> tuple[int, Any]:
        """Start run number ``ticket``: clear the messages and build the request (None after showing why not)."""
        ticket = self._tickets.issue()
        self.error = None
        self.message.value = ""
        self._warned_unseen = False
        self._busy.start(ticket)
        try:
            request = self.request
            self._check_names(request)
        except ValueError as error:
            self._busy.stop(ticket)
            self._fail(error)
            self._warned_unseen = isinstance(error, UnseenNamesError)
            return ticket, None
        return ticket, request

    def _work(self, request: Any) -> tuple[pd.DataFrame, Figure]:
        """The part of a run that touches no widget (it may run in a worker thread): the call and the plot."""
        frame = self._compute(request)
        return frame, settle_layout(self._draw(frame))

    def _finish(self, ticket: int, request: Any, outcome: Any, *, captured: bool = True) -> pd.DataFrame | None:
        """Show run ``ticket``'s frame and figure, or its error, unless a newer run superseded it."""
        self._busy.stop(ticket)
        if not self._tickets.is_latest(ticket):
            return None
        if isinstance(outcome, Exception):
            self._fail(outcome)
            return None
        frame, figure = outcome
        self._running = True
        try:
            self.df, self.figure = frame, figure
            self._shown_request = request
            self.result.show(frame, figure, captured=captured)
            for _box, on_result in self._panels:
                on_result(request, frame, figure)
            if not self._describes_shown():  # a control changed while the run was in flight
                self.result.set_stale(True)
                self.message.value = self._note(STALE_NOTE)
        finally:
            self._running = False
        return frame

    def add_panel(self, box: widgets.Widget, on_result: Callable[[Any, pd.DataFrame, Figure | None], None]) -> None:
        """Show ``box`` under the result and call ``on_result(request, frame, figure)`` after each run (the
        people panel, `toolkit.widgets.people.mount_people`, is one). Call it from ``__init__``."""
        self._panels.append((box, on_result))

    def save(self, name: str | None = None) -> str | None:
        """Save the current request as an insight named ``name`` (else the name field); return its short id.

        Returns
        -------
        str or None
            The new insight's short id (also `short_id`, and shown beside the button), or None on an error.
        """
        self.error = None
        title = (name if name is not None else self.name.value).strip() or None
        try:
            saved = self.client.create_insight(name=title, request=self.request)
        except (ToolkitError, ValueError) as error:
            self._fail(error)
            return None
        self.message.value = ""
        self.short_id = str(saved.loc[0, "short_id"])
        shown = html.escape(self.short_id)
        self.saved.value = f'<span class="{NO_MATHJAX_CLASSES}">Saved as <code>{shown}</code></span>'
        return self.short_id
