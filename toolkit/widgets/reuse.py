"""Taking a builder's work elsewhere and back: its request as code, and a saved insight as a request.

`request_code` writes the ``client.trend(...)`` / ``client.funnel(...)`` / ``client.retention(...)`` ... call
that computes what the builder shows, with only the fields that differ from the defaults.
`request_from_filters` reads a saved insight's legacy ``filters`` back into the request of its kind (what
`Builder.from_insight` opens), and `builder_name` says which builder edits a request.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from pprint import pformat
from typing import Any

from ..entities import Entity
from ..insight_requests import (
    FunnelRequest,
    LifecycleRequest,
    PathsRequest,
    RetentionRequest,
    StickinessRequest,
    TrendRequest,
)

__all__ = ["KINDS", "builder_name", "request_code", "request_entities", "request_from_filters"]

KINDS: dict[str, tuple[type, str, str]] = {
    "TRENDS": (TrendRequest, "trend", "TrendBuilder"),
    "FUNNELS": (FunnelRequest, "funnel", "FunnelBuilder"),
    "RETENTION": (RetentionRequest, "retention", "RetentionBuilder"),
    "PATHS": (PathsRequest, "paths", "PathsBuilder"),
    "STICKINESS": (StickinessRequest, "stickiness", "StickinessBuilder"),
    "LIFECYCLE": (LifecycleRequest, "lifecycle", "LifecycleBuilder"),
}
"""A saved insight's kind -> (its request class, the client call, the builder that edits it)."""

_CALLS = {request_class: call for request_class, call, _ in KINDS.values()}
_BUILDERS = {request_class: builder for request_class, _, builder in KINDS.values()}
_ENTITY_FIELDS = {TrendRequest: "events", FunnelRequest: "steps"}
_DROPPED = {"insight", "events", "actions", "funnel_window_interval_type"}


def _default(item: Any) -> Any:
    if item.default is not MISSING:
        return item.default
    if item.default_factory is not MISSING:
        return item.default_factory()
    return MISSING


def builder_name(request: Any) -> str:
    """The builder that edits ``request``.

    Examples
    --------
    >>> builder_name(RetentionRequest("signup"))
    'RetentionBuilder'
    """
    return _BUILDERS[type(request)]


def request_entities(request: Any) -> list[Entity]:
    """The events and actions a request names: series, steps, a lifecycle's event, retention's two events, the
    steps of the funnel restricting paths."""
    found: list[Entity] = [*(getattr(request, "events", None) or []), *(getattr(request, "steps", None) or [])]
    for name in ("event", "target_entity", "returning_entity"):
        if getattr(request, name, None) is not None:
            found.append(getattr(request, name))
    if getattr(request, "funnel", None) is not None:
        found.extend(request_entities(request.funnel))
    return found


def request_code(request: Any, client_name: str = "client") -> str:
    """The call that computes ``request``, as Python source.

    Examples
    --------
    >>> print(request_code(TrendRequest(events=["$pageview"], interval="week")))
    client.trend(
        events=['$pageview'],
        interval='week',
    )
    """
    return _call(f"{client_name}.{_CALLS[type(request)]}", request)


def _call(head: str, request: Any) -> str:
    """``head(field=value, ...)`` with the fields that differ from the defaults; a request inside (a paths
    funnel) as ``toolkit.FunnelRequest(...)``."""
    lines = [f"{head}("]
    for item in fields(request):
        value = getattr(request, item.name)
        if value == _default(item):
            continue
        if is_dataclass(value):
            text = _call(f"toolkit.{type(value).__name__}", value)
        else:
            text = pformat(value, width=100, sort_dicts=False)
        lines.append(f"    {item.name}={text.replace(chr(10), chr(10) + '    ')},")
    lines.append(")")
    return "\n".join(lines)


def _entities(filters: dict[str, Any]) -> list[dict[str, Any]]:
    """Events and actions of a legacy body as one list, in their ``order``."""
    items = [
        {**item, "type": item.get("type") or kind}
        for kind in ("events", "actions")
        for item in filters.get(kind) or []
        if isinstance(item, dict)
    ]
    return sorted(items, key=lambda item: item.get("order") if isinstance(item.get("order"), int) else 0)


def request_from_filters(filters: dict[str, Any]) -> Any:
    """A saved insight's legacy ``filters`` as the request a builder edits (unknown keys go to ``extra``).

    Raises
    ------
    ValueError
        For an insight kind no builder edits.

    Examples
    --------
    >>> request = request_from_filters({"insight": "FUNNELS", "events": [{"id": "signup", "order": 0},
    ...     {"id": "pay", "order": 1}], "funnel_window_interval": 7, "funnel_window_interval_type": "DAY"})
    >>> type(request).__name__, [step["id"] for step in request.steps], request.funnel_window_interval_unit
    ('FunnelRequest', ['signup', 'pay'], 'day')
    """
    kind = str(filters.get("insight") or "TRENDS").upper()
    if kind not in KINDS:
        raise ValueError(f"a {kind} insight: the builders open {', '.join(name.lower() for name in KINDS)}")
    request_class = KINDS[kind][0]
    if request_class not in _ENTITY_FIELDS:  # each of the other kinds reads its own filters
        return request_class.from_filters(filters)
    known = {item.name for item in fields(request_class)}
    values: dict[str, Any] = {_ENTITY_FIELDS[request_class]: _entities(filters)}
    extra: dict[str, Any] = {}
    for key, value in filters.items():
        if key in _DROPPED:
            continue
        if key in known and key != "extra":
            values[key] = value
        else:
            extra[key] = value
    unit = filters.get("funnel_window_interval_type")
    if request_class is FunnelRequest and unit and not values.get("funnel_window_interval_unit"):
        values["funnel_window_interval_unit"] = str(unit).lower()
    return request_class(**values, extra=extra)
