"""Migration: VIRTUAL generated columns for hot event properties, and an index for the commonest trend.

The columns (``v_browser``, ``v_os``, ``v_device_type``, ``v_pathname``, ``v_country_code``) are computed
when read, so adding them rewrites nothing and costs inserts nothing. The index
``(project_id, event, v_browser, timestamp, v_os)`` makes "one event where ``$browser`` is X, by day, broken
down by ``$os``" a range scan over the matching entries instead of a JSON read of every event of the range;
it is the one index here that ingestion pays for. The list matches
:data:`local_backend.store.hot_properties.HOT_PROPERTIES`.
"""

from __future__ import annotations

import sqlite_utils

__all__ = ["apply"]

COLUMNS = {
    "v_browser": "$browser",
    "v_os": "$os",
    "v_device_type": "$device_type",
    "v_pathname": "$pathname",
    "v_country_code": "$geoip_country_code",
}


def apply(db: sqlite_utils.Database) -> None:
    for column, key in COLUMNS.items():
        # no declared type: the column keeps the value's own type (no affinity), so it compares as the JSON does
        path = f"'$.\"{key}\"'"
        db.conn.execute(
            f"ALTER TABLE events ADD COLUMN {column} GENERATED ALWAYS AS (CASE json_type(properties, {path})"
            f" WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE json_extract(properties, {path}) END) VIRTUAL"
        )
    db.conn.execute("CREATE INDEX idx_events_browser ON events (project_id, event, v_browser, timestamp, v_os)")
