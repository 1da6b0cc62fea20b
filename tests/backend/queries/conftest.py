"""A project to compute in: the engines are called directly on the connection, no HTTP in between."""

from __future__ import annotations

from typing import Any

import pytest

from local_backend.clock import format_instant
from local_backend.store.projects import create_project


@pytest.fixture
def project(conn, clock) -> dict[str, Any]:
    """A UTC project whose weeks start on Sunday; the clock is fixed at Thursday 2026-01-15 12:00 UTC."""
    return create_project(conn, name="Engines", timezone="UTC", now=format_instant(clock.now()))
