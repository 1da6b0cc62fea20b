"""The frames of the resource endpoints (insights, plugins, activity, projects, sharing, persons, events):
pure functions from API payloads (decoded JSON) to typed DataFrames, no HTTP here.

Each ``*_frame`` function documents its columns and dtypes; an empty payload gives an empty frame with the
same columns and dtypes.

Examples
--------
>>> insights_frame([{"id": 1, "short_id": "a1B2c3D4", "name": "Signups"}])[["id", "short_id", "name"]]
   id  short_id     name
0   1  a1B2c3D4  Signups
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ._columns import typed_frame

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
    "events_frame",
    "insights_frame",
    "persons_frame",
    "plugin_configs_frame",
    "plugins_frame",
    "projects_frame",
    "sharing_frame",
]

Records = Iterable[Mapping[str, Any]]

INSIGHT_COLUMNS: dict[str, str] = {
    "id": "int",
    "short_id": "string",
    "name": "string",
    "derived_name": "string",
    "description": "string",
    "favorited": "bool",
    "saved": "bool",
    "deleted": "bool",
    "tags": "object",
    "dashboards": "object",
    "filters": "object",
    "query": "object",
    "result": "object",
    "last_refresh": "datetime",
    "is_cached": "bool",
    "created_at": "datetime",
    "created_by": "string",
    "updated_at": "datetime",
    "last_modified_at": "datetime",
    "last_modified_by": "string",
}
"""Columns of `insights_frame`: ``created_by``/``last_modified_by`` are the users' e-mail addresses."""

PLUGIN_CONFIG_COLUMNS: dict[str, str] = {
    "id": "int",
    "plugin": "int",
    "name": "string",
    "description": "string",
    "enabled": "bool",
    "order": "int",
    "deleted": "bool",
    "config": "object",
    "error": "object",
    "delivery_rate_24h": "float",
    "team_id": "int",
    "created_at": "datetime",
    "updated_at": "datetime",
}

PLUGIN_COLUMNS: dict[str, str] = {
    "id": "int",
    "name": "string",
    "description": "string",
    "url": "string",
    "plugin_type": "string",
    "config_schema": "object",
    "public_jobs": "object",
}

ACTIVITY_COLUMNS: dict[str, str] = {
    "id": "string",
    "created_at": "datetime",
    "user": "string",
    "activity": "string",
    "scope": "string",
    "item_id": "string",
    "name": "string",
    "short_id": "string",
    "changes": "object",
}
"""Columns of `activity_frame`: ``user`` is the e-mail (or first name of a system entry); ``name`` and
``short_id`` come from the entry's ``detail``; ``changes`` is its list of ``{type, action, field, before,
after}``."""

PROJECT_COLUMNS: dict[str, str] = {
    "id": "int",
    "uuid": "string",
    "name": "string",
    "api_token": "string",
    "timezone": "string",
    "is_demo": "bool",
    "ingested_event": "bool",
}

SHARING_COLUMNS: dict[str, str] = {
    "insight_id": "int",
    "enabled": "bool",
    "access_token": "string",
    "created_at": "datetime",
}

PERSON_COLUMNS: dict[str, str] = {
    "id": "string",
    "name": "string",
    "distinct_ids": "object",
    "properties": "object",
    "is_identified": "bool",
    "created_at": "datetime",
}

EVENT_COLUMNS: dict[str, str] = {
    "id": "string",
    "event": "string",
    "distinct_id": "string",
    "timestamp": "datetime",
    "properties": "object",
}


def _email(user: Any) -> str | None:
    if isinstance(user, Mapping):
        return user.get("email") or user.get("first_name")
    return None


def insights_frame(records: Records) -> pd.DataFrame:
    """Insights (list, retrieve, create, update or ``my_last_viewed`` items) as a frame.

    Parameters
    ----------
    records : iterable of dict
        Insight objects as the API returns them (full or ``basic``).

    Returns
    -------
    pandas.DataFrame
        One row per insight with the columns of `INSIGHT_COLUMNS`: ``id`` Int64, ``short_id``, ``name``,
        ``derived_name``, ``description`` string; ``favorited``, ``saved``, ``deleted``, ``is_cached``
        boolean; ``tags``, ``dashboards``, ``filters``, ``query``, ``result`` object; ``last_refresh``,
        ``created_at``, ``updated_at``, ``last_modified_at`` datetime64[ns, UTC]; ``created_by``,
        ``last_modified_by`` string (e-mail).

    Examples
    --------
    >>> insights_frame([{"id": 3, "name": None, "derived_name": "Pageview count"}]).loc[0, "derived_name"]
    'Pageview count'
    """
    rows = []
    for record in records:
        row = dict(record)
        row["created_by"] = _email(record.get("created_by"))
        row["last_modified_by"] = _email(record.get("last_modified_by"))
        rows.append(row)
    return typed_frame(rows, INSIGHT_COLUMNS)


def plugin_configs_frame(records: Records) -> pd.DataFrame:
    """Plugin configs as a frame.

    Returns
    -------
    pandas.DataFrame
        Columns of `PLUGIN_CONFIG_COLUMNS`: ``id``, ``plugin``, ``order``, ``team_id`` Int64; ``name``,
        ``description`` string; ``enabled``, ``deleted`` boolean; ``config``, ``error`` object;
        ``delivery_rate_24h`` float64 (NaN without traffic); ``created_at``, ``updated_at``
        datetime64[ns, UTC].

    Examples
    --------
    >>> plugin_configs_frame([{"id": 7, "plugin": 2, "enabled": True, "order": 1}])[["id", "enabled"]]
       id  enabled
    0   7     True
    """
    return typed_frame(records, PLUGIN_CONFIG_COLUMNS)


def plugins_frame(records: Records) -> pd.DataFrame:
    """The plugin catalog as a frame.

    Returns
    -------
    pandas.DataFrame
        Columns of `PLUGIN_COLUMNS`: ``id`` Int64; ``name``, ``description``, ``url``, ``plugin_type``
        string; ``config_schema``, ``public_jobs`` object.

    Examples
    --------
    >>> plugins_frame([{"id": 1, "name": "Property filter"}]).loc[0, "name"]
    'Property filter'
    """
    return typed_frame(records, PLUGIN_COLUMNS)


def activity_frame(records: Records) -> pd.DataFrame:
    """Activity-log entries as a frame, newest first as the API sends them.

    Returns
    -------
    pandas.DataFrame
        Columns of `ACTIVITY_COLUMNS`: ``id``, ``user``, ``activity``, ``scope``, ``item_id``, ``name``,
        ``short_id`` string; ``created_at`` datetime64[ns, UTC]; ``changes`` object.

    Examples
    --------
    >>> entry = {"id": "u1", "activity": "created", "user": {"email": "a@example.com"}, "detail": {"name": "X"}}
    >>> activity_frame([entry])[["activity", "user", "name"]]
      activity           user name
    0  created  a@example.com    X
    """
    rows = []
    for record in records:
        detail = record.get("detail") or {}
        rows.append(
            {
                **record,
                "user": _email(record.get("user")),
                "name": detail.get("name"),
                "short_id": detail.get("short_id"),
                "changes": detail.get("changes"),
            }
        )
    return typed_frame(rows, ACTIVITY_COLUMNS)


def projects_frame(records: Records) -> pd.DataFrame:
    """Projects as a frame.

    Returns
    -------
    pandas.DataFrame
        Columns of `PROJECT_COLUMNS`: ``id`` Int64; ``uuid``, ``name``, ``api_token``, ``timezone`` string;
        ``is_demo``, ``ingested_event`` boolean.

    Examples
    --------
    >>> projects_frame([{"id": 1, "name": "Shop", "timezone": "UTC"}]).loc[0, "timezone"]
    'UTC'
    """
    return typed_frame(records, PROJECT_COLUMNS)


def sharing_frame(record: Mapping[str, Any], insight_id: int) -> pd.DataFrame:
    """An insight's sharing configuration as a one-row frame.

    Returns
    -------
    pandas.DataFrame
        Columns of `SHARING_COLUMNS`: ``insight_id`` Int64, ``enabled`` boolean, ``access_token`` string,
        ``created_at`` datetime64[ns, UTC] (NaT when the server has not stored it yet).

    Examples
    --------
    >>> bool(sharing_frame({"enabled": False, "access_token": "tok", "created_at": None}, 4).loc[0, "enabled"])
    False
    """
    return typed_frame([{**record, "insight_id": insight_id}], SHARING_COLUMNS)


def persons_frame(records: Records) -> pd.DataFrame:
    """Persons as a frame.

    Returns
    -------
    pandas.DataFrame
        Columns of `PERSON_COLUMNS`: ``id`` string (the person's uuid when the API gives one, else its id);
        ``name`` string; ``distinct_ids``, ``properties`` object; ``is_identified`` boolean;
        ``created_at`` datetime64[ns, UTC].

    Examples
    --------
    >>> persons_frame([{"id": 5, "uuid": "0190-ab", "distinct_ids": ["u1"]}]).loc[0, "id"]
    '0190-ab'
    """
    rows = [{**record, "id": record.get("uuid") or record.get("id")} for record in records]
    return typed_frame(rows, PERSON_COLUMNS)


def events_frame(records: Records) -> pd.DataFrame:
    """Events as a frame.

    Returns
    -------
    pandas.DataFrame
        Columns of `EVENT_COLUMNS`: ``id``, ``event``, ``distinct_id`` string; ``timestamp``
        datetime64[ns, UTC]; ``properties`` object.

    Examples
    --------
    >>> events_frame([{"id": "e1", "event": "$pageview", "timestamp": "2026-01-02T03:04:05Z"}]).loc[0, "event"]
    '$pageview'
    """
    rows = [{**record, "id": record.get("uuid") or record.get("id")} for record in records]
    return typed_frame(rows, EVENT_COLUMNS)
