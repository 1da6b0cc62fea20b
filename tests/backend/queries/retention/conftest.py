"""Every retention test runs on both event engines (``engine``: sqlite, chdb)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _on_each_engine(engine: str) -> str:
    return engine
