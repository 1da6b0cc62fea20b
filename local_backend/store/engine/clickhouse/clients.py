"""The ClickHouse client of a database: opened once per process for each engine, its tables made on the way.

chdb keeps one data folder per process, so one process serves the chdb databases of one PATH (each SQLite file
names its ClickHouse database inside it with ``?database=``). A server is reached through clickhouse-connect,
imported only when a server engine is opened (:mod:`.http_client`), so a chdb or SQLite user need not
install it.
"""

from __future__ import annotations

import importlib
import threading

from ..spec import Engine, EngineError
from .client import ChdbClient, ClickHouseClient
from .rewrite import finish_rewrites
from .schema import create_tables

__all__ = ["open_client"]


_clients: dict[tuple[str, str], ClickHouseClient] = {}
_clients_guard = threading.Lock()


def open_client(engine: Engine, db_file: str) -> ClickHouseClient:
    """A client for ``engine`` (``db_file`` places chdb's default folder), made once per process."""
    if engine.kind == "chdb" and engine.path is None and not db_file:
        raise EngineError("An in-memory database has no folder beside it: name one with chdb:PATH.", attr="engine")
    key = (engine.spec, db_file if engine.kind == "chdb" and engine.path is None else "")
    with _clients_guard:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = _connect(engine, db_file)
    return client


def _connect(engine: Engine, db_file: str) -> ClickHouseClient:
    client: ClickHouseClient
    if engine.kind == "chdb":
        path = engine.path or f"{db_file}.chdb"
        try:
            client = ChdbClient.open(path, engine.database)
        except RuntimeError as error:
            if "already initialized" not in str(error):
                raise
            raise EngineError(
                f"chdb keeps one data folder per process and this one already uses another: {error}", attr="engine"
            ) from None
    else:
        try:
            http_client = importlib.import_module(".http_client", __package__)
        except ModuleNotFoundError as error:
            if error.name is None or not error.name.endswith("http_client"):
                raise
            raise EngineError("This version cannot reach a ClickHouse server yet; use chdb.", attr="engine") from None
        client = http_client.HttpClient.connect(str(engine.url))
    create_tables(client)
    finish_rewrites(client, drop_unfinished=False)  # a plugin job's rewrite cut short when the process died
    return client
