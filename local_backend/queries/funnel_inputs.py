"""What a funnel asks of the shared filter building blocks: its date range, periods, and SQL conditions.

The one seam between the funnel calculation and the date and property machinery: the calculation never
parses a date or builds a property clause itself.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from ..errors import ValidationError
from ..models.funnels import FunnelEntity, FunnelFilter
from .analysis_inputs import (
    add_months,
    add_periods,
    event_condition,
    format_local,
    global_condition,
    micros,
    parse_point,
    truncate_period,
)

__all__ = [
    "FunnelRange",
    "resolve_funnel_range",
    "step_condition",
    "filter_condition",
    "window_end",
    "is_same_or_wider",
    "format_local",
]

_PERIODS = {"hour": "Hour", "day": "Day", "week": "Week", "month": "Month"}
_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}


@dataclass(frozen=True)
class FunnelRange:
    """Inclusive bounds (aware, project timezone) and the entrance periods funnel trends count in."""

    start: datetime
    end: datetime
    period_starts: list[datetime]

    @property
    def start_micros(self) -> int:
        return micros(self.start)

    @property
    def end_micros(self) -> int:
        return micros(self.end)

    def period_of(self, timestamps: np.ndarray) -> np.ndarray:
        """The index of the entrance period of each timestamp (-1 before the first)."""
        bounds = np.array([micros(moment) for moment in self.period_starts], dtype=np.int64)
        return np.searchsorted(bounds, timestamps, side="right") - 1


def _has_time(text: str) -> bool:
    value = text.strip()
    return "T" in value or " " in value or value.endswith(("h", "M")) or "hStart" in value or "hEnd" in value


def resolve_funnel_range(filter: FunnelFilter, project: dict[str, Any], now: datetime) -> FunnelRange:
    """``date_from`` (default ``-7d``) from the start of its day to the end of ``date_to``'s day (default today).

    A date with a time of day (``-24h``, ``2026-01-14T10:00``) is kept to the moment; ``all`` starts at the
    epoch.
    """
    tz = ZoneInfo(project.get("timezone") or "UTC")
    local_now = now.astimezone(tz)
    text_from = filter.date_from or "-7d"
    if text_from == "all":
        start = datetime(1970, 1, 1, tzinfo=UTC).astimezone(tz)
    else:
        start = parse_point(text_from, tz=tz, now=now, attr="date_from")
        if not _has_time(text_from):
            start = truncate_period(start, "Day", 0)
    end = parse_point(filter.date_to, tz=tz, now=now, attr="date_to") if filter.date_to else local_now
    if not filter.date_to or not _has_time(filter.date_to):
        end = truncate_period(end, "Day", 0).replace(hour=23, minute=59, second=59, microsecond=999_999)
    if start > end:
        raise ValidationError("date_from is after date_to.", attr="date_from")
    return FunnelRange(start=start, end=end, period_starts=_period_starts(filter, project, start, end))


def _period_starts(filter: FunnelFilter, project: dict[str, Any], start: datetime, end: datetime) -> list[datetime]:
    if filter.viz_type != "trends":
        return []
    period = _PERIODS[filter.interval]
    week_start = 1 if project.get("week_start_day") == 1 else 0
    moment = truncate_period(start, period, week_start)
    starts = []
    while moment <= end:
        starts.append(moment)
        if len(starts) > 5000:
            raise ValidationError("Too many periods: choose a longer interval or a shorter range.", attr="interval")
        moment = add_periods(moment, period, 1)
    return starts


def window_end(amount: int, unit: str) -> Any:
    """The function from start timestamps (µs) to the last moment of the conversion window (inclusive)."""
    if unit != "month":
        span = amount * _UNIT_SECONDS[unit] * 1_000_000
        return lambda starts: starts + span

    def months_later(starts: np.ndarray) -> np.ndarray:
        epoch = datetime(1970, 1, 1)
        moved = [add_months(epoch + timedelta(microseconds=int(value)), amount) for value in starts]
        return np.array([(moment - epoch) // timedelta(microseconds=1) for moment in moved], dtype=np.int64)

    return months_later


def step_condition(
    conn: sqlite3.Connection, project: dict[str, Any], entity: FunnelEntity, attr: str
) -> tuple[str, list[Any]]:
    """SQL over ``events e`` matching one step or exclusion (an event, any event, or an action)."""
    return event_condition(
        conn, project, entity_type=entity.type, entity_id=entity.id, entity_properties=entity.properties, attr=attr
    )


def filter_condition(project: dict[str, Any], filter: FunnelFilter) -> tuple[str, list[Any]]:
    """The filter's own properties (every event considered) and the test-account filters when asked for."""
    return global_condition(project, filter.properties, filter.filter_test_accounts)


def _property_list(properties: Any) -> list[Any] | None:
    """A flat AND list of property filters, or None when the filters are grouped in a way we cannot compare."""
    if properties in (None, [], {}):
        return []
    if isinstance(properties, list):
        return properties
    if isinstance(properties, dict) and str(properties.get("type", "AND")).upper() == "AND":
        flat: list[Any] = []
        for value in properties.get("values") or []:
            inner = _property_list(value)
            if inner is None:
                return None
            flat.extend(inner)
        return flat
    return None


def is_same_or_wider(later: FunnelEntity, earlier: FunnelEntity) -> bool:
    """True when every event matching ``earlier`` also matches ``later`` (same entity, fewer or equal filters).

    Such a step must happen strictly after the previous one, so that one event never completes both.
    """
    any_event = later.type == "events" and later.id is None and earlier.type == "events"
    if not any_event and (later.type != earlier.type or later.id != earlier.id):
        return False
    later_props, earlier_props = _property_list(later.properties), _property_list(earlier.properties)
    if later_props is None or earlier_props is None:
        return later.properties == earlier.properties
    return all(prop in earlier_props for prop in later_props)


def _json_path(key: str) -> str:
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _text_of(column: str, key: str) -> tuple[str, list[Any]]:
    """A property as text (booleans as ``true``/``false``, missing as NULL), the key bound as a parameter."""
    path = _json_path(key)
    sql = (
        f"(CASE json_type({column}, ?) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
        f" WHEN 'null' THEN NULL ELSE CAST(json_extract({column}, ?) AS TEXT) END)"
    )
    return sql, [path, path]


_PERSON_PROPERTIES = "(SELECT p.properties FROM persons p WHERE p.id = e.person_id)"


def _hogql_source(expression: str) -> tuple[str, str]:
    text = expression.strip()
    for prefix, column in (("person.properties.", _PERSON_PROPERTIES), ("properties.", "e.properties")):
        if text.startswith(prefix) and len(text) > len(prefix):
            key = text[len(prefix) :]
            return column, key[1:-1] if key[:1] == key[-1:] == "`" else key
    raise ValidationError(
        "Only properties.<key> and person.properties.<key> HogQL breakdowns are supported.",
        attr="breakdown",
        code="unsupported",
    )


def breakdown_expression(filter: FunnelFilter) -> tuple[str, list[Any]]:
    """SQL text of each event's breakdown value: one text, or a JSON array of texts for several properties."""
    kind = filter.breakdown_type or "event"
    keys = filter.breakdown if isinstance(filter.breakdown, list) else [filter.breakdown]
    if any(not isinstance(key, str) or not key for key in keys):
        raise ValidationError("A breakdown names one property or a list of them.", attr="breakdown")
    parts: list[tuple[str, list[Any]]] = []
    for key in keys:
        if kind == "event":
            parts.append(_text_of("e.properties", key))
        elif kind == "person":
            parts.append(_text_of(_PERSON_PROPERTIES, key))
        elif kind == "group":
            index = filter.breakdown_group_type_index
            if index is None:
                raise ValidationError(
                    "A group breakdown needs breakdown_group_type_index.", attr="breakdown_group_type_index"
                )
            column = (
                f"(SELECT g.properties FROM groups g WHERE g.project_id = e.project_id"
                f" AND g.group_type_index = {int(index)} AND g.group_key = e.group_{int(index)})"
            )
            parts.append(_text_of(column, key))
        elif kind == "hogql":
            column, prop = _hogql_source(key)
            parts.append(_text_of(column, prop))
        else:
            raise ValidationError(
                f"Breakdowns of type '{kind}' are not supported for funnels.", attr="breakdown_type", code="unsupported"
            )
    if len(parts) == 1:
        return parts[0]
    return "json_array(" + ", ".join(f"coalesce({sql}, '')" for sql, _ in parts) + ")", [
        param for _, params in parts for param in params
    ]


def cohort_members(conn: sqlite3.Connection, project: dict[str, Any], cohort_ids: list[int]) -> list[tuple[int, int]]:
    """``(person_id, cohort_id)`` for every member of the cohorts (static lists and property rules)."""
    pairs: list[tuple[int, int]] = []
    for cohort_id in cohort_ids:
        row = conn.execute(
            "SELECT id, is_static, filters FROM cohorts WHERE id = ? AND project_id = ? AND deleted = 0",
            (cohort_id, project["id"]),
        ).fetchone()
        if row is None:
            raise ValidationError(f"Cohort {cohort_id} does not exist.", attr="breakdown", code="does_not_exist")
        if row["is_static"]:
            members = conn.execute("SELECT person_id FROM cohort_people WHERE cohort_id = ?", (cohort_id,))
        else:
            import json

            rules = (json.loads(row["filters"] or "{}") or {}).get("properties")
            sql, params = global_condition({}, _as_person_rules(rules), False)
            sql = sql.replace(_PERSON_PROPERTIES, "p.properties")
            members = conn.execute(
                f"SELECT p.id FROM persons p WHERE p.project_id = ? AND {sql}", [project["id"], *params]
            )
        pairs.extend((person_id, cohort_id) for (person_id,) in members)
    return pairs


def _as_person_rules(rules: Any) -> Any:
    """Cohort rules are person-property filters; mark untyped ones so the compiler reads persons."""
    if isinstance(rules, list):
        return [_as_person_rules(rule) for rule in rules]
    if isinstance(rules, dict) and "values" in rules:
        return {**rules, "values": _as_person_rules(rules["values"])}
    if isinstance(rules, dict):
        if rules.get("type") not in (None, "person"):
            raise ValidationError("Only person-property cohorts can break down a funnel here.", attr="breakdown")
        return {**rules, "type": "person"}
    return rules
