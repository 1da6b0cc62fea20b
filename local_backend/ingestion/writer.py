"""The single writer path: one ingestion write at a time per database file, in one transaction.

SQLite allows one writer. Its busy timeout already makes a second writer wait instead of failing, but it
waits by sleeping and polling; capture requests arriving on several threads would spend their time in those
sleeps. So ingestion writes queue on a lock per database file first, then take SQLite's write lock up front
(``BEGIN IMMEDIATE``), and a request is acknowledged only after its ``COMMIT``. Writers in other processes
(a bulk load next to a running server) are still serialised by SQLite itself and the busy timeout.

Group commit (:meth:`SharedWriter.submit`): requests that queue while another one is being stored are stored
in that same transaction, each inside a savepoint of its own, and all of them are answered after its one
``COMMIT``. Most of a commit's cost is writing every page the transaction changed to the log, and requests
of the same moment change many of the same pages (index tails, definitions, persons), so a group costs less
than its requests one by one. No request waits for company: a group is whatever is already queued. With a
ClickHouse engine a group's events go to ClickHouse as one insert, before the group's commit.

The events themselves are written through the engine's seam (:meth:`~local_backend.store.engine.interface.
EventWriter.transaction_writes`): with a ClickHouse engine the SQLite ``COMMIT`` is the commit point of both
stores, the ClickHouse inserts journaled first and taken back if that commit never happens, by this process or,
after a crash, by the next write transaction on the database (:mod:`local_backend.store.engine.clickhouse.journal`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ..crash_points import crash_point
from ..store.db import transaction
from ..store.engine.choice import event_writer, interrupted_writes, open_database
from ..store.engine.interface import EventEngine, TransactionWrites

__all__ = [
    "write_transaction",
    "pending_writes",
    "transaction_writes",
    "settle_interrupted_writes",
    "SharedWriter",
    "WAL_AUTOCHECKPOINT_PAGES",
    "MAX_GROUP_REQUESTS",
]

# Ingestion checkpoints the write-ahead log every ~40 MB instead of SQLite's ~4 MB: an index page that many
# batches touch is copied back to the database once rather than once per few batches (measured: commits of
# 500 SDK events with random uuids took 2.5x longer at the default). Readers are not affected.
WAL_AUTOCHECKPOINT_PAGES = 10_000

# A group takes at most this many requests, so that the first of them is not held long past its own work.
MAX_GROUP_REQUESTS = 16
_SAVEPOINT = "capture_request"
T = TypeVar("T")

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _database_file(conn: sqlite3.Connection) -> str:
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main":
            return str(row[2]) or f":memory:{id(conn)}"
    return f":memory:{id(conn)}"


def _lock_for(path: str) -> threading.Lock:
    with _locks_guard:
        lock = _locks.get(path)
        if lock is None:
            lock = _locks[path] = threading.Lock()
        return lock


_pending: dict[int, TransactionWrites] = {}  # id of a connection -> its open write transaction's event writes


def pending_writes(conn: sqlite3.Connection) -> TransactionWrites | None:
    """The event writes of ``conn``'s open write transaction (None outside one)."""
    return _pending.get(id(conn))


def transaction_writes(conn: sqlite3.Connection) -> TransactionWrites:
    """The event writes of ``conn``'s open write transaction, which the caller must be inside."""
    writes = _pending.get(id(conn))
    if writes is None:
        raise RuntimeError("events are written inside write_transaction(conn)")
    return writes


@contextmanager
def _engine_writes(conn: sqlite3.Connection) -> Iterator[TransactionWrites]:
    """The transaction's event writes, inside the SQLite transaction (its write lock held)."""
    with event_writer(conn).transaction_writes() as writes:
        _pending[id(conn)] = writes
        try:
            yield writes
        finally:
            del _pending[id(conn)]


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block as the database's only ingestion writer, in one transaction (joined if one is open).

    With a ClickHouse engine the events and the persons' and groups' new versions gathered in the block are
    inserted into ClickHouse just before the commit (:mod:`local_backend.store.engine.clickhouse.pending_writes`):
    if that fails, nothing of the block is stored in either.
    """
    if conn.in_transaction:
        with transaction(conn):
            yield conn
        return
    with _lock_for(_database_file(conn)):
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
        with transaction(conn), _engine_writes(conn) as writes:
            yield conn
            final = writes.before_commit()
            if final:
                crash_point("sqlite-written")
        if final:
            crash_point("sqlite-committed")
        writes.after_commit()


def settle_interrupted_writes(conn: sqlite3.Connection) -> None:
    """Take back the ClickHouse rows of writes a crash cut short, now rather than at the next write: a server
    does it as it starts, a bulk load before it reads what is stored (no-op on the SQLite engine)."""
    if interrupted_writes(conn) and not conn.in_transaction:
        with write_transaction(conn):  # its engine writes take back what a crash cut short
            pass


class _Job:
    """One request's work in a group, and what became of it."""

    __slots__ = ("work", "done", "result", "error")

    def __init__(self, work: Callable[[sqlite3.Connection], Any]) -> None:
        self.work = work
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None


class SharedWriter:
    """One long-lived connection for a server's capture requests, used by one group of requests at a time.

    Opening a connection per request costs about as much as storing a small batch, and a new connection
    starts with a cold page cache; capture requests share this one instead. It closes with its owner (the
    app), when the object is collected.
    """

    def __init__(self, path: Path | str, engine: EventEngine) -> None:
        self._path = path
        self._engine = engine
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._queue: list[_Job] = []
        self._queue_changed = threading.Condition()
        self._leading = False  # a thread is storing a group

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                self._conn = open_database(self._path, self._engine)
                # Savepoints keep the pages they change in a sub-journal: in memory it costs next to nothing,
                # in a temporary file it cost a fifth of the throughput (measured, batches of 100 events).
                self._conn.execute("PRAGMA temp_store = MEMORY")
            yield self._conn

    @property
    def waiting(self) -> int:
        """Calls queued for the next group (not counting the group being stored)."""
        with self._queue_changed:
            return len(self._queue)

    def submit(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work(conn)`` in a write transaction and return its result once that transaction is committed.

        Calls that arrive while a group is being stored wait, and the first of them to wake stores all the
        waiting ones as the next group. ``work`` runs inside a savepoint: if it raises, its own writes are
        undone, the exception is raised here, and the rest of the group is stored all the same.
        """
        job = _Job(work)
        with self._queue_changed:
            self._queue.append(job)
            while self._leading and not job.done:
                self._queue_changed.wait()
            if not job.done:
                self._leading = True
        if not job.done:
            try:
                self._store_groups(until=job)
            finally:
                with self._queue_changed:
                    self._leading = False
                    self._queue_changed.notify_all()
        if job.error is not None:
            raise job.error
        return job.result

    def _take(self, limit: int) -> list[_Job]:
        with self._queue_changed:
            taken, self._queue = self._queue[:limit], self._queue[limit:]
            return taken

    def _store_groups(self, *, until: _Job) -> None:
        """Store what is queued, a group at a time, until ``until`` is done (then another waiter leads)."""
        while not until.done:
            group = self._take(MAX_GROUP_REQUESTS)
            if not group:  # cannot happen: an unfinished call is queued until a leader takes it
                raise RuntimeError("the writer's queue lost a call")
            try:
                with self.connection() as conn, write_transaction(conn):
                    for job in group:
                        self._run(conn, job)
                    # Requests that queued meanwhile join before the commit, up to the group's limit.
                    while len(group) < MAX_GROUP_REQUESTS and (late := self._take(MAX_GROUP_REQUESTS - len(group))):
                        group += late
                        for job in late:
                            self._run(conn, job)
            except BaseException as error:  # the transaction is gone: nothing of the group was stored
                for job in group:
                    job.error, job.result = error, None
            with self._queue_changed:
                for job in group:
                    job.done = True
                self._queue_changed.notify_all()

    @staticmethod
    def _run(conn: sqlite3.Connection, job: _Job) -> None:
        conn.execute(f"SAVEPOINT {_SAVEPOINT}")
        writes = transaction_writes(conn)
        mark = writes.mark()
        try:
            job.result = job.work(conn)
        except Exception as error:
            job.error = error
            writes.rollback_to(mark)
            if not conn.in_transaction:  # SQLite rolled the whole transaction back: the group must fail
                conn.execute("BEGIN")  # an empty one, for the enclosing transaction's ROLLBACK to end
                raise
            conn.execute(f"ROLLBACK TO {_SAVEPOINT}")
        conn.execute(f"RELEASE {_SAVEPOINT}")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
