"""Calculation requests as dataclasses: what a widget edits and what `Client.trend`/`Client.funnel` send.

``to_json()`` is exactly the body the legacy endpoint receives (so it can be pasted into curl), and
``to_query()`` is the equivalent node of PostHog's query API (``TrendsQuery``, ``FunnelsQuery``,
``RetentionQuery``, ``PathsQuery``), sent to ``/api/projects/:id/query/`` where the legacy endpoints are
gone. Fields left as ``None`` are left out, so the server's defaults apply.

Examples
--------
>>> TrendRequest(events=["$pageview"], date_from="-14d").to_json()
'{"insight": "TRENDS", "events": [{"id": "$pageview", "type": "events", "order": 0}], "date_from": "-14d"}'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = [
    "FunnelRequest",
    "PathsRequest",
    "RetentionRequest",
    "TrendRequest",
    "action",
    "event",
]

Entity = str | int | dict[str, Any]


def event(
    id: str | None,
    *,
    math: str | None = None,
    math_property: str | None = None,
    custom_name: str | None = None,
    properties: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An event series or step, e.g. ``event("$pageview", math="dau")``; ``id=None`` means all events.

    Examples
    --------
    >>> event("purchase", math="sum", math_property="amount")
    {'id': 'purchase', 'type': 'events', 'math': 'sum', 'math_property': 'amount'}
    """
    entity: dict[str, Any] = {"id": id, "type": "events"}
    for key, value in (("math", math), ("math_property", math_property), ("custom_name", custom_name)):
        if value is not None:
            entity[key] = value
    if properties is not None:
        entity["properties"] = properties
    return {**entity, **extra}


def action(id: int, **options: Any) -> dict[str, Any]:
    """An action series or step by action id; keyword options as for `event`.

    Examples
    --------
    >>> action(3, custom_name="Signed up")
    {'id': 3, 'type': 'actions', 'custom_name': 'Signed up'}
    """
    return {**event(None, **options), "id": id, "type": "actions"}


def _entity(value: Entity, default_type: str = "events") -> dict[str, Any]:
    if isinstance(value, dict):
        entity = dict(value)
        entity.setdefault("type", default_type)
        return entity
    if isinstance(value, int) and not isinstance(value, bool):
        return {"id": value, "type": "actions"}
    return {"id": value, "type": default_type}


def _ordered(entities: list[Entity]) -> list[dict[str, Any]]:
    out = []
    for index, value in enumerate(entities):
        entity = _entity(value)
        entity.setdefault("order", index)
        out.append(entity)
    return out


def _split(entities: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    body: dict[str, list[dict[str, Any]]] = {}
    events = [entity for entity in entities if entity["type"] != "actions"]
    actions = [entity for entity in entities if entity["type"] == "actions"]
    if events or not actions:
        body["events"] = events
    if actions:
        body["actions"] = actions
    return body


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


def _node(entity: dict[str, Any], *, with_math: bool = True) -> dict[str, Any]:
    """A legacy entity as a query-API ``EventsNode``/``ActionsNode``."""
    if entity["type"] == "actions":
        node: dict[str, Any] = {"kind": "ActionsNode", "id": entity["id"], "name": entity.get("name")}
    else:
        name = entity.get("name") or entity["id"] or "All events"
        node = {"kind": "EventsNode", "event": entity["id"], "name": name}
    node["custom_name"] = entity.get("custom_name")
    if with_math:
        node["math"] = entity.get("math")
        node["math_property"] = entity.get("math_property")
        node["math_group_type_index"] = entity.get("math_group_type_index")
    node["properties"] = entity.get("properties")
    kept = _drop_none(node)
    if node["kind"] == "EventsNode":
        kept["event"] = entity["id"]  # null is meaningful: all events
    return kept


def _date_range(date_from: str | None, date_to: str | None, explicit: bool | None) -> dict[str, Any] | None:
    date_range = _drop_none({"date_from": date_from, "date_to": date_to, "explicitDate": explicit})
    return date_range or None


def _breakdown_filter(request: Any) -> dict[str, Any] | None:
    breakdown = _drop_none(
        {
            "breakdown": request.breakdown,
            "breakdown_type": request.breakdown_type,
            "breakdown_limit": request.breakdown_limit,
        }
    )
    return breakdown or None


class _Serializable:
    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - each request defines it
        raise NotImplementedError

    @classmethod
    def from_filters(cls, filters: dict[str, Any]) -> Any:
        """Rebuild a request from a legacy body or a saved insight's ``filters``; unknown keys go to ``extra``.

        Examples
        --------
        >>> TrendRequest.from_filters({"insight": "TRENDS", "events": [{"id": "a", "order": 0}], "interval": "week"})
        TrendRequest(events=[{'id': 'a', 'order': 0}], date_from=None, date_to=None, interval='week', ...)
        """
        names = {item.name for item in fields(cls)} - {"extra"}
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        entities = sorted(
            [*filters.get("events", []), *filters.get("actions", [])], key=lambda entity: entity.get("order") or 0
        )
        for key, value in filters.items():
            if key in ("insight", "events", "actions", "funnel_window_interval_type"):
                continue
            (values if key in names else extra)[key] = value
        if "steps" in names:
            values["steps"] = entities
        elif "events" in names:
            values["events"] = entities
        if "funnel_window_interval_unit" in names and "funnel_window_interval_type" in filters:
            values.setdefault("funnel_window_interval_unit", str(filters["funnel_window_interval_type"]).lower())
        return cls(**values, extra=extra)

    def to_json(self) -> str:
        """The request body as JSON text, exactly as sent to the legacy endpoint."""
        return json.dumps(self.to_dict())


@dataclass
class TrendRequest(_Serializable):
    """A trend calculation (``insights/trend/``).

    Parameters
    ----------
    events : list
        Series: event names, `event` dicts, or action ids (int) / `action` dicts. ``order`` follows the list.
    date_from, date_to : str, optional
        Relative (``-7d``, ``-1mStart``, ``all``) or absolute (``2026-01-01``) dates; server default ``-7d`` to now.
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

    events: list[Entity] = field(default_factory=list)
    date_from: str | None = None
    date_to: str | None = None
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
        body: dict[str, Any] = {"insight": "TRENDS", **_split(_ordered(self.events))}
        body.update(
            _drop_none(
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
        compare = _drop_none({"compare": self.compare, "compare_to": self.compare_to})
        trends_filter = _drop_none(
            {"display": self.display, "formula": self.formula, "smoothingIntervals": self.smoothing_intervals}
        )
        return _drop_none(
            {
                "kind": "TrendsQuery",
                "series": [_node(entity) for entity in _ordered(self.events)],
                "dateRange": _date_range(self.date_from, self.date_to, self.explicit_date),
                "interval": self.interval,
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
                "breakdownFilter": _breakdown_filter(self),
                "compareFilter": compare or None,
                "trendsFilter": trends_filter or None,
            }
        )


def _exclusion(value: dict[str, Any] | tuple[Any, int, int]) -> dict[str, Any]:
    if isinstance(value, tuple):
        name, from_step, to_step = value
        value = {**_entity(name), "funnel_from_step": from_step, "funnel_to_step": to_step}
    return _entity(value)


@dataclass
class FunnelRequest(_Serializable):
    """A funnel calculation (``insights/funnel/``).

    Parameters
    ----------
    steps : list
        Steps in order: event names, `event` dicts, or action ids / `action` dicts.
    funnel_order_type : str, optional
        ``ordered`` (default), ``strict`` or ``unordered``.
    funnel_viz_type : str, optional
        ``steps`` (default), ``trends`` (conversion over time) or ``time_to_convert``.
    funnel_window_interval, funnel_window_interval_unit : optional
        The conversion window, e.g. ``14`` and ``day`` (``second``, ``minute``, ``hour``, ``day``, ``week``,
        ``month``). Sent as PostHog's ``funnel_window_interval_unit`` and as the spec's
        ``funnel_window_interval_type`` (upper case).
    exclusions : list, optional
        Events that remove a person between two steps: dicts ``{"id", "funnel_from_step",
        "funnel_to_step"}`` or tuples ``(event, from_step, to_step)`` (steps 0-based as in PostHog).
    funnel_from_step, funnel_to_step, bin_count : int, optional
        Step range (0-based) for trends and time to convert; histogram bins for time to convert.
    breakdown_attribution_type, breakdown_attribution_value : optional
        ``first_touch`` (default), ``last_touch``, ``all_events`` or ``step`` (with the step index).
    Other parameters as for `TrendRequest`.

    Examples
    --------
    >>> body = FunnelRequest(steps=["signup", "purchase"], funnel_window_interval=1,
    ...                      funnel_window_interval_unit="hour").to_dict()
    >>> body["funnel_window_interval_unit"], body["funnel_window_interval_type"]
    ('hour', 'HOUR')
    """

    steps: list[Entity] = field(default_factory=list)
    date_from: str | None = None
    date_to: str | None = None
    interval: str | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    breakdown: str | int | list[Any] | None = None
    breakdown_type: str | None = None
    breakdown_limit: int | None = None
    breakdown_attribution_type: str | None = None
    breakdown_attribution_value: int | None = None
    funnel_order_type: str | None = None
    funnel_viz_type: str | None = None
    funnel_window_interval: int | None = None
    funnel_window_interval_unit: str | None = None
    exclusions: list[Any] | None = None
    funnel_from_step: int | None = None
    funnel_to_step: int | None = None
    bin_count: int | None = None
    aggregation_group_type_index: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def viz_type(self) -> str:
        """The visualisation the response will hold: ``steps``, ``trends`` or ``time_to_convert``."""
        return (self.funnel_viz_type or "steps").lower()

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        unit = self.funnel_window_interval_unit
        body: dict[str, Any] = {"insight": "FUNNELS", **_split(_ordered(self.steps))}
        body.update(
            _drop_none(
                {
                    "date_from": self.date_from,
                    "date_to": self.date_to,
                    "interval": self.interval,
                    "properties": self.properties,
                    "filter_test_accounts": self.filter_test_accounts,
                    "breakdown": self.breakdown,
                    "breakdown_type": self.breakdown_type,
                    "breakdown_limit": self.breakdown_limit,
                    "breakdown_attribution_type": self.breakdown_attribution_type,
                    "breakdown_attribution_value": self.breakdown_attribution_value,
                    "funnel_order_type": self.funnel_order_type,
                    "funnel_viz_type": self.funnel_viz_type,
                    "funnel_window_interval": self.funnel_window_interval,
                    "funnel_window_interval_unit": unit.lower() if unit else None,
                    "funnel_window_interval_type": unit.upper() if unit else None,
                    "exclusions": [_exclusion(item) for item in self.exclusions] if self.exclusions else None,
                    "funnel_from_step": self.funnel_from_step,
                    "funnel_to_step": self.funnel_to_step,
                    "bin_count": self.bin_count,
                    "aggregation_group_type_index": self.aggregation_group_type_index,
                }
            )
        )
        return {**body, **self.extra}

    def to_query(self) -> dict[str, Any]:
        """The equivalent ``FunnelsQuery`` node of PostHog's query API.

        Examples
        --------
        >>> FunnelRequest(steps=["a", "b"], exclusions=[("x", 0, 1)]).to_query()["funnelsFilter"]["exclusions"]
        [{'kind': 'EventsNode', 'event': 'x', 'name': 'x', 'funnelFromStep': 0, 'funnelToStep': 1}]
        """
        exclusions = None
        if self.exclusions:
            exclusions = [
                {
                    **_node(item, with_math=False),
                    "funnelFromStep": item["funnel_from_step"],
                    "funnelToStep": item["funnel_to_step"],
                }
                for item in map(_exclusion, self.exclusions)
            ]
        unit = self.funnel_window_interval_unit
        funnels_filter = _drop_none(
            {
                "funnelOrderType": self.funnel_order_type,
                "funnelVizType": self.funnel_viz_type,
                "funnelWindowInterval": self.funnel_window_interval,
                "funnelWindowIntervalUnit": unit.lower() if unit else None,
                "exclusions": exclusions,
                "funnelFromStep": self.funnel_from_step,
                "funnelToStep": self.funnel_to_step,
                "binCount": self.bin_count,
                "breakdownAttributionType": self.breakdown_attribution_type,
                "breakdownAttributionValue": self.breakdown_attribution_value,
            }
        )
        return _drop_none(
            {
                "kind": "FunnelsQuery",
                "series": [_node(entity, with_math=False) for entity in _ordered(self.steps)],
                "dateRange": _date_range(self.date_from, self.date_to, None),
                "interval": self.interval,
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
                "breakdownFilter": _breakdown_filter(self),
                "funnelsFilter": funnels_filter or None,
                "aggregation_group_type_index": self.aggregation_group_type_index,
            }
        )


@dataclass
class RetentionRequest(_Serializable):
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

    Examples
    --------
    >>> RetentionRequest("signup", period="Week").to_dict()["target_entity"]
    {'id': 'signup', 'type': 'events'}
    """

    target_entity: Entity = "$pageview"
    returning_entity: Entity | None = None
    period: str | None = None
    total_intervals: int | None = None
    retention_type: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        body = _drop_none(
            {
                "insight": "RETENTION",
                "target_entity": _entity(self.target_entity),
                "returning_entity": _entity(self.returning_entity) if self.returning_entity is not None else None,
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
            value = _entity(entity)
            return _drop_none({"id": value["id"], "type": value["type"], "name": value.get("name") or value["id"]})

        retention_filter = _drop_none(
            {
                "targetEntity": target(self.target_entity),
                "returningEntity": target(self.returning_entity) if self.returning_entity is not None else None,
                "period": self.period,
                "totalIntervals": self.total_intervals,
                "retentionType": self.retention_type,
            }
        )
        return _drop_none(
            {
                "kind": "RetentionQuery",
                "retentionFilter": retention_filter,
                "dateRange": _date_range(self.date_from, self.date_to, None),
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
            }
        )


@dataclass
class PathsRequest(_Serializable):
    """A paths calculation (``insights/path/``).

    Parameters
    ----------
    include_event_types : list of str, optional
        ``$pageview`` (paths of ``$current_url``), ``$screen`` and/or ``custom_event`` (event names).
    start_point, end_point : str, optional
        Only paths starting or ending here.
    step_limit : int, optional
        Events per path (default 5).

    Examples
    --------
    >>> PathsRequest(include_event_types=["$pageview"], start_point="/home").to_query()["pathsFilter"]
    {'includeEventTypes': ['$pageview'], 'startPoint': '/home'}
    """

    include_event_types: list[str] | None = None
    start_point: str | None = None
    end_point: str | None = None
    step_limit: int | None = None
    exclude_events: list[str] | None = None
    path_groupings: list[str] | None = None
    edge_limit: int | None = None
    date_from: str | None = None
    date_to: str | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        body = _drop_none(
            {
                "insight": "PATHS",
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
        paths_filter = _drop_none(
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
        return _drop_none(
            {
                "kind": "PathsQuery",
                "pathsFilter": paths_filter,
                "dateRange": _date_range(self.date_from, self.date_to, None),
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
            }
        )
