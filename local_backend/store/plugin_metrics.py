"""Per-config delivery counts by hour, and the latest error a config raised.

Counts are kept per (config, UTC hour), so the 24-hour delivery rate is a sum over the current hour and the
23 before it, whatever the number of events.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from .db import transaction

__all__ = ["hour_number", "add_outcomes", "set_config_errors", "delivery_rates", "WINDOW_HOURS"]

WINDOW_HOURS = 24


def hour_number(instant: datetime) -> int:
    """Hours since the epoch (UTC) of the hour ``instant`` falls in."""
    return int(instant.timestamp()) // 3600


def add_outcomes(conn: sqlite3.Connection, hour: int, counts: Mapping[int, tuple[int, int]]) -> None:
    """Add ``(successes, failures)`` per config id to the given hour."""
    with transaction(conn):
        conn.executemany(
            "INSERT INTO plugin_config_metrics (plugin_config_id, hour, successes, failures) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (plugin_config_id, hour) DO UPDATE SET successes = successes + excluded.successes,"
            " failures = failures + excluded.failures",
            [(config_id, hour, ok, failed) for config_id, (ok, failed) in counts.items()],
        )


def set_config_errors(conn: sqlite3.Connection, errors: Mapping[int, Mapping[str, Any]]) -> None:
    """Store the latest error of each config (the ``error`` field of the config)."""
    with transaction(conn):
        conn.executemany(
            "UPDATE plugin_configs SET error = ? WHERE id = ?",
            [(json.dumps(dict(error)), config_id) for config_id, error in errors.items()],
        )


def delivery_rates(conn: sqlite3.Connection, config_ids: Iterable[int], now: datetime) -> dict[int, float | None]:
    """successes / (successes + failures) over the last 24 hours per config; None for a config with no traffic."""
    ids = list(dict.fromkeys(config_ids))
    rates: dict[int, float | None] = {config_id: None for config_id in ids}
    if not ids:
        return rates
    first_hour = hour_number(now) - (WINDOW_HOURS - 1)
    rows = conn.execute(
        "SELECT plugin_config_id, sum(successes), sum(failures) FROM plugin_config_metrics"
        f" WHERE plugin_config_id IN ({','.join('?' for _ in ids)}) AND hour BETWEEN ? AND ?"
        " GROUP BY plugin_config_id",
        [*ids, first_hour, hour_number(now)],
    ).fetchall()
    for config_id, ok, failed in rows:
        total = (ok or 0) + (failed or 0)
        rates[int(config_id)] = (ok or 0) / total if total else None
    return rates
