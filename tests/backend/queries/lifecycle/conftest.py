"""Every lifecycle test runs on each event engine (``engine``: sqlite, chdb, clickhouse-http)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _on_each_engine(engine: str) -> str:
    return engine
