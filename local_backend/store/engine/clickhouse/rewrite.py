"""Rewriting stored events on ClickHouse: a job's changed events replaced and its dropped events deleted, all or none.

ClickHouse has no transaction spanning statements, and ``event`` is in the events' sorting key, so a changed
event cannot be updated in place (``ALTER ... UPDATE`` refuses key columns). A rewrite is therefore staged and
then applied in steps that may be repeated:

1. **Stage.** The new version of every changed event, and the uuid of every dropped one, goes into a table of
   its own, ``rewrite_<n>_building`` (the events' stored columns, ``keep`` = 0 for a dropped event, ``renamed``
   = 1 when its name changed). Nothing the queries read has changed; a failure here drops the table.
2. **Mark ready.** ``RENAME TABLE ... _building TO ... _ready``: one atomic step. From here on the rewrite
   is decided and will be finished.
3. **Apply.** A lightweight ``DELETE`` (synchronous) of every stored row whose ``(project_id, uuid)`` is staged,
   then ``INSERT ... SELECT`` of the staged rows to keep (their materialized columns computed as at ingestion),
   then ``DROP`` of the staged table. Repeating the whole step is harmless: the delete also removes rows a
   previous, interrupted apply inserted, so each uuid ends up stored exactly once (reads do not deduplicate
   by uuid: ingestion stores each uuid once, and so does this). The insert is not deduplicated by block
   (``insert_deduplicate = 0``): on a replicated table a repeated apply would otherwise be skipped as a
   retry of the first one, whose rows the delete has just removed.

:func:`finish_rewrites` applies every ``_ready`` table left by an apply that was interrupted (the process
killed, the server gone) and drops every ``_building`` one; it runs when the engine is opened and before
each job. So the stored events are never left half-rewritten for longer than the apply takes: before step 2
they are as they were, after it they become the rewritten ones. Queries running during the apply itself (a
delete and an insert, a few milliseconds apart) can miss the events being rewritten.

Not on a cluster (``?cluster=``): the staged table would have to be on every shard for the delete to read it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any

from ....errors import APIError
from .client import ClickHouseClient, require
from .pending_writes import next_version
from .schema import exact_days

__all__ = [
    "RewriteUnsupported",
    "StagedRewrite",
    "apply_rewrite",
    "finish_rewrites",
    "stored_columns_of_events",
    "stored_event_batches",
]

_BUILDING, _READY = "_building", "_ready"


class RewriteUnsupported(APIError):
    """Stored events cannot be rewritten on this engine."""

    default_code = "unsupported_engine"


def _table(client: ClickHouseClient, name: str) -> str:
    return f"`{client.database}`.`{name}`"


def stored_columns_of_events(client: ClickHouseClient) -> list[tuple[str, str]]:
    """``(name, type)`` of the events' columns a row is inserted with (not the ones computed from them)."""
    rows = client.query_rows(
        "SELECT name, type FROM system.columns WHERE database = {db:String} AND table = 'events'"
        " AND default_kind IN ('', 'DEFAULT') ORDER BY position",
        {"db": client.database},
    )
    return [(str(name), str(kind)) for name, kind in rows]


def stored_event_batches(
    client: ClickHouseClient, *, project_id: int, start: int, end: int, batch_size: int
) -> Iterator[Any]:
    """The project's events with ``start <= timestamp <= end`` (UTC microseconds), as pyarrow tables of the
    stored columns of at most ``batch_size`` rows, in ``(timestamp, uuid)`` order.

    Each batch is the next ``batch_size`` rows after the last one read. Its statement reads only the days of
    one window (:func:`_day_windows`), which the events' sorting key finds without reading the others: without
    that, every batch read the times of the whole range again, and a job over 1M events spent 14 s of its 60 in
    those reads (5M events would have read the range a thousand times)."""
    columns = ", ".join(f"`{name}`" for name, _ in stored_columns_of_events(client))
    for window in _day_windows(client, project_id, start, end, batch_size):
        params: dict[str, Any] = {"project": project_id, "start": start, "end": end, "limit": batch_size}
        days = ""
        if window is not None:
            days = " AND day BETWEEN {first_day:Date} AND {last_day:Date}"
            params["first_day"], params["last_day"] = window
        resume = ""
        while True:
            batch = client.query_arrow(
                f"SELECT {columns} FROM {_table(client, 'events')} WHERE project_id = {{project:Int64}}"
                f" AND timestamp BETWEEN {{start:Int64}} AND {{end:Int64}}{days}{resume}"
                " ORDER BY timestamp, uuid LIMIT {limit:UInt64}",
                params,
            )
            if batch.num_rows:
                yield batch
            if batch.num_rows < batch_size:
                break
            resume = " AND (timestamp, uuid) > ({after_ts:Int64}, {after_uuid:String})"
            last = batch.slice(batch.num_rows - 1)
            params["after_ts"], params["after_uuid"] = int(last["timestamp"][0].as_py()), str(last["uuid"][0].as_py())


def _day_windows(
    client: ClickHouseClient, project_id: int, start: int, end: int, batch_size: int
) -> Iterator[tuple[str, str] | None]:
    """Runs of consecutive days (first and last, ``YYYY-MM-DD``) holding the range's events in order, each of
    about ``batch_size`` events at most (a day holding more is a run of its own); a single None, for the whole
    range at once, when the table's ``day`` is not the exact day of each time (a database made before, whose
    days do not follow the times in order)."""
    if not exact_days(client):
        yield None
        return
    counts = client.query_rows(
        f"SELECT toString(day), count() FROM {_table(client, 'events')} WHERE project_id = {{project:Int64}}"
        " AND timestamp BETWEEN {start:Int64} AND {end:Int64} GROUP BY day ORDER BY day",
        {"project": project_id, "start": start, "end": end},
    )
    window: list[str] = []
    held = 0
    for day, count in counts:
        if window and held + int(count) > batch_size:
            yield window[0], window[-1]
            window, held = [], 0
        window.append(str(day))
        held += int(count)
    if window:
        yield window[0], window[-1]


class StagedRewrite:
    """One job's rewrite, staged batch by batch and applied on :meth:`commit` (see the module docstring).

    As a context manager: committed when the block ends normally, the staged table dropped when it raises.
    """

    def __init__(self, client: ClickHouseClient) -> None:
        if getattr(client, "cluster", None):
            raise RewriteUnsupported(
                "Stored events cannot be reprocessed on a ClickHouse cluster yet: run the job on a single server.",
                attr="engine",
            )
        self.client = client
        self.name = f"rewrite_{next_version()}"
        self.staged = 0
        self._columns = stored_columns_of_events(client)
        definitions = ", ".join(f"`{name}` {kind}" for name, kind in self._columns)
        client.command(
            f"CREATE TABLE {_table(client, self.name + _BUILDING)} (keep UInt8, renamed UInt8, {definitions})"
            " ENGINE = MergeTree ORDER BY (project_id, uuid)"
        )

    def add(self, batch: Any, changed: Mapping[int, tuple[str, str]], dropped: Sequence[int]) -> None:
        """Stage rows of ``batch`` (a table from :func:`stored_event_batches`): ``changed`` maps a row's index
        to its new ``(event, properties JSON)``; the rows at ``dropped`` are to be deleted."""
        if not changed and not dropped:
            return
        pa = require("pyarrow")
        kept = sorted(changed)
        rows = batch.take(pa.array(kept + list(dropped), pa.int64()))
        names = [str(value) for value in rows["event"].to_pylist()]
        events = [changed[index][0] for index in kept] + names[len(kept) :]
        properties = [changed[index][1] for index in kept] + [""] * len(dropped)
        renamed = [int(changed[index][0] != names[position]) for position, index in enumerate(kept)]
        columns = {name: rows[name] for name, _ in self._columns}
        columns["event"] = pa.array(events, pa.string())
        columns["properties"] = pa.array(properties, pa.string())
        columns["keep"] = pa.array([1] * len(kept) + [0] * len(dropped), pa.uint8())
        columns["renamed"] = pa.array(renamed + [0] * len(dropped), pa.uint8())
        self.client.insert_arrow(f"`{self.client.database}`.{self.name}{_BUILDING}", pa.table(columns))
        self.staged += len(kept) + len(dropped)

    def commit(self) -> None:
        """Mark the staged rewrite ready, then apply it (nothing staged: only drop the table)."""
        building = _table(self.client, self.name + _BUILDING)
        if not self.staged:
            self.client.command(f"DROP TABLE IF EXISTS {building}")
            return
        self.client.command(f"RENAME TABLE {building} TO {_table(self.client, self.name + _READY)}")
        apply_rewrite(self.client, self.name + _READY)

    def discard(self) -> None:
        self.client.command(f"DROP TABLE IF EXISTS {_table(self.client, self.name + _BUILDING)}")

    def __enter__(self) -> StagedRewrite:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if kind is None:
            self.commit()
            return
        with contextlib.suppress(Exception):  # the job's own error is the one to report; the next job drops it
            self.discard()


def apply_rewrite(client: ClickHouseClient, ready: str) -> list[tuple[int, str, int]]:
    """Apply the staged table ``ready`` to the events and drop it (step 3; repeatable). Returns ``(project, new
    name, last time)`` of the renamed events, for the event definitions."""
    staged, events = _table(client, ready), _table(client, "events")
    renamed = client.query_rows(
        f"SELECT project_id, event, max(timestamp) FROM {staged} WHERE renamed = 1 GROUP BY project_id, event"
    )
    client.command(
        f"DELETE FROM {events} WHERE (project_id, uuid) IN (SELECT project_id, uuid FROM {staged})"
        " SETTINGS lightweight_deletes_sync = 2"
    )
    columns = ", ".join(f"`{name}`" for name, _ in stored_columns_of_events(client))
    client.command(
        f"INSERT INTO {events} ({columns}) SETTINGS insert_deduplicate = 0"
        f" SELECT {columns} FROM {staged} WHERE keep = 1"
    )
    client.command(f"DROP TABLE IF EXISTS {staged}")
    return [(int(project), str(name), int(last)) for project, name, last in renamed]


def finish_rewrites(client: ClickHouseClient, *, drop_unfinished: bool = True) -> list[tuple[int, str, int]]:
    """Apply every rewrite left ready by an interrupted job and (``drop_unfinished``) drop every one left
    half-staged; returns the renamed events' projects, names and last times, as :func:`apply_rewrite`."""
    if getattr(client, "cluster", None):
        return []
    rows = client.query_rows(
        "SELECT name FROM system.tables WHERE database = {db:String}"
        " AND match(name, '^rewrite_[0-9]+_(ready|building)$') ORDER BY name",
        {"db": client.database},
    )
    renamed: list[tuple[int, str, int]] = []
    for (name,) in rows:
        if str(name).endswith(_READY):
            renamed.extend(apply_rewrite(client, str(name)))
        elif drop_unfinished:
            client.command(f"DROP TABLE IF EXISTS {_table(client, str(name))}")
    return renamed
