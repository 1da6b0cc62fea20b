"""Hot event properties: the few keys analysts filter and break down by all the time.

Each has a VIRTUAL generated column on ``events`` (migration 0013) holding the value as a breakdown shows it
before blanks are dropped: ``'true'``/``'false'`` for JSON booleans, otherwise exactly
``json_extract(properties, '$."<key>"')`` (text, integer, real; NULL for null or missing). It is declared
without a type, so SQLite applies no affinity and it compares as that value does. The compilers read a hot
key through its column only where that gives the same answer as the JSON (an ``exact``/``is_not`` on strings
that cannot read as a number, boolean or null; an event breakdown); every other operator keeps reading the
JSON. One index,
``idx_events_browser (project_id, event, v_browser, timestamp, v_os, person_id)``, turns a browser filter plus an OS
breakdown into an index range scan. Only indexed columns cost ingestion; the others cost nothing to store.
"""

from __future__ import annotations

__all__ = ["HOT_PROPERTIES", "hot_column"]

HOT_PROPERTIES: dict[str, str] = {
    "$browser": "v_browser",
    "$os": "v_os",
    "$device_type": "v_device_type",
    "$pathname": "v_pathname",
    "$geoip_country_code": "v_country_code",
}


def hot_column(key: str) -> str | None:
    """The generated column holding event property ``key``, or None when the key is not hot."""
    return HOT_PROPERTIES.get(key)
