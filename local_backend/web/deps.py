"""The per-request database connection (a FastAPI dependency)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from fastapi import Request

from ..clock import format_instant
from ..config import Settings
from ..store.db import connect

__all__ = ["get_conn", "get_settings", "now_iso"]


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_conn(request: Request) -> Iterator[sqlite3.Connection]:
    conn = connect(get_settings(request).db_path)
    try:
        yield conn
    finally:
        conn.close()


def now_iso(request: Request) -> str:
    """The app clock's current instant in the stored format."""
    return format_instant(get_settings(request).clock.now())
