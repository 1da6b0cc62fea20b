"""Dates, periods and event conditions as retention and paths need them.

This is the seam between the retention/paths calculations and the shared filter building blocks
(relative dates, period truncation, property filters -> SQL). Everything the two calculations ask of dates
and of event matching goes through the functions here, so the calculations themselves never parse a date
or build a property clause.

Periods are calendar periods in the project timezone: an hour, a day from local midnight, a week from the
project's first day of the week (0 Sunday, 1 Monday), a month from its first day.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from ..errors import ValidationError
from ..store.events import to_micros

__all__ = [
    "parse_point",
    "truncate_period",
    "add_periods",
    "period_boundaries",
    "event_condition",
    "format_local",
    "add_months",
    "properties_condition",
    "global_condition",
]

_RELATIVE = re.compile(r"^-?(\d+)?([hdwmqyM])(Start|End)?$")
_SPANS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1), "q": timedelta(weeks=13)}
_SPANS["M"] = timedelta(minutes=1)


def add_months(naive: datetime, months: int) -> datetime:
    """``naive`` moved by whole months, the day clamped to the target month's length (Jan 31 + 1 = Feb 28)."""
    index = naive.year * 12 + naive.month - 1 + months
    year, month = divmod(index, 12)
    following = datetime(year + (month + 1) // 12, (month + 1) % 12 + 1, 1)
    last_day = (following - timedelta(days=1)).day
    return naive.replace(year=year, month=month + 1, day=min(naive.day, last_day))


def _shift_back(local: datetime, unit: str, count: int) -> datetime:
    if unit in ("m", "y"):
        naive = add_months(local.replace(tzinfo=None), -count * (12 if unit == "y" else 1))
        return naive.replace(tzinfo=local.tzinfo)
    return local - _SPANS[unit] * count


def parse_point(text: str, *, tz: ZoneInfo, now: datetime, attr: str) -> datetime:
    """An absolute (naive = project timezone) or relative (``-7d``, ``-2w``, ``dStart``...) instant, aware."""
    value = text.strip()
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is not None:
        return parsed.replace(tzinfo=tz) if parsed.tzinfo is None else parsed.astimezone(tz)
    match = _RELATIVE.match(value)
    if match is None:
        raise ValidationError(f"'{text}' is not a date: use YYYY-MM-DD or a relative date like -7d.", attr=attr)
    count = int(match.group(1) or (0 if match.group(3) else 1))
    local = _shift_back(now.astimezone(tz), match.group(2), count)
    if match.group(3) == "Start":
        local = truncate_period(local, "Hour" if match.group(2) == "h" else "Day", 0)
    elif match.group(3) == "End":
        local = truncate_period(local, "Hour" if match.group(2) == "h" else "Day", 0)
        local += timedelta(hours=1) if match.group(2) == "h" else timedelta(days=1)
        local -= timedelta(microseconds=1)
    return local


def truncate_period(local: datetime, period: str, week_start_day: int) -> datetime:
    """The start of the period ``local`` (an aware project-timezone datetime) falls in."""
    naive = local.replace(tzinfo=None)
    if period == "Hour":
        start = naive.replace(minute=0, second=0, microsecond=0)
    else:
        start = naive.replace(hour=0, minute=0, second=0, microsecond=0)
        if period == "Week":
            # weekday(): Monday 0 .. Sunday 6; week_start_day: Sunday 0, Monday 1
            start -= timedelta(days=(start.weekday() + 1 - week_start_day) % 7)
        elif period == "Month":
            start = start.replace(day=1)
    return start.replace(tzinfo=local.tzinfo)


def add_periods(start: datetime, period: str, count: int) -> datetime:
    """``start`` moved by ``count`` periods: hours in real time, days/weeks/months on the local calendar."""
    if period == "Hour":
        return (start.astimezone(UTC) + timedelta(hours=count)).astimezone(start.tzinfo)
    naive = start.replace(tzinfo=None)
    if period == "Month":
        moved = add_months(naive, count)
    else:
        moved = naive + timedelta(days=count * (7 if period == "Week" else 1))
    return moved.replace(tzinfo=start.tzinfo)


def period_boundaries(last_start: datetime, period: str, count: int) -> list[datetime]:
    """The ``count + 1`` boundaries of ``count`` periods ending with the one starting at ``last_start``."""
    return [add_periods(last_start, period, index - count + 1) for index in range(count + 1)]


def format_local(moment: datetime) -> str:
    """ISO 8601 with the offset, ``Z`` for UTC: ``2026-01-05T00:00:00Z``, ``2026-01-05T00:00:00+01:00``."""
    text = moment.replace(microsecond=0).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def micros(moment: datetime) -> int:
    return to_micros(moment)


# --- event conditions -------------------------------------------------------------------------------------

_OPERATORS = ("exact", "is_not", "icontains", "not_icontains", "gt", "gte", "lt", "lte", "is_set", "is_not_set")


def _json_path(key: str) -> str:
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _property_clause(prop: Any, attr: str) -> tuple[str, list[Any]]:
    if not isinstance(prop, dict) or not isinstance(prop.get("key"), str):
        raise ValidationError("Each property filter needs a 'key'.", attr=attr)
    kind = prop.get("type") or "event"
    if kind not in ("event", "person"):
        raise ValidationError(f"Property filters of type '{kind}' are not supported here.", attr=attr)
    operator = prop.get("operator") or "exact"
    if operator not in _OPERATORS:
        raise ValidationError(f"Operator '{operator}' is not supported here.", attr=attr)
    column = "e.properties" if kind == "event" else "(SELECT p.properties FROM persons p WHERE p.id = e.person_id)"
    path = _json_path(prop["key"])
    extracted = f"json_extract({column}, ?)"
    value = prop.get("value")
    if operator == "is_set":
        return f"json_type({column}, ?) IS NOT NULL", [path]
    if operator == "is_not_set":
        return f"coalesce(json_type({column}, ?), 'null') = 'null'", [path]
    if operator in ("exact", "is_not"):
        values = value if isinstance(value, list) else [value]
        texts = [str(v).lower() if isinstance(v, bool) else str(v) for v in values]
        marks = ",".join("?" for _ in texts) or "NULL"
        text = (
            f"(CASE json_type({column}, ?) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
            f" ELSE CAST({extracted} AS TEXT) END)"
        )
        clause = f"coalesce({text}, '') IN ({marks})"
        return (clause if operator == "exact" else f"NOT ({clause})"), [path, path, *texts]
    if operator in ("icontains", "not_icontains"):
        clause = f"instr(lower(coalesce({extracted}, '')), lower(?)) > 0"
        return (clause if operator == "icontains" else f"NOT ({clause})"), [path, str(value)]
    symbol = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[operator]
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValidationError(f"'{operator}' needs a number.", attr=attr) from None
    return f"CAST({extracted} AS REAL) {symbol} ? AND json_type({column}, ?) IN ('integer', 'real')", [
        path,
        number,
        path,
    ]


def properties_condition(properties: Any, attr: str) -> tuple[str, list[Any]]:
    """A flat list of property filters (AND), or a ``{"type": "AND"|"OR", "values": [...]}`` group."""
    if properties is None or properties == [] or properties == {}:
        return "1", []
    if isinstance(properties, dict) and "values" in properties:
        joiner = " OR " if str(properties.get("type", "AND")).upper() == "OR" else " AND "
        parts = [properties_condition(value, f"{attr}__{i}") for i, value in enumerate(properties["values"] or [])]
        if not parts:
            return "1", []
        return "(" + joiner.join(sql for sql, _ in parts) + ")", [p for _, params in parts for p in params]
    if isinstance(properties, dict) and "key" in properties:
        return _property_clause(properties, attr)
    if not isinstance(properties, list):
        raise ValidationError("Expected a list of property filters.", attr=attr)
    parts = [properties_condition(value, f"{attr}__{i}") for i, value in enumerate(properties)]
    return "(" + " AND ".join(sql for sql, _ in parts) + ")", [p for _, params in parts for p in params]


def _action_condition(conn: sqlite3.Connection, project_id: int, action_id: int, attr: str) -> tuple[str, list[Any]]:
    import json

    row = conn.execute(
        "SELECT steps FROM actions WHERE id = ? AND project_id = ? AND deleted = 0", (action_id, project_id)
    ).fetchone()
    if row is None:
        raise ValidationError(f"Action {action_id} does not exist.", attr=attr, code="does_not_exist")
    clauses: list[str] = []
    params: list[Any] = []
    for index, step in enumerate(json.loads(row["steps"] or "[]")):
        parts: list[str] = []
        if step.get("event"):
            parts.append("e.event = ?")
            params.append(step["event"])
        if step.get("url"):
            matching = step.get("url_matching") or "contains"
            if matching == "exact":
                parts.append("json_extract(e.properties, '$.\"$current_url\"') = ?")
                params.append(step["url"])
            elif matching == "contains":
                parts.append("instr(coalesce(json_extract(e.properties, '$.\"$current_url\"'), ''), ?) > 0")
                params.append(step["url"])
            else:
                raise ValidationError("Actions matching URLs by regex are not supported here.", attr=attr)
        sql, step_params = properties_condition(step.get("properties"), f"{attr}__steps__{index}")
        parts.append(sql)
        params.extend(step_params)
        clauses.append("(" + " AND ".join(parts) + ")")
    return ("(" + " OR ".join(clauses) + ")" if clauses else "0"), params


def event_condition(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    *,
    entity_type: str,
    entity_id: str | int | None,
    entity_properties: Any,
    attr: str,
) -> tuple[str, list[Any]]:
    """SQL over ``events e`` matching one entity (an event name, any event, or an action) and its properties."""
    if entity_type == "actions":
        sql, params = _action_condition(conn, int(project["id"]), int(entity_id or 0), f"{attr}__id")
    elif entity_id is None:
        sql, params = "1", []
    else:
        sql, params = "e.event = ?", [str(entity_id)]
    props_sql, props_params = properties_condition(entity_properties, f"{attr}__properties")
    return f"({sql} AND {props_sql})", [*params, *props_params]


def global_condition(project: dict[str, Any], properties: Any, filter_test_accounts: bool) -> tuple[str, list[Any]]:
    """The filter's own properties, plus the project's test-account filters when asked for."""
    sql, params = properties_condition(properties, "properties")
    if filter_test_accounts and project.get("test_account_filters"):
        extra_sql, extra_params = properties_condition(project["test_account_filters"], "filter_test_accounts")
        sql, params = f"({sql} AND {extra_sql})", [*params, *extra_params]
    return sql, params
