"""Materializing the most-used properties on a schedule, while the server runs.

Every ``interval`` seconds a thread of the server applies the automatic choice to each project (the ``limit``
properties recent queries filtered or broke down by most, :func:`.property_usage.auto_materialize`) and then
backfills the new columns in batches, on a connection of its own, so capture and calculations go on meanwhile.
``serve --auto-materialize-every HOURS`` sets the interval (0 turns it off); ``insightlab materialize --auto``
and ``POST .../materialized_properties/auto/`` apply the same choice at once.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from ..clock import Clock, format_instant
from .db import transaction
from .engine.choice import open_database
from .engine.interface import EventEngine
from .materialized import backfill_pending
from .property_usage import auto_materialize

__all__ = ["AutoMaterializeSchedule", "apply_everywhere"]

log = logging.getLogger(__name__)


def apply_everywhere(db_path: Path | str, engine: EventEngine | None = None, *, limit: int, clock: Clock) -> None:
    """Apply the automatic choice to every project of the database, then backfill what it added (through
    ``engine``, else the database's recorded engine, opened now)."""
    conn = open_database(db_path, engine)
    try:
        now = clock.now()
        for (project_id,) in conn.execute("SELECT id FROM projects ORDER BY id").fetchall():
            with transaction(conn):
                auto_materialize(conn, project_id, limit=limit, today=now.date(), now=format_instant(now))
        backfill_pending(conn)
    finally:
        conn.close()


class AutoMaterializeSchedule:
    """A daemon thread running :func:`apply_everywhere` every ``interval`` seconds until :meth:`stop`."""

    def __init__(self, db_path: Path | str, engine: EventEngine, *, interval: float, limit: int, clock: Clock) -> None:
        self.db_path = db_path
        self.engine = engine
        self.interval = interval
        self.limit = limit
        self.clock = clock
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="auto-materialize", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stopped.wait(self.interval):
            try:
                apply_everywhere(self.db_path, self.engine, limit=self.limit, clock=self.clock)
            except Exception:  # a failed round is logged and the next one tries again
                log.exception("automatic materialization failed")
