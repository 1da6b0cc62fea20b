"""The one chdb session of a test run: chdb refuses a second data folder in a process, so tests share one."""

from __future__ import annotations

import atexit
import itertools
import shutil
import tempfile

from local_backend.store.engine.clickhouse.client import ChdbClient

__all__ = ["fresh_chdb_client"]

_numbers = itertools.count(1)


def _session_path() -> str:
    existing = ChdbClient.open_folder()
    if existing is not None:
        return existing
    path = tempfile.mkdtemp(prefix="insightlab-chdb-")
    atexit.register(shutil.rmtree, path, True)
    return path


def fresh_chdb_client(prefix: str = "chdb") -> ChdbClient:
    """A client on a new, empty database of the run's chdb session."""
    return ChdbClient.open(_session_path(), database=f"{prefix}_{next(_numbers)}")
