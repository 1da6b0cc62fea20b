"""Series and steps of calculation requests: `event` and `action`, and their translation to PostHog's
query-API nodes (``EventsNode``, ``ActionsNode``), shared by every request class."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import fields
from datetime import date, datetime
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "DateLike",
    "Entity",
    "RequestBase",
    "action",
    "as_entities",
    "as_names",
    "as_properties",
    "breakdown_filter_node",
    "date_range_node",
    "date_text",
    "drop_none",
    "entity_dict",
    "entity_node",
    "event",
    "ordered_entities",
    "split_entities",
]

Entity = str | int | dict[str, Any]
DateLike = str | date | datetime | pd.Timestamp | np.datetime64
"""A calculation's ``date_from`` / ``date_to``: text as the API reads it, or a date or a point in time."""


def as_entities(value: Any, name: str) -> list[Entity]:
    """Series or steps as a list: one name, action id or dict is one series (``events="$pageview"``, not
    the letters of ``$pageview``); a tuple, Series or array is listed in order.

    Examples
    --------
    >>> as_entities("$pageview", "events"), as_entities(("a", 3), "steps")
    (['$pageview'], ['a', 3])
    """
    if value is None:
        return []
    if isinstance(value, str | int | dict) and not isinstance(value, bool):
        return [value]
    if isinstance(value, Iterable):
        return [item.item() if isinstance(item, np.generic) else item for item in value]
    raise TypeError(f"{name} must be a list of event names, action ids or event()/action() dicts, not {value!r}")


def as_names(value: Any, name: str) -> list[str] | None:
    """A list of names where one name may be given alone (``exclude_events="$autocapture"``)."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable):
        return [str(item) for item in value]
    raise TypeError(f"{name} must be a list of names, not {value!r}")


def as_properties(value: Any) -> Any:
    """Property filters, where one filter dict may be given alone (``properties={"key": ..., "value": ...}``)."""
    if isinstance(value, dict) and "key" in value and "values" not in value:
        return [value]
    if isinstance(value, tuple):
        return list(value)
    return value


def date_text(value: Any, name: str) -> str | None:
    """A date bound as the API reads it: text is sent as it is; a `date` as ``YYYY-MM-DD``; a naive
    `datetime` / `pd.Timestamp` as a wall-clock time (the server reads it in the project's timezone, as it
    reads such text); an aware one with its offset (the server converts it). Midnight without a timezone
    is sent as its date, which both servers read the same way.

    Examples
    --------
    >>> from datetime import date
    >>> date_text(date(2026, 1, 5), "date_from"), date_text(pd.Timestamp("2026-01-05 10:30"), "date_to")
    ('2026-01-05', '2026-01-05T10:30:00')
    >>> date_text(pd.Timestamp("2026-01-05 10:30", tz="Europe/Paris"), "date_from")
    '2026-01-05T10:30:00+01:00'
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, np.datetime64):
        value = pd.Timestamp(value)
    if isinstance(value, datetime):  # pd.Timestamp included
        if value is pd.NaT:
            raise ValueError(f"{name} is NaT: give a date, or None for the server's default")
        moment = value.to_pydatetime(warn=False) if isinstance(value, pd.Timestamp) else value
        if moment.tzinfo is None and moment.time() == datetime.min.time():
            return moment.date().isoformat()
        return moment.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"{name} must be text (-7d, 2026-01-05), a date or a datetime, not {value!r}")


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


_ENTITY_LISTS = ("events", "steps")
_NAME_LISTS = ("include_event_types", "exclude_events", "path_groupings")


class RequestBase:
    """What every request class offers: ``to_dict``, ``to_json`` and ``from_filters``, and the forgiving
    reading of its fields: one series alone (``events="$pageview"``), dates as `date` / `datetime` /
    `pd.Timestamp`, one property filter alone.

    Examples
    --------
    >>> from datetime import date
    >>> from toolkit import TrendRequest
    >>> request = TrendRequest(events="$pageview", date_from=date(2026, 1, 1))
    >>> request.events, request.date_from
    (['$pageview'], '2026-01-01')
    """

    def __post_init__(self) -> None:
        for name in _ENTITY_LISTS:
            if hasattr(self, name):
                setattr(self, name, as_entities(getattr(self, name), name))
        for name in _NAME_LISTS:
            if hasattr(self, name):
                setattr(self, name, as_names(getattr(self, name), name))
        for name in ("date_from", "date_to"):
            if hasattr(self, name):
                setattr(self, name, date_text(getattr(self, name), name))
        if hasattr(self, "properties"):
            self.properties = as_properties(self.properties)

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
