"""Taking a builder's work elsewhere and back: its request as code, and a saved insight as a request.

`request_code` writes the ``client.trend(...)`` / ``client.funnel(...)`` call that computes what the
builder shows, with only the fields that differ from the defaults. `request_from_filters` reads a saved
insight's legacy ``filters`` back into a `TrendRequest` or `FunnelRequest` (what
`Builder.from_insight` opens).
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from pprint import pformat
from typing import Any

from ..insight_requests import FunnelRequest, TrendRequest

__all__ = ["request_code", "request_from_filters"]

_CALLS = {TrendRequest: "trend", FunnelRequest: "funnel"}
_ENTITY_FIELDS = {TrendRequest: "events", FunnelRequest: "steps"}
_DROPPED = {"insight", "events", "actions", "funnel_window_interval_type"}


def _default(item: Any) -> Any:
    if item.default is not MISSING:
        return item.default
    if item.default_factory is not MISSING:
        return item.default_factory()
    return MISSING


def request_code(request: TrendRequest | FunnelRequest, client_name: str = "client") -> str:
    """The call that computes ``request``, as Python source.

    Examples
    --------
    >>> print(request_code(TrendRequest(events=["$pageview"], interval="week")))
    client.trend(
        events=['$pageview'],
        interval='week',
    )
    """
    lines = [f"{client_name}.{_CALLS[type(request)]}("]
    for item in fields(request):
        value = getattr(request, item.name)
        if value == _default(item):
            continue
        text = pformat(value, width=100, sort_dicts=False).replace("\n", "\n    ")
        lines.append(f"    {item.name}={text},")
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


def request_from_filters(filters: dict[str, Any]) -> TrendRequest | FunnelRequest:
    """A saved insight's legacy ``filters`` as the request a builder edits (unknown keys go to ``extra``).

    Raises
    ------
    ValueError
        For an insight kind the builders do not edit (retention, paths, ...).

    Examples
    --------
    >>> request = request_from_filters({"insight": "FUNNELS", "events": [{"id": "signup", "order": 0},
    ...     {"id": "pay", "order": 1}], "funnel_window_interval": 7, "funnel_window_interval_type": "DAY"})
    >>> type(request).__name__, [step["id"] for step in request.steps], request.funnel_window_interval_unit
    ('FunnelRequest', ['signup', 'pay'], 'day')
    """
    kind = str(filters.get("insight") or "TRENDS").upper()
    request_class = {"TRENDS": TrendRequest, "FUNNELS": FunnelRequest}.get(kind)
    if request_class is None:
        raise ValueError(f"a {kind} insight: the builders open trends and funnels")
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
