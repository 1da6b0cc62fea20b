"""Pure functions from API payloads (decoded JSON) to typed DataFrames: no HTTP here.

==============================  =====================================================================
`toolkit.frames.resources`      the resource endpoints: insights, plugins, activity, projects, ...
`toolkit.frames.results`        the calculations: a module per kind, trends to lifecycle
`toolkit.frames.readable_tables`  a frame as a table to read (`toolkit.readable_table`)
`toolkit.frames.sql`            a HogQL answer, typed by its ClickHouse column types
==============================  =====================================================================

Each ``*_frame`` function documents its columns and dtypes; an empty payload gives an empty frame with the
same columns and dtypes. Everything listed below is importable from here.

Examples
--------
>>> insights_frame([{"id": 1, "short_id": "a1B2c3D4", "name": "Signups"}])[["id", "short_id", "name"]]
   id  short_id     name
0   1  a1B2c3D4  Signups
"""

from __future__ import annotations

from .resources import (
    ACTIVITY_COLUMNS,
    EVENT_COLUMNS,
    INSIGHT_COLUMNS,
    PERSON_COLUMNS,
    PLUGIN_COLUMNS,
    PLUGIN_CONFIG_COLUMNS,
    PROJECT_COLUMNS,
    SHARING_COLUMNS,
    activity_frame,
    events_frame,
    insights_frame,
    persons_frame,
    plugin_configs_frame,
    plugins_frame,
    projects_frame,
    sharing_frame,
)
from .results import (
    complete_trend_frame,
    funnel_frame,
    funnel_trends_frame,
    lifecycle_frame,
    paths_frame,
    retention_frame,
    stickiness_frame,
    time_to_convert_frame,
    trend_frame,
)
from .sql import sql_frame

__all__ = [
    "ACTIVITY_COLUMNS",
    "EVENT_COLUMNS",
    "INSIGHT_COLUMNS",
    "PERSON_COLUMNS",
    "PLUGIN_COLUMNS",
    "PLUGIN_CONFIG_COLUMNS",
    "PROJECT_COLUMNS",
    "SHARING_COLUMNS",
    "activity_frame",
    "complete_trend_frame",
    "events_frame",
    "funnel_frame",
    "funnel_trends_frame",
    "insights_frame",
    "lifecycle_frame",
    "paths_frame",
    "persons_frame",
    "plugin_configs_frame",
    "plugins_frame",
    "projects_frame",
    "retention_frame",
    "sharing_frame",
    "sql_frame",
    "stickiness_frame",
    "time_to_convert_frame",
    "trend_frame",
]
