"""Series and steps of calculation requests: `event` and `action`, and their translation to PostHog's
query-API nodes (``EventsNode``, ``ActionsNode``), shared by every request class."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

__all__ = [
    "Entity",
    "RequestBase",
    "action",
    "breakdown_filter_node",
    "date_range_node",
    "drop_none",
    "entity_dict",
    "entity_node",
    "event",
    "ordered_entities",
    "split_entities",
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


def entity_dict(value: Entity, default_type: str = "events") -> dict[str, Any]:
    """A series given as a name, an action id or a dict, as a legacy entity dict with a ``type``."""
    if isinstance(value, dict):
        entity = dict(value)
        entity.setdefault("type", default_type)
        return entity
    if isinstance(value, int) and not isinstance(value, bool):
        return {"id": value, "type": "actions"}
    return {"id": value, "type": default_type}


def ordered_entities(entities: list[Entity]) -> list[dict[str, Any]]:
    """Entity dicts with ``order`` set from their position (an explicit ``order`` is kept)."""
    out = []
    for index, value in enumerate(entities):
        entity = entity_dict(value)
        entity.setdefault("order", index)
        out.append(entity)
    return out


def split_entities(entities: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The legacy body's ``events`` and ``actions`` lists (``events`` always present when nothing is given)."""
    body: dict[str, list[dict[str, Any]]] = {}
    events = [entity for entity in entities if entity["type"] != "actions"]
    actions = [entity for entity in entities if entity["type"] == "actions"]
    if events or not actions:
        body["events"] = events
    if actions:
        body["actions"] = actions
    return body


def drop_none(values: dict[str, Any]) -> dict[str, Any]:
    """The dict without its ``None`` values, so server defaults apply."""
    return {key: value for key, value in values.items() if value is not None}


def entity_node(entity: dict[str, Any], *, with_math: bool = True) -> dict[str, Any]:
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
    kept = drop_none(node)
    if node["kind"] == "EventsNode":
        kept["event"] = entity["id"]  # null is meaningful: all events
    return kept


def date_range_node(date_from: str | None, date_to: str | None, explicit: bool | None) -> dict[str, Any] | None:
    """The query API's ``dateRange``, or None when no bound is given."""
    date_range = drop_none({"date_from": date_from, "date_to": date_to, "explicitDate": explicit})
    return date_range or None


def breakdown_filter_node(request: Any) -> dict[str, Any] | None:
    """The query API's ``breakdownFilter`` of a request, or None without a breakdown."""
    breakdown = drop_none(
        {
            "breakdown": request.breakdown,
            "breakdown_type": request.breakdown_type,
            "breakdown_limit": request.breakdown_limit,
        }
    )
    return breakdown or None


class RequestBase:
    """What every request class offers: ``to_dict``, ``to_json`` and ``from_filters``."""

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - each request defines it
        raise NotImplementedError

    @classmethod
    def from_filters(cls, filters: dict[str, Any]) -> Any:
        """Rebuild a request from a legacy body or a saved insight's ``filters``; unknown keys go to ``extra``.

        Examples
        --------
        >>> from toolkit import TrendRequest
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
