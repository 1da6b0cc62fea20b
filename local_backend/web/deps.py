"""The per-request database connection (a FastAPI dependency), lent by the app's pool and carrying its open event
engine."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from fastapi import Request

from ..clock import format_instant
from ..config import Settings
from ..store.engine.interface import EventEngine
from ..store.engine.pool import ConnectionPool

__all__ = ["get_conn", "get_engine", "get_settings", "now_iso"]


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_engine(request: Request) -> EventEngine:
    """The event engine the app opened when it started."""
    engine: EventEngine = request.app.state.engine
    return engine


def get_conn(request: Request) -> Iterator[sqlite3.Connection]:
    pool: ConnectionPool = request.app.state.connections
    conn = pool.take()
    try:
        yield conn
    finally:
        pool.give_back(conn)


def now_iso(request: Request) -> str:
    """The app clock's current instant in the stored format."""
    return format_instant(get_settings(request).clock.now())
