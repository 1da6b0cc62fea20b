"""Calculation requests as dataclasses: what a widget edits and what `Client.trend`/`Client.funnel` send.

``to_json()`` is exactly the body the legacy endpoint receives (so it can be pasted into curl), and
``to_query()`` is the equivalent node of PostHog's query API (``TrendsQuery``, ``FunnelsQuery``,
``RetentionQuery``, ``PathsQuery``, ``StickinessQuery``, ``LifecycleQuery``), sent to ``/api/projects/:id/query/``
where the legacy endpoints are gone. Fields left as ``None`` are left out, so the server's defaults apply.
`FunnelRequest`, `StickinessRequest` and `LifecycleRequest` live in modules of their own
(`toolkit.funnel_request`, `toolkit.stickiness_request`, `toolkit.lifecycle_request`) and are importable
from here too.

Examples
--------
>>> TrendRequest(events=["$pageview"], date_from="-14d").to_json()
'{"insight": "TRENDS", "events": [{"id": "$pageview", "type": "events", "order": 0}], "date_from": "-14d"}'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entities import (
    DateLike,
    Entity,
    RequestBase,
    action,
    breakdown_filter_node,
    date_range_node,
    drop_none,
    entity_dict,
    entity_node,
    event,
    ordered_entities,
    split_entities,
)
from .funnel_request import FunnelRequest
from .lifecycle_request import LifecycleRequest
from .stickiness_request import StickinessRequest

__all__ = [
    "FunnelRequest",
    "LifecycleRequest",
    "PathsRequest",
    "RetentionRequest",
    "StickinessRequest",
    "TrendRequest",
    "action",
    "event",
]


@dataclass
class TrendRequest(RequestBase):
    """A trend calculation (``insights/trend/``).

    Parameters
    ----------
    events : list
        Series: event names, `event` dicts, or action ids (int) / `action` dicts. ``order`` follows the list.
        One series may be given alone (``events="$pageview"``); a tuple, Series or array is read as a list.
    date_from, date_to : str, date, datetime or pandas.Timestamp, optional
        Relative (``-7d``, ``-1mStart``, ``all``) or absolute (``2026-01-01``) dates; server default ``-7d`` to now.
        A naive datetime is a wall-clock time of the project's timezone (as such text is); an aware one is
        converted to it. See `toolkit.entities.date_text`.
    interval : str, optional
        ``hour``, ``day`` (default), ``week`` or ``month``.
    properties : list or dict, optional
        Property filters (``[{"key", "value", "operator", "type"}]`` or an AND/OR group).
    breakdown, breakdown_type, breakdown_limit : optional
        Break down by a property (``breakdown_type`` event, person, group, cohort, session, hogql).
    compare : bool, optional
        Add the previous period's series (``compare_label`` previous).
    display : str, optional
        ``ActionsLineGraph`` (default), ``ActionsLineGraphCumulative``, ``ActionsBar``, or an aggregated
        display: ``ActionsTable``, ``ActionsPie``, ``ActionsBarValue``, ``BoldNumber``, ``WorldMap``.
    formula : str, optional
        Combine the series, e.g. ``"A / B"``.
    extra : dict
        Further body fields sent as they are.

    Examples
    --------
    >>> TrendRequest(events=[event("$pageview", math="dau")], interval="week").to_dict()["interval"]
    'week'
    """

    events: list[Entity] | Entity = field(default_factory=list)
    date_from: DateLike | None = None
    date_to: DateLike | None = None
    interval: str | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    breakdown: str | int | list[Any] | None = None
    breakdown_type: str | None = None
    breakdown_limit: int | None = None
    compare: bool | None = None
    compare_to: str | None = None
    display: str | None = None
    formula: str | None = None
    smoothing_intervals: int | None = None
    explicit_date: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        body: dict[str, Any] = {"insight": "TRENDS", **split_entities(ordered_entities(self.events))}
        body.update(
            drop_none(
                {
                    "date_from": self.date_from,
                    "date_to": self.date_to,
                    "explicit_date": self.explicit_date,
                    "interval": self.interval,
                    "properties": self.properties,
                    "filter_test_accounts": self.filter_test_accounts,
                    "breakdown": self.breakdown,
                    "breakdown_type": self.breakdown_type,
                    "breakdown_limit": self.breakdown_limit,
                    "compare": self.compare,
                    "compare_to": self.compare_to,
                    "display": self.display,
                    "formula": self.formula,
                    "smoothing_intervals": self.smoothing_intervals,
                }
            )
        )
        return {**body, **self.extra}

    def to_query(self) -> dict[str, Any]:
        """The equivalent ``TrendsQuery`` node of PostHog's query API.

        Examples
        --------
        >>> TrendRequest(events=["$pageview"], formula="A*2").to_query()["trendsFilter"]
        {'formula': 'A*2'}
        """
        compare = drop_none({"compare": self.compare, "compare_to": self.compare_to})
        trends_filter = drop_none(
            {"display": self.display, "formula": self.formula, "smoothingIntervals": self.smoothing_intervals}
        )
        return drop_none(
            {
                "kind": "TrendsQuery",
                "series": [entity_node(entity) for entity in ordered_entities(self.events)],
                "dateRange": date_range_node(self.date_from, self.date_to, self.explicit_date),
                "interval": self.interval,
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
                "breakdownFilter": breakdown_filter_node(self),
                "compareFilter": compare or None,
                "trendsFilter": trends_filter or None,
            }
        )


@dataclass
class RetentionRequest(RequestBase):
    """A retention calculation (``insights/retention/``).

    Parameters
    ----------
    target_entity : str or dict
        The event (or action) that puts a person in a cohort; default ``$pageview``.
    returning_entity : str or dict, optional
        The event that counts as coming back; the target by default.
    period : str, optional
        ``Hour``, ``Day`` (default), ``Week`` or ``Month``.
    total_intervals : int, optional
        Number of cohorts and periods (default 11).
    retention_type : str, optional
        ``retention_recurring`` (default) or ``retention_first_time``.
    breakdown, breakdown_type, breakdown_limit : optional
        One table per value of an event (default), person or group property, or per cohort (a list of ids,
        ``breakdown_type="cohort"``); each cohort is filed under its start event's value.

    Examples
    --------
    >>> RetentionRequest("signup", period="Week").to_dict()["target_entity"]
    {'id': 'signup', 'type': 'events'}
    >>> RetentionRequest(breakdown="$browser", breakdown_limit=3).to_query()["breakdownFilter"]
    {'breakdown': '$browser', 'breakdown_limit': 3}
    """

    target_entity: Entity = "$pageview"
    returning_entity: Entity | None = None
    period: str | None = None
    total_intervals: int | None = None
    retention_type: str | None = None
    date_from: DateLike | None = None
    date_to: DateLike | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    breakdown: str | int | list[str | int] | None = None
    breakdown_type: str | None = None
    breakdown_limit: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        body = drop_none(
            {
                "insight": "RETENTION",
                "breakdown": self.breakdown,
                "breakdown_type": self.breakdown_type,
                "breakdown_limit": self.breakdown_limit,
                "target_entity": entity_dict(self.target_entity),
                "returning_entity": entity_dict(self.returning_entity) if self.returning_entity is not None else None,
                "period": self.period,
                "total_intervals": self.total_intervals,
                "retention_type": self.retention_type,
                "date_from": self.date_from,
                "date_to": self.date_to,
                "properties": self.properties,
                "filter_test_accounts": self.filter_test_accounts,
            }
        )
        return {**body, **self.extra}

    def to_query(self) -> dict[str, Any]:
        """The equivalent ``RetentionQuery`` node of PostHog's query API."""

        def target(entity: Entity) -> dict[str, Any]:
            value = entity_dict(entity)
            return drop_none({"id": value["id"], "type": value["type"], "name": value.get("name") or value["id"]})

        retention_filter = drop_none(
            {
                "targetEntity": target(self.target_entity),
                "returningEntity": target(self.returning_entity) if self.returning_entity is not None else None,
                "period": self.period,
                "totalIntervals": self.total_intervals,
                "retentionType": self.retention_type,
            }
        )
        return drop_none(
            {
                "kind": "RetentionQuery",
                "retentionFilter": retention_filter,
                "breakdownFilter": breakdown_filter_node(self),
                "dateRange": date_range_node(self.date_from, self.date_to, None),
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
            }
        )


@dataclass
class PathsRequest(RequestBase):
    """A paths calculation (``insights/path/``).

    Parameters
    ----------
    include_event_types : list of str, optional
        ``$pageview`` (paths of ``$current_url``), ``$screen`` and/or ``custom_event`` (event names); one
        may be given alone.
    start_point, end_point : str, optional
        Only paths starting or ending here.
    step_limit : int, optional
        Events per path (default 5).
    funnel, funnel_step, funnel_paths : optional
        Only the paths of a funnel step's people (a `FunnelRequest`; ``funnel_step`` k: reached step k, -k:
        dropped before it), ``after`` (default), ``before`` or ``between`` the step (or PostHog's
        ``funnel_path_after_step``, ...).

    Examples
    --------
    >>> PathsRequest(include_event_types=["$pageview"], start_point="/home").to_query()["pathsFilter"]
    {'includeEventTypes': ['$pageview'], 'startPoint': '/home'}
    >>> PathsRequest(funnel=FunnelRequest(steps=["signup", "pay"]), funnel_step=-2).to_dict()["funnel_paths"]
    'funnel_path_after_step'
    """

    include_event_types: list[str] | str | None = None
    start_point: str | None = None
    end_point: str | None = None
    step_limit: int | None = None
    exclude_events: list[str] | str | None = None
    path_groupings: list[str] | str | None = None
    edge_limit: int | None = None
    date_from: DateLike | None = None
    date_to: DateLike | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    funnel: FunnelRequest | None = None
    funnel_step: int | None = None
    funnel_paths: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_filters(cls, filters: dict[str, Any]) -> PathsRequest:
        """Rebuild a paths request from a legacy body or a saved insight's ``filters``, its funnel
        (``funnel_filter``) as a `FunnelRequest`; unknown keys go to ``extra``.

        A ``funnel_step`` inside ``funnel_filter`` (where PostHog's legacy front end puts it) is read as the
        paths' ``funnel_step``.

        Examples
        --------
        >>> request = PathsRequest.from_filters({"insight": "PATHS", "funnel_paths": "funnel_path_before_step",
        ...     "funnel_filter": {"insight": "FUNNELS", "events": [{"id": "a"}, {"id": "b"}], "funnel_step": 2}})
        >>> [step["id"] for step in request.funnel.steps], request.funnel_step, request.funnel_paths
        (['a', 'b'], 2, 'funnel_path_before_step')
        """
        rest = dict(filters)
        funnel_filter = rest.pop("funnel_filter", None)
        if not isinstance(funnel_filter, dict) or not funnel_filter:
            return super().from_filters(filters)
        inner = dict(funnel_filter)
        inner_step = inner.pop("funnel_step", None)
        request = super().from_filters(rest)
        request.funnel = FunnelRequest.from_filters(inner)
        if request.funnel_step is None:
            request.funnel_step = inner_step
        return request

    @property
    def funnel_path_type(self) -> str | None:
        """PostHog's name of the funnel restriction (None without a funnel)."""
        if self.funnel is None:
            return None
        kind = self.funnel_paths or "after"
        return (
            kind
            if kind.startswith("funnel_path_")
            else f"funnel_path_{kind}_{'steps' if kind == 'between' else 'step'}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        body = drop_none(
            {
                "insight": "PATHS",
                "funnel_paths": self.funnel_path_type,
                "funnel_filter": self.funnel.to_dict() if self.funnel is not None else None,
                "funnel_step": self.funnel_step if self.funnel is not None else None,
                "include_event_types": self.include_event_types,
                "start_point": self.start_point,
                "end_point": self.end_point,
                "step_limit": self.step_limit,
                "exclude_events": self.exclude_events,
                "path_groupings": self.path_groupings,
                "edge_limit": self.edge_limit,
                "date_from": self.date_from,
                "date_to": self.date_to,
                "properties": self.properties,
                "filter_test_accounts": self.filter_test_accounts,
            }
        )
        return {**body, **self.extra}

    def to_query(self) -> dict[str, Any]:
        """The equivalent ``PathsQuery`` node of PostHog's query API."""
        paths_filter = drop_none(
            {
                "includeEventTypes": self.include_event_types,
                "startPoint": self.start_point,
                "endPoint": self.end_point,
                "stepLimit": self.step_limit,
                "excludeEvents": self.exclude_events,
                "pathGroupings": self.path_groupings,
                "edgeLimit": self.edge_limit,
            }
        )
        return drop_none(
            {
                "kind": "PathsQuery",
                "pathsFilter": paths_filter,
                "funnelPathsFilter": drop_none(
                    {
                        "funnelPathType": self.funnel_path_type,
                        "funnelStep": self.funnel_step,
                        "funnelSource": self.funnel.to_query(),
                    }
                )
                if self.funnel is not None
                else None,
                "dateRange": date_range_node(self.date_from, self.date_to, None),
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
            }
        )
