"""Calculations: trend, funnel, retention, paths and funnel people (stickiness and lifecycle are in
`toolkit.engagement`).

Each first asks the legacy endpoint (``insights/trend/``, ...). Where it answers 404 (PostHog removed
these endpoints; the local backend has them) or refuses it as legacy, the equivalent query node is sent
to ``/api/projects/:id/query/`` and the answer is turned into the same frame. The client then remembers
that the legacy endpoint is gone and goes straight to the query API.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pandas as pd

from .actors_query import actor_pages
from .errors import APIError, NotFoundError, PermissionDeniedError, ToolkitError
from .frames import (
    funnel_frame,
    funnel_trends_frame,
    paths_frame,
    persons_frame,
    retention_frame,
    time_to_convert_frame,
    trend_frame,
)
from .frames._columns import shared
from .frames.results import response_results
from .insight_requests import FunnelRequest, PathsRequest, RetentionRequest, TrendRequest
from .transport import Transport
from .unseen_names import Definitions, needed_kinds, warn_unseen_names

__all__ = ["CalculationsMixin", "QUERY_POLL_INTERVAL", "QUERY_POLL_TIMEOUT", "keep_request"]

QUERY_POLL_INTERVAL = 0.5
QUERY_POLL_TIMEOUT = 300.0


def _legacy_gone(error: APIError) -> bool:
    if isinstance(error, NotFoundError):
        # "Project not found." is about the project, not the endpoint: the query API would say the same
        return "project" not in (error.detail or "").lower()
    return isinstance(error, PermissionDeniedError) and "legacy" in (error.detail or "").lower()


class CalculationsMixin(Transport):
    """The calculation functions of `toolkit.Client`."""

    _legacy_missing: set[str]
    check_names: bool

    def _definitions(self) -> Definitions:
        """The project's definitions, kept by this client for a short time (see `toolkit.unseen_names`)."""
        kept = self.__dict__.get("_kept_definitions")
        if kept is None:
            kept = Definitions(
                lambda path, params: self.request("GET", path, params=params),
                events_path=self.project_path("event_definitions/"),
                properties_path=self.project_path("property_definitions/"),
            )
            self.__dict__["_kept_definitions"] = kept
        return kept

    def _warn_unseen(self, request: Any) -> None:
        """Warn about each name of ``request`` the project never saw (`toolkit.InsightWarning`)."""
        if not self.__dict__.get("check_names", True):
            return
        body = request.to_dict()
        kinds = needed_kinds(body)
        if kinds:
            # stack: the user's call -> trend/funnel/... -> here -> warn_unseen_names
            warn_unseen_names(body, self._definitions().known(kinds), stacklevel=3)

    def calculate(self, endpoint: str, request: Any) -> dict[str, Any]:
        """Run a request object and return the raw response, falling back to the query API.

        Parameters
        ----------
        endpoint : str
            ``trend``, ``funnel``, ``retention`` or ``path``.
        request : TrendRequest, FunnelRequest, RetentionRequest or PathsRequest

        Returns
        -------
        dict
            The decoded response; ``response["_source"]`` is ``"legacy"`` or ``"query"``.

        Examples
        --------
        >>> client.calculate("trend", TrendRequest(events=["$pageview"]))["timezone"]  # doctest: +SKIP
        'UTC'
        """
        missing = self.__dict__.setdefault("_legacy_missing", set())
        if endpoint not in missing:
            try:
                response = self.request("POST", self.project_path(f"insights/{endpoint}/"), data=request.to_json())
                return {**(response or {}), "_source": "legacy"}
            except APIError as error:
                if not _legacy_gone(error):
                    raise
                missing.add(endpoint)
        return {**self.run_query(request.to_query()), "_source": "query"}

    def run_query(self, query: dict[str, Any], *, refresh: str = "blocking") -> dict[str, Any]:
        """Send a query node to ``/api/projects/:id/query/`` and wait for its results.

        An answer still running in the background (``query_status`` not complete) is polled at
        ``/query/<id>/`` until it completes.

        Examples
        --------
        >>> node = {"kind": "TrendsQuery", "series": [{"kind": "EventsNode", "event": "$pageview"}]}
        >>> client.run_query(node)["results"]  # doctest: +SKIP
        """
        response = self.request("POST", self.project_path("query/"), json={"query": query, "refresh": refresh}) or {}
        deadline = time.monotonic() + QUERY_POLL_TIMEOUT
        while "results" not in response and "result" not in response:
            status = response.get("query_status") or {}
            if status.get("complete"):
                if status.get("error"):
                    raise ToolkitError(f"query failed: {status.get('error_message')}")
                return {**response, "results": status.get("results")}
            if not status.get("id") or time.monotonic() > deadline:
                raise ToolkitError(f"the query API answered without results: {sorted(response)}")
            time.sleep(QUERY_POLL_INTERVAL)
            response = self.request("GET", self.project_path(f"query/{status['id']}/")) or {}
            if "complete" in response and "query_status" not in response:
                response = {"query_status": response}
        return response

    def _every_page(self, response: dict[str, Any]) -> dict[str, Any]:
        """``response`` with the series of every following page of breakdown values (its ``next`` links)."""
        series = list(response_results(response) or [])
        next_url = response.get("next")
        while next_url:
            page = self.request("GET", next_url) or {}
            series.extend(response_results(page) or [])
            next_url = page.get("next")
        response = {**response, "result": series, "next": None}
        response.pop("results", None)
        return response

    def trend(
        self,
        request: TrendRequest | None = None,
        /,
        *,
        wide: bool = False,
        all_breakdowns: bool = False,
        **fields: Any,
    ) -> pd.DataFrame:
        """Compute a trend.

        Parameters
        ----------
        request : TrendRequest, optional
            A prepared request; or give its fields as keywords (``events=[...]``, ``interval=...``, ...).
        wide : bool
            One column per series with a DatetimeIndex instead of the tidy frame.
        all_breakdowns : bool
            Follow the response's ``next`` link to fetch every page of breakdown values (by default only the
            first ``breakdown_limit`` values come back, and ``attrs["next"]`` says whether there are more).
        **fields
            `TrendRequest` fields.

        Returns
        -------
        pandas.DataFrame
            Tidy: ``date`` (datetime64[ns, <project tz>]), ``series``, ``breakdown_value`` (with a breakdown),
            ``compare_label`` (with compare), ``value`` (Int64 for counts, float64 for property maths and
            formulas); see `toolkit.frames.trend_frame`. ``attrs`` holds the response metadata and
            ``attrs["request"]`` the request body.

        Examples
        --------
        >>> client.trend(events=[event("$pageview", math="dau")], date_from="-30d", wide=True)  # doctest: +SKIP
        """
        request = request if request is not None else TrendRequest(**fields)
        response = self.calculate("trend", request)
        self._warn_unseen(request)
        if all_breakdowns:
            response = self._every_page(response)
        frame = trend_frame(response, wide=wide)
        keep_request(frame, request, response)
        return frame

    def funnel(self, request: FunnelRequest | None = None, /, **fields: Any) -> pd.DataFrame:
        """Compute a funnel.

        Parameters
        ----------
        request : FunnelRequest, optional
            A prepared request; or give its fields as keywords (``steps=[...]``, ``funnel_viz_type=...``).
        **fields
            `FunnelRequest` fields.

        Returns
        -------
        pandas.DataFrame
            For ``steps``: one row per step (and breakdown value), see `toolkit.frames.funnel_frame`; for
            ``trends``: `toolkit.frames.funnel_trends_frame`; for ``time_to_convert``:
            `toolkit.frames.time_to_convert_frame`.

        Examples
        --------
        >>> client.funnel(steps=["signup", "purchase"], funnel_window_interval=7)  # doctest: +SKIP
        """
        request = request if request is not None else FunnelRequest(**fields)
        response = self.calculate("funnel", request)
        self._warn_unseen(request)
        parse = {"trends": funnel_trends_frame, "time_to_convert": time_to_convert_frame}.get(
            request.viz_type, funnel_frame
        )
        frame = parse(response)
        frame.attrs["request"] = shared(request.to_dict())
        return frame

    def retention(self, request: RetentionRequest | None = None, /, **fields: Any) -> pd.DataFrame:
        """Compute a retention table.

        Returns
        -------
        pandas.DataFrame
            ``cohort_date``, ``cohort``, ``breakdown_value``, ``period``, ``count``, ``retention_rate``; see
            `toolkit.frames.retention_frame`.

        Examples
        --------
        >>> client.retention(target_entity="signup", period="Week").pivot(  # doctest: +SKIP
        ...     index="cohort_date", columns="period", values="retention_rate")
        """
        request = request if request is not None else RetentionRequest(**fields)
        frame = retention_frame(self.calculate("retention", request))
        self._warn_unseen(request)
        frame.attrs["request"] = shared(request.to_dict())
        return frame

    def paths(self, request: PathsRequest | None = None, /, **fields: Any) -> pd.DataFrame:
        """Compute user paths (edges between consecutive pages or events).

        Returns
        -------
        pandas.DataFrame
            ``step``, ``source``, ``target``, ``source_name``, ``target_name``, ``value``,
            ``average_conversion_time``; see `toolkit.frames.paths_frame`.

        Examples
        --------
        >>> client.paths(include_event_types=["$pageview"], start_point="/home")  # doctest: +SKIP
        """
        request = request if request is not None else PathsRequest(**fields)
        frame = paths_frame(self.calculate("path", request))
        self._warn_unseen(request)
        frame.attrs["request"] = shared(request.to_dict())
        return frame

    def funnel_people(
        self,
        request: FunnelRequest | None = None,
        /,
        *,
        step: int,
        dropped: bool = False,
        breakdown_value: Any = None,
        limit: int | None = None,
        **fields: Any,
    ) -> pd.DataFrame:
        """The persons who reached a funnel step, or who dropped off before it.

        Parameters
        ----------
        request : FunnelRequest, optional
            The funnel (or its fields as keywords).
        step : int
            1-based step, as in `funnel`'s ``step`` column.
        dropped : bool
            False: persons who reached ``step``; True: persons who reached the step before it but not it.
        breakdown_value : str or list, optional
            With a breakdown, the value whose persons to list, as `funnel`'s ``breakdown_value`` column shows
            it (``"Chrome"``; ``"Chrome::Mac OS X"`` or ``["Chrome", "Mac OS X"]`` for a list breakdown).
            A value the funnel does not show is a `ValidationError` naming ``funnel_step_breakdown``.
        limit : int, optional
            At most this many persons.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PERSON_COLUMNS`.

        Examples
        --------
        >>> client.funnel_people(steps=["signup", "purchase"], step=2, dropped=True)  # doctest: +SKIP
        """
        request = request if request is not None else FunnelRequest(**fields)
        if step < 1 or step > len(request.steps) or (dropped and step == 1):
            raise ValueError(f"step must be between {2 if dropped else 1} and {len(request.steps)}")
        response = self.calculate("funnel", request)
        if response["_source"] == "legacy":
            url = _people_url(response_results(response) or [], step, dropped, breakdown_value)
            if url:
                return persons_frame(_people(self.paginate(url, limit=limit), limit))
        source = {
            "kind": "FunnelsActorsQuery",
            "source": request.to_query(),
            "funnelStep": -step if dropped else step,
            **({"funnelStepBreakdown": breakdown_value} if breakdown_value is not None else {}),
        }
        return persons_frame(_people(actor_pages(self.run_query, source, page_size=None), limit))


def keep_request(frame: pd.DataFrame, request: Any, response: dict[str, Any]) -> None:
    """Record the request body in ``frame.attrs["request"]`` and, where the query API answered, the node it was
    sent in ``attrs["query"]`` (`toolkit.Client.people` asks for a point's people over it)."""
    frame.attrs["request"] = shared(request.to_dict())
    if response.get("_source") == "query":
        frame.attrs["query"] = request.to_query()


def _label(value: Any) -> str:
    """A breakdown value as the funnel frame's ``breakdown_value`` column shows it."""
    return "::".join(map(str, value)) if isinstance(value, list) else str(value)


def _step_breakdown(value: Any, shown: Any) -> str:
    """``funnel_step_breakdown`` for ``value`` (a frame label or the value itself), shaped like the server's ``shown``
    values: a list as JSON, a text as it is."""
    if isinstance(shown, list) and not isinstance(value, list):
        value = str(value).split("::")
    if isinstance(value, str) and value and not value.startswith(("[", "{", '"')):
        return value
    return json.dumps(value)


def _with_breakdown(url: str, value: str | None) -> str:
    """``url`` with its ``funnel_step_breakdown`` replaced by ``value`` (removed when None)."""
    parts = urlsplit(url)
    query = [(key, item) for key, item in parse_qsl(parts.query, keep_blank_values=True)]
    query = [(key, item) for key, item in query if key != "funnel_step_breakdown"]
    if value is not None:
        query.append(("funnel_step_breakdown", value))
    return urlunsplit(parts._replace(query=urlencode(query)))


def _people_url(result: list[Any], step: int, dropped: bool, breakdown_value: Any) -> str | None:
    """The step's people URL under ``breakdown_value``. Without one, a broken-down funnel's URL lists everyone
    counted under any value; for a value the funnel does not show, the server is asked all the same, so that it
    names what is wrong."""
    groups = [group for group in (result if result and isinstance(result[0], list) else [result]) if group]
    key = "dropped_people_url" if dropped else "converted_people_url"

    def step_url(group: list[Any]) -> str | None:
        return next((item.get(key) for item in group if (item.get("order") or 0) + 1 == step), None)

    if not groups:
        return None
    shown = groups[0][0].get("breakdown_value")
    if shown is None:
        return step_url(groups[0])
    if breakdown_value is None:
        url = step_url(groups[0])
        return _with_breakdown(url, None) if url else None
    for group in groups:
        if _label(group[0].get("breakdown_value")) == _label(breakdown_value):
            return step_url(group)
    url = step_url(groups[0])
    return _with_breakdown(url, _step_breakdown(breakdown_value, shown)) if url else None


def _people(items: Any, limit: int | None) -> list[dict[str, Any]]:
    """Persons from a people page: items are persons, or ``{"people": [...]}`` groups (PostHog's shape)."""
    persons: list[dict[str, Any]] = []
    for item in items:
        persons.extend(item["people"] if isinstance(item, dict) and "people" in item else [item])
        if limit is not None and len(persons) >= limit:
            return persons[:limit]
    return persons
