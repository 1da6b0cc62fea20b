"""Which engine a database's events live in: reading an engine spec, and the choice recorded in the database.

    sqlite                                        the events in the SQLite file itself (the default)
    chdb[:PATH][?database=NAME]                   embedded ClickHouse (the ``chdb`` package), its data in PATH,
                                                  by default a folder beside the SQLite file (``<db>.chdb``)
    clickhouse://USER:PASSWORD@HOST:PORT/DATABASE[?cluster=NAME]
                                                  a ClickHouse server or cluster, over HTTP (clickhouse-connect)

Metadata (projects, keys, insights, persons and their distinct ids, definitions, plugin configs) stays in the
SQLite file whatever the engine. The engine is recorded there when it is first chosen (table ``event_engine``;
no row is SQLite). A database that holds no events yet may switch engine; opening one that holds events with
another engine is an :class:`EngineMismatch` naming both (:func:`~.choice.choose_engine` records the choice, as
this module knows no engine's code).

chdb keeps one data folder per process, so one process serves the chdb databases of one PATH (each SQLite file
names its ClickHouse database inside it with ``?database=``).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

from ...errors import APIError

__all__ = [
    "DEFAULT_DATABASE",
    "ENGINE_HELP",
    "Engine",
    "EngineError",
    "EngineMismatch",
    "SQLITE",
    "database_file",
    "parse_engine",
    "recorded_engine",
]

DEFAULT_DATABASE = "insightlab"
ENGINE_HELP = "sqlite, chdb[:PATH] or clickhouse://USER:PASSWORD@HOST:PORT/DATABASE[?cluster=NAME]"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

Kind = Literal["sqlite", "chdb", "clickhouse"]


class EngineError(APIError):
    """An engine spec that cannot be read, or an engine that cannot be opened here."""

    default_code = "invalid_engine"


class EngineMismatch(APIError):
    """The database's events live in one engine and it was opened with another."""

    status = 409
    type = "invalid_request"
    default_code = "engine_mismatch"


@dataclass(frozen=True)
class Engine:
    """A parsed engine spec. ``path`` is chdb's folder (None: beside the SQLite file); ``url`` a server's."""

    kind: Kind
    path: str | None = None
    database: str = DEFAULT_DATABASE
    url: str | None = None
    cluster: str | None = None

    @property
    def spec(self) -> str:
        """The text :func:`parse_engine` reads back to this engine (as recorded in the database)."""
        if self.kind == "sqlite":
            return "sqlite"
        if self.kind == "clickhouse":
            return str(self.url)
        text = "chdb" if self.path is None else f"chdb:{self.path}"
        return text if self.database == DEFAULT_DATABASE else f"{text}?database={self.database}"

    def describe(self) -> str:
        """The spec for messages, without a password."""
        if self.kind != "clickhouse":
            return self.spec
        parts = urlsplit(str(self.url))
        host = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)
        cluster = f"?cluster={self.cluster}" if self.cluster else ""
        return f"clickhouse://{unquote(parts.username or '')}@{host}/{self.database}{cluster}"


SQLITE = Engine("sqlite")


def _bad(text: str, why: str) -> EngineError:
    return EngineError(f"Engine {text!r} {why}; use {ENGINE_HELP}.", attr="engine")


def parse_engine(text: str) -> Engine:
    """Read an engine spec (see the module docstring); anything else is an :class:`EngineError` saying why.

    >>> parse_engine("chdb:/data/events.chdb").path
    '/data/events.chdb'
    """
    spec = text.strip()
    if spec == "sqlite":
        return SQLITE
    if spec == "chdb" or spec.startswith(("chdb:", "chdb?")):
        return _parse_chdb(text, spec[4:])
    if spec.startswith("clickhouse://"):
        return _parse_server(text, spec)
    raise _bad(text, "is not an engine")


def _parse_chdb(text: str, rest: str) -> Engine:
    path_text, _, query = rest.removeprefix(":").partition("?")
    database = DEFAULT_DATABASE
    if query:
        options = parse_qs(query, keep_blank_values=True)
        if set(options) != {"database"} or len(options["database"]) != 1:
            raise _bad(text, "takes one option, database=NAME")
        database = options["database"][0]
        if not _IDENTIFIER.fullmatch(database):
            raise _bad(text, "names a database that is not letters, digits and underscores")
    if rest.startswith(":") and not path_text:
        raise _bad(text, "names no folder after 'chdb:'")
    path = str(Path(path_text).expanduser().absolute()) if path_text else None
    return Engine("chdb", path=path, database=database)


def _parse_server(text: str, spec: str) -> Engine:
    parts = urlsplit(spec)
    try:
        port = parts.port
    except ValueError:
        raise _bad(text, "has a port that is not a number") from None
    if not parts.hostname:
        raise _bad(text, "names no host")
    if port is None:
        raise _bad(text, "names no port (8123 is ClickHouse's HTTP port, 8443 with TLS)")
    if not parts.username:
        raise _bad(text, "names no user")
    database = parts.path.removeprefix("/")
    if not _IDENTIFIER.fullmatch(database):
        raise _bad(text, "names no database (letters, digits and underscores) after the port")
    cluster = None
    if parts.query:
        options = parse_qs(parts.query, keep_blank_values=True)
        if set(options) != {"cluster"} or len(options["cluster"]) != 1:
            raise _bad(text, "takes one option, cluster=NAME")
        cluster = options["cluster"][0]
        if not _IDENTIFIER.fullmatch(cluster):
            raise _bad(text, "names a cluster that is not letters, digits and underscores")
    if parts.fragment:
        raise _bad(text, "has a '#' part")
    return Engine("clickhouse", database=database, url=spec, cluster=cluster)


def recorded_engine(conn: sqlite3.Connection) -> Engine:
    """The engine recorded in the database (SQLite when none is, or the database predates the choice)."""
    try:
        row = conn.execute("SELECT spec FROM event_engine WHERE id = 1").fetchone()
    except sqlite3.OperationalError:  # not migrated yet: nothing can have been recorded
        return SQLITE
    return SQLITE if row is None else parse_engine(row[0])


def database_file(conn: sqlite3.Connection) -> str:
    """The SQLite file ``conn`` is open on ("" for an in-memory database)."""
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main":
            return str(row[2] or "")
    return ""
