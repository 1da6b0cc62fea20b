"""``GET /_health``: answers 200 once the server is ready (the database is open and migrated)."""

from __future__ import annotations

import sqlite3

from fastapi import APIRouter, Depends

from ..store.db import check_migrated
from ..web.deps import get_conn

__all__ = ["router"]

router = APIRouter(tags=["health"])


@router.get("/_health", summary="Readiness check")
def health(conn: sqlite3.Connection = Depends(get_conn)) -> dict[str, str]:
    check_migrated(conn)
    return {"status": "ok"}
