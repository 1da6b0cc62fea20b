"""ClickHouse as an open engine: a client on the engine's database, its tables made when it was opened."""

from __future__ import annotations

import sqlite3

from ..connection import engine_of
from ..spec import Engine, EngineError
from .client import ClickHouseClient
from .event_store import ClickHouseEventStore
from .writer import ClickHouseEventWriter

__all__ = ["ClickHouseEngine", "client_for"]


class ClickHouseEngine:
    """:class:`~local_backend.store.engine.interface.EventEngine` of a ClickHouse database (chdb or a server)."""

    def __init__(self, engine: Engine, client: ClickHouseClient) -> None:
        self.engine = engine
        self.client = client

    @property
    def name(self) -> str:
        return self.engine.describe()

    @property
    def reads_files(self) -> bool:
        return self.engine.kind == "chdb"

    def store(self, conn: sqlite3.Connection) -> ClickHouseEventStore:
        return ClickHouseEventStore(conn, self.client)

    def writer(self, conn: sqlite3.Connection) -> ClickHouseEventWriter:
        return ClickHouseEventWriter(conn, self.client)


def client_for(conn: sqlite3.Connection) -> ClickHouseClient:
    """The ClickHouse client of the engine ``conn`` carries (for work only ClickHouse does: a bulk load that
    reads the file itself)."""
    engine = engine_of(conn)
    if not isinstance(engine, ClickHouseEngine):
        raise EngineError("This database keeps its events in SQLite, not ClickHouse.", attr="engine")
    return engine.client
