"""Staging tables a killed chdb load left behind (:mod:`.staging`), dropped when the next load starts.

A load drops its staging tables when it ends, even on an error; only a killed process (``kill -9``, a power cut)
leaves them, some 17 MB per million events. Their names carry the loading process's id, so the next load drops
those of processes that are gone. A chdb folder is served by one process, so a table of another live process id
is never found there in use; the check is for a load running beside it in this one.
"""

from __future__ import annotations

import os

from ..client import ClickHouseClient

__all__ = ["STAGE_PREFIX", "drop_abandoned_stages"]

STAGE_PREFIX = "_load_"


def drop_abandoned_stages(client: ClickHouseClient) -> list[str]:
    """Drop the staging tables of loads whose process is gone, and those named without a process id (made
    before loads named them so); returns their names."""
    found = client.query_rows(
        "SELECT name FROM system.tables WHERE database = {database:String} AND startsWith(name, {prefix:String})",
        {"database": client.database, "prefix": STAGE_PREFIX},
    )
    dropped = []
    for (name,) in found:
        owner = str(name)[len(STAGE_PREFIX) :].partition("_")[0]
        if owner.isdigit() and len(owner) < 16 and (int(owner) == os.getpid() or _running(int(owner))):
            continue
        client.command(f"DROP TABLE IF EXISTS `{client.database}`.`{name}`")
        dropped.append(str(name))
    return dropped


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
