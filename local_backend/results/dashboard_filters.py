"""A dashboard's filters applied to an insight shown on it (``?from_dashboard=<id>``).

The dashboard's date range replaces the insight's when the dashboard sets ``date_from`` (its ``date_to``
comes along, absent meaning "now"), and the dashboard's property filters are ANDed with the insight's, so a
dashboard narrows what its insights count but never widens it. Everything else stays the insight's own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["apply_dashboard_filters"]


def _as_group(properties: Any) -> dict[str, Any]:
    if isinstance(properties, dict) and "values" in properties:
        return properties
    return {"type": "AND", "values": list(properties) if isinstance(properties, list) else [properties]}


def apply_dashboard_filters(legacy: dict[str, Any], dashboard_filters: dict[str, Any]) -> dict[str, Any]:
    """``legacy`` (an insight's legacy filter) as it computes on a dashboard with ``dashboard_filters``."""
    merged = dict(legacy)
    if dashboard_filters.get("date_from"):
        merged["date_from"] = dashboard_filters["date_from"]
        merged.pop("date_to", None)
        if dashboard_filters.get("date_to"):
            merged["date_to"] = dashboard_filters["date_to"]
    extra = dashboard_filters.get("properties")
    if extra:
        own = merged.get("properties")
        if not own:
            merged["properties"] = extra
        elif isinstance(own, list) and isinstance(extra, list):
            merged["properties"] = [*own, *extra]
        else:
            merged["properties"] = {"type": "AND", "values": [_as_group(own), _as_group(extra)]}
    return merged
