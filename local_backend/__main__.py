"""The command line: ``python -m local_backend`` or ``insightlab``.

Commands (the contract other tools rely on):

* ``serve --db PATH [--host 127.0.0.1] [--port 8000] [--now ISO8601] [--query-timeout SECONDS]
  [--auto-materialize-every HOURS] [--engine E]``
* ``create-project --db PATH --name NAME [--timezone TZ] [--engine E]`` prints ``{"id", "name", "api_token"}``
* ``create-key --db PATH --email EMAIL --scopes "insight:read,plugin:write" [--projects 1,2] [--label L]``
  prints only the personal API key
* ``demo --db PATH [--events N] [--seed S] [--engine E]`` seeds the demo data (if missing) and prints how to
  connect
* ``load-events --db PATH --project ID FILE [--format csv|jsonl|parquet] [--batch-size N] [--engine E]``
  bulk-loads a file and prints what it loaded; bad input exits with 2, a storage failure part-way with 1
* ``migrate-events --db PATH --to ENGINE`` moves the database's events to another engine
  (:mod:`.migrate_events_command`)
* ``materialize --db PATH --project ID (--property KEY [--person] [--drop] | --list | --auto [--limit N])``
  promotes a property to an indexed column (:mod:`.materialize_command`)

``--engine`` is where the events live (:mod:`.store.engine.spec`): ``sqlite`` (the default), ``chdb[:PATH]`` or
``clickhouse://USER:PASSWORD@HOST:PORT/DATABASE[?cluster=NAME]``. It is recorded in the database the first time
it is given; without it a command uses the recorded engine.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from . import materialize_command, migrate_events_command
from .clock import Clock, FrozenStartClock, SystemClock, format_instant, parse_instant
from .config import DEFAULT_BATCH_SIZE, DEFAULT_MATERIALIZE_AUTO_INTERVAL, DEFAULT_QUERY_TIMEOUT_SECONDS, Settings
from .demo_data import DEFAULT_DEMO_EVENTS, DEFAULT_DEMO_SEED
from .errors import APIError
from .store.engine.choice import choose_engine, open_database
from .store.engine.spec import ENGINE_HELP, Engine, parse_engine

__all__ = ["main", "build_parser", "build_settings"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def _clock(now: str | None) -> Clock:
    return FrozenStartClock(parse_instant(now)) if now else SystemClock()


def _open(db: Path, engine: Engine | None = None, *, events: bool = True) -> sqlite3.Connection:
    """The database, migrated, with ``engine`` chosen for its events when given (else the recorded one), on a
    connection carrying that engine, opened; a command that touches no events (``events=False``) gets a plain
    connection, so that it runs beside a server holding the engine (chdb's folder is one process's)."""
    from .store.db import connect
    from .store.migrations import migrate

    migrate(db)
    if engine is not None:
        conn = connect(db)
        try:
            choose_engine(conn, engine)
        finally:
            conn.close()
    return open_database(db) if events else connect(db)


def _engine(text: str) -> Engine:
    try:
        return parse_engine(text)
    except APIError as error:
        raise argparse.ArgumentTypeError(error.detail) from None


def _add_engine(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--engine", type=_engine, help=f"where the events live: {ENGINE_HELP} (default: the recorded one, or sqlite)"
    )


def _instant(text: str) -> str:
    try:
        parse_instant(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 date-time: {text!r}") from None
    return text


def _project_ids(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of project ids: {text!r}") from None


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def _hours(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of hours: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 (never) or a positive number of hours: {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="insightlab", description="insightlab's local analytics backend")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="start the HTTP server")
    serve.add_argument("--db", type=Path, required=True, help="SQLite file (created and migrated if missing)")
    serve.add_argument("--host", default=DEFAULT_HOST)
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument("--now", type=_instant, help="start the server clock at this instant (ISO 8601)")
    serve.add_argument(
        "--query-timeout",
        type=_seconds,
        default=DEFAULT_QUERY_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help=f"stop a calculation running longer than this with a 504 (default {DEFAULT_QUERY_TIMEOUT_SECONDS:g})",
    )
    serve.add_argument(
        "--auto-materialize-every",
        type=_hours,
        default=DEFAULT_MATERIALIZE_AUTO_INTERVAL / 3600,
        metavar="HOURS",
        help="materialize the properties recent queries used most this often (default 24; 0: never)",
    )
    _add_engine(serve)

    project = commands.add_parser("create-project", help="create a project and print it as JSON")
    project.add_argument("--db", type=Path, required=True)
    project.add_argument("--name", required=True)
    project.add_argument("--timezone", default="UTC")
    _add_engine(project)

    key = commands.add_parser("create-key", help="create a personal API key and print it")
    key.add_argument("--db", type=Path, required=True)
    key.add_argument("--email", required=True)
    key.add_argument("--scopes", required=True, help='comma-separated, e.g. "insight:read,plugin:write"; * is all')
    key.add_argument("--projects", type=_project_ids, help="restrict the key to these project ids")
    key.add_argument("--label", default="cli")

    demo = commands.add_parser("demo", help="seed the demo data and print how to connect")
    demo.add_argument("--db", type=Path, required=True)
    demo.add_argument("--host", default=DEFAULT_HOST, help="host to show in the connection details")
    demo.add_argument("--port", type=int, default=DEFAULT_PORT, help="port to show in the connection details")
    demo.add_argument("--now", type=_instant, help="seed as if the clock read this instant")
    demo.add_argument("--events", type=_count, default=DEFAULT_DEMO_EVENTS, help="how many demo events to generate")
    demo.add_argument("--seed", type=int, default=DEFAULT_DEMO_SEED, help="the same seed gives the same events")
    _add_engine(demo)

    load = commands.add_parser("load-events", help="bulk-load events from a CSV, JSON Lines or Parquet file")
    load.add_argument("--db", type=Path, required=True)
    load.add_argument("--project", type=int, required=True, help="the project id to load into")
    load.add_argument("file", type=Path, help="columns event, distinct_id, timestamp, then properties")
    load.add_argument("--format", choices=["csv", "jsonl", "parquet"], help="default: from the file's extension")
    load.add_argument("--batch-size", type=_count, default=DEFAULT_BATCH_SIZE, help="events per transaction")
    load.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_engine(load)
    materialize_command.add_parser(commands)
    migrate_events_command.add_parser(commands, _engine)
    return parser


def build_settings(args: argparse.Namespace) -> Settings:
    """The app's settings from ``serve``'s arguments."""
    return Settings(
        db_path=args.db,
        clock=_clock(args.now),
        query_timeout_seconds=args.query_timeout,
        materialize_auto_interval=args.auto_materialize_every * 3600,
    )


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app

    if args.engine is not None:  # recorded (or refused) before the app opens the database
        _open(args.db, args.engine).close()
    app = create_app(build_settings(args))
    print(f"insightlab backend serving {args.db} on http://{args.host}:{args.port}", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _create_project(args: argparse.Namespace) -> int:
    from .store.projects import create_project, validate_timezone

    validate_timezone(args.timezone)
    conn = _open(args.db, args.engine, events=False)
    project = create_project(conn, name=args.name, timezone=args.timezone, now=format_instant(SystemClock().now()))
    print(json.dumps({"id": project["id"], "name": project["name"], "api_token": project["api_token"]}))
    return 0


def _create_key(args: argparse.Namespace) -> int:
    from .store.accounts import create_personal_api_key, get_or_create_user, validate_scopes
    from .store.projects import get_project

    scopes = validate_scopes(args.scopes.split(","))
    conn = _open(args.db, events=False)
    for project_id in args.projects or []:
        if get_project(conn, project_id) is None:
            raise APIError(f"Project {project_id} does not exist.", attr="projects")
    now = format_instant(SystemClock().now())
    first_project = (args.projects or [None])[0]
    user = get_or_create_user(conn, email=args.email, now=now, current_project_id=first_project)
    print(
        create_personal_api_key(
            conn, user_id=user["id"], scopes=scopes, scoped_projects=args.projects, label=args.label, now=now
        )
    )
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo_data.setup import seed_demo

    conn = _open(args.db, args.engine)
    access = seed_demo(conn, _clock(args.now), events=args.events, seed=args.seed, progress=True)
    url = f"http://{args.host}:{args.port}"
    project_id = access.project["id"]
    state = "seeded" if access.seeded_now else "already seeded"
    events = f"  Events:       {access.events_loaded} stored\n" if access.seeded_now else ""
    print(
        f"Demo database {args.db} ({state}).\n"
        f"{events}"
        f"  URL:          {url}\n"
        f"  API docs:     {url}/api/schema/swagger-ui/\n"
        f"  Project id:   {project_id}\n"
        f"  Project token (for capture): {access.project['api_token']}\n"
        f"  Personal API key (all scopes): {access.api_key}\n"
        f"Try:\n"
        f'  curl -H "Authorization: Bearer {access.api_key}" {url}/api/projects/{project_id}/insights/\n'
        f"From Python:\n"
        f"  export POSTHOG_HOST={url} POSTHOG_PERSONAL_API_KEY={access.api_key} POSTHOG_PROJECT_ID={project_id}",
        flush=True,
    )
    return 0


def _load_events(args: argparse.Namespace) -> int:
    from .loading import LoadInterrupted, load_file

    if not args.db.is_file():
        raise APIError(f"No such database: {args.db}", attr="db")
    conn = _open(args.db, args.engine)
    try:
        report = load_file(
            conn, args.project, args.file, format=args.format, batch_size=args.batch_size, progress=not args.quiet
        )
    except LoadInterrupted as stopped:
        print(stopped.report.summary(), flush=True)
        print(
            f"error: {stopped}. Rows before {stopped.first_row} are stored; loading the file again stores only the"
            " rest.",
            file=sys.stderr,
        )
        return 1
    print(report.summary(), flush=True)
    return 0


COMMANDS = {
    "serve": _serve,
    "create-project": _create_project,
    "create-key": _create_key,
    "demo": _demo,
    "load-events": _load_events,
    "materialize": lambda args: materialize_command.run(args, _open(args.db)),
    "migrate-events": lambda args: migrate_events_command.run(args, _open(args.db)),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except APIError as error:
        print(f"error: {error.detail}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
