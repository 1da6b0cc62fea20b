"""Dates, periods and event conditions as retention and paths need them.

This is the seam between the retention/paths calculations and the shared filter building blocks
(relative dates, period truncation, property filters -> SQL). Everything the two calculations ask of dates
and of event matching goes through the functions here, so the calculations themselves never parse a date
or build a property clause.

Dates, periods, property filters and actions delegate to the building blocks trends and funnels use
(:mod:`.dates`, :mod:`.properties`, :mod:`.actions`), so the same filter means the same thing in every
calculation.

Periods are calendar periods in the project timezone: an hour, a day from local midnight, a week from the
project's first day of the week (0 Sunday, 1 Monday), a month from its first day.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from ..store.event_rows import to_micros
from . import dates
from .actions import action_condition
from .base_filter import compiler_for

__all__ = [
    "parse_point",
    "truncate_period",
    "add_periods",
    "period_boundaries",
    "event_condition",
    "format_local",
    "add_months",
    "global_condition",
]

_PERIODS = {"Hour": "hour", "Day": "day", "Week": "week", "Month": "month"}


def add_months(naive: datetime, months: int) -> datetime:
    """``naive`` moved by whole months, the day clamped to the target month's length (Jan 31 + 1 = Feb 28)."""
    return dates.add_months(naive, months)


def parse_point(text: str, *, tz: ZoneInfo, now: datetime, attr: str) -> datetime:
    """An absolute (naive = project timezone) or relative (``-7d``, ``-2w``, ``dStart``...) instant, aware."""
    return dates.parse_date(text, tz=tz, now=now, attr=attr)


def truncate_period(local: datetime, period: str, week_start_day: int) -> datetime:
    """The start of the period ``local`` (an aware project-timezone datetime) falls in."""
    return dates.truncate(local, _PERIODS[period], week_start_day)


def add_periods(start: datetime, period: str, count: int) -> datetime:
    """``start`` moved by ``count`` periods: hours in real time, days/weeks/months on the local calendar."""
    return dates.add_intervals(start, _PERIODS[period], count)


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


def event_condition(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    *,
    entity_type: str,
    entity_id: str | int | None,
    entity_properties: Any,
    attr: str,
) -> tuple[str, list[Any]]:
    """SQL over ``events e`` matching one entity (an event name, any event, or an action) and its properties.

    An action that does not exist is a 400 ``does_not_exist`` on ``<attr>__id``.
    """
    compiler = compiler_for(conn, project)
    if entity_type == "actions":
        sql, params = action_condition(compiler, entity_id, f"{attr}__id")
    elif entity_id is None:
        sql, params = "1", []
    else:
        sql, params = "e.event = ?", [str(entity_id)]
    props_sql, props_params = compiler.compile(entity_properties, f"{attr}__properties")
    return f"({sql} AND {props_sql})", [*params, *props_params]


def global_condition(
    project: dict[str, Any],
    properties: Any,
    filter_test_accounts: bool,
    *,
    conn: sqlite3.Connection,
) -> tuple[str, list[Any]]:
    """The filter's own properties, plus the project's test-account filters when asked for, compiled by the
    one property compiler (:mod:`.properties`) for SQL run on ``conn``."""
    compiler = compiler_for(conn, project)
    sql, params = compiler.compile(properties, "properties")
    if filter_test_accounts and project.get("test_account_filters"):
        extra_sql, extra_params = compiler.compile(project["test_account_filters"], "filter_test_accounts")
        sql, params = f"({sql} AND {extra_sql})", [*params, *extra_params]
    return sql, params
