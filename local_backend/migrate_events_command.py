"""``insightlab migrate-events --db PATH --to ENGINE``: move a database's events to another engine.

Copies every event of the database from its recorded engine to ``ENGINE`` in batches, with the persons they
belong to now (a ClickHouse source applies its merge overrides on the way), copies the persons and groups a
ClickHouse engine keeps versions of, checks the counts, and records ``ENGINE`` as the database's engine. The
target must hold none of the database's events yet. A SQLite source's events are deleted once the copy is
checked (the file would otherwise keep serving them to code that reads SQLite); a ClickHouse source keeps its
copy (drop its database when done). The move is :func:`local_backend.store.engine.choice.move_events`.
"""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path
from typing import Any

from .store.engine.choice import move_events
from .store.engine.spec import ENGINE_HELP, Engine, recorded_engine

__all__ = ["add_parser", "run", "migrate_events"]


def add_parser(commands: Any, engine_type: Any) -> None:
    """Register the ``migrate-events`` command on the CLI's subparsers."""
    parser = commands.add_parser("migrate-events", help="copy the database's events to another engine")
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--to", type=engine_type, required=True, help=f"the engine to move to: {ENGINE_HELP}")


def run(args: argparse.Namespace, conn: sqlite3.Connection) -> int:
    source = recorded_engine(conn)
    moved = migrate_events(conn, args.to)
    print(f"Moved {moved} events from {source.describe()} to {args.to.describe()}.", flush=True)
    return 0


def migrate_events(conn: sqlite3.Connection, target: Engine) -> int:
    """Move every event of ``conn``'s database to ``target`` and record it; returns how many moved."""
    return move_events(conn, target)
