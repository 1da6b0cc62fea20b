"""``insightlab materialize``: promote a property to a column, list what is materialized and why, or drop it.

* ``materialize --db DB --project ID --property KEY [--person]`` adds the column and backfills it with a
  progress bar (``--quiet``: none); running it again after an interruption finishes the backfill
* ``materialize --db DB --project ID --list`` prints the project's materialized properties as JSON
* ``materialize --db DB --project ID --property KEY [--person] --drop`` withdraws it
* ``materialize --db DB --project ID --auto [--limit N]`` materializes the N properties recent queries
  filtered or broke down by most, and withdraws the automatic ones that fell out of that top
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .clock import format_instant
from .errors import APIError
from .store.materialized import backfill, drop_materialized, list_materialized, materialize
from .store.property_usage import DEFAULT_AUTO_LIMIT, auto_materialize

__all__ = ["add_parser", "run", "backfill_with_bar"]


def add_parser(commands: Any) -> None:
    """Register the ``materialize`` command on the CLI's subparsers."""
    parser = commands.add_parser("materialize", help="promote a property to an indexed column, list or drop them")
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--project", type=int, required=True, help="the project id")
    parser.add_argument("--property", help="the property key, e.g. plan")
    parser.add_argument("--person", action="store_true", help="a person property (default: an event property)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--list", action="store_true", help="print what is materialized and why, as JSON")
    action.add_argument("--drop", action="store_true", help="withdraw the property's column")
    action.add_argument("--auto", action="store_true", help="materialize the most-used properties of recent queries")
    parser.add_argument("--limit", type=int, default=DEFAULT_AUTO_LIMIT, help="with --auto: how many (default 10)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def backfill_with_bar(conn: sqlite3.Connection, column: str, *, quiet: bool = False) -> int:
    """Backfill ``column`` with a tqdm progress bar (rows), as the other long commands show progress."""
    from tqdm.auto import tqdm

    with tqdm(desc=f"backfill {column}", unit=" rows", disable=quiet, unit_scale=True) as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        return backfill(conn, column, progress=progress)


def run(args: argparse.Namespace, conn: sqlite3.Connection) -> int:
    kind = "person" if args.person else "event"
    now = format_instant(datetime.now(UTC))
    if args.list:
        print(json.dumps(list_materialized(conn, args.project), indent=2))
        return 0
    if args.auto:
        choice = auto_materialize(conn, args.project, limit=args.limit, today=datetime.now(UTC).date(), now=now)
        for row in list_materialized(conn, args.project):
            if row["state"] == "backfilling":
                backfill_with_bar(conn, row["column"], quiet=args.quiet)
        print(json.dumps({"added": choice.added, "dropped": choice.dropped, "kept": choice.kept}))
        return 0
    if not args.property:
        raise APIError("--property is required (or --list, --auto).", attr="property")
    if args.drop:
        drop_materialized(conn, args.project, args.property, kind=kind)
        print(json.dumps({"dropped": args.property, "type": kind}))
        return 0
    column = materialize(conn, args.project, args.property, kind=kind, now=now)
    rows = backfill_with_bar(conn, column, quiet=args.quiet)
    print(json.dumps({"property": args.property, "type": kind, "column": column, "backfilled_rows": rows}))
    return 0
