"""Named points of a write at which a test can kill the process, to prove what a crash there leaves behind.

``INSIGHTLAB_CRASH_AT=<point>`` in the environment of a server or a load makes the process kill itself with
SIGKILL (no cleanup, no ``finally``, as ``kill -9`` or a power cut) the first time it reaches that point, and
``<point>@<n>`` the n-th time. Without the variable :func:`crash_point` is one comparison. The points, in the
order a ClickHouse write reaches them:

| point | where |
|---|---|
| ``clickhouse-journaled`` | the undo record is on disk; nothing inserted into ClickHouse yet |
| ``clickhouse-persons`` | person, group and override versions inserted; the events not yet |
| ``clickhouse-inserted`` | every ClickHouse row of the transaction inserted; SQLite not committed |
| ``sqlite-written`` | the SQLite transaction about to commit (every engine) |
| ``sqlite-committed`` | SQLite committed; the undo record not yet removed (every engine) |
"""

from __future__ import annotations

import os
import signal

__all__ = ["CRASH_POINTS", "CRASH_VARIABLE", "crash_point"]

CRASH_VARIABLE = "INSIGHTLAB_CRASH_AT"
CRASH_POINTS = (
    "clickhouse-journaled",
    "clickhouse-persons",
    "clickhouse-inserted",
    "sqlite-written",
    "sqlite-committed",
)
_CHOSEN, _, _TIMES = os.environ.get(CRASH_VARIABLE, "").partition("@")
_reached = 0


def crash_point(name: str) -> None:
    """Kill this process here if the environment names this point (see the module docstring)."""
    global _reached
    if _CHOSEN == name:
        _reached += 1
        if _reached >= int(_TIMES or 1):
            os.kill(os.getpid(), signal.SIGKILL)
