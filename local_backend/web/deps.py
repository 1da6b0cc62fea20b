"""The per-request database connection (a FastAPI dependency), carrying the app's open event engine."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from fastapi import Request

from ..clock import format_instant
from ..config import Settings
from ..store.engine.choice import open_database
from ..store.engine.interface import EventEngine

__all__ = ["get_conn", "get_engine", "get_settings", "now_iso"]


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_engine(request: Request) -> EventEngine:
    """The event engine the app opened when it started."""
    engine: EventEngine = request.app.state.engine
    return engine


def get_conn(request: Request) -> Iterator[sqlite3.Connection]:
    conn = open_database(get_settings(request).db_path, get_engine(request))
    try:
        yield conn
    finally:
        conn.close()


def now_iso(request: Request) -> str:
    """The app clock's current instant in the stored format."""
    return format_instant(get_settings(request).clock.now())
