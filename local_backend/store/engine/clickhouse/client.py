"""The few operations the ClickHouse event engine needs from a connection, whatever carries them.

Two implementations share this interface: :class:`ChdbClient` runs ClickHouse inside this process (the
``chdb`` package, data kept in a folder), and a clickhouse-connect client speaks to a server or a cluster over
HTTP. SQL reaches both as text with server-side parameters, ``{name:Type}`` placeholders bound from
``params``; a user's value is never pasted into the text. A read may be given ``timeout`` seconds: ClickHouse
stops the statement itself once they have passed (``max_execution_time``, raising ``TIMEOUT_EXCEEDED``), which
is how a calculation's time limit reaches a statement no thread can interrupt.
"""

from __future__ import annotations

import atexit
import importlib
import math
import os
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

import numpy

from ....errors import APIError

__all__ = [
    "ClickHouseClient",
    "ChdbClient",
    "EngineBusy",
    "MissingExtra",
    "require",
    "bind_text",
    "timeout_settings",
    "EXTRA",
    "MAX_SESSIONS",
]

EXTRA = "insightlab[clickhouse]"
# what ClickHouse's escaped text format needs escaped in a value (a backslash, tab, newline, carriage return or NUL
# would otherwise cut it short or be refused; quotes matter inside arrays)
ESCAPED = {"\\": "\\\\", "'": "\\'", "`": "\\`", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\0": "\\0"}
# sessions one chdb folder may have open at once: statements beyond that many wait for one to finish
MAX_SESSIONS = 16
RESET_LIMIT = "SET max_execution_time = 0"
# the shortest limit a statement is given: a run with less time left has already been stopped between statements
MIN_TIMEOUT_SECONDS = 0.001


class MissingExtra(APIError):
    """A ClickHouse engine was asked for but the packages it runs on are not installed."""

    status = 500
    type = "server_error"
    default_code = "engine_unavailable"

    def __init__(self, package: str) -> None:
        super().__init__(f"The ClickHouse engine needs the {package!r} package: pip install '{EXTRA}'.")


def require(package: str) -> Any:
    """Import ``package`` or raise :class:`MissingExtra` naming the extra that brings it."""
    try:
        return importlib.import_module(package)
    except ImportError:
        raise MissingExtra(package) from None


def timeout_settings(timeout: float | None) -> dict[str, Any]:
    """The settings that make ClickHouse stop a statement after ``timeout`` seconds (none for None).

    >>> timeout_settings(2.5)
    {'max_execution_time': 2.5, 'timeout_overflow_mode': 'throw'}
    """
    if timeout is None:
        return {}
    # whole milliseconds, rounded up: ClickHouse never stops a statement before the calculation's own deadline
    seconds = max(math.ceil(float(timeout) * 1000) / 1000, MIN_TIMEOUT_SECONDS)
    return {"max_execution_time": seconds, "timeout_overflow_mode": "throw"}


def bind_text(value: Any, *, nested: bool = False) -> str:
    r"""``value`` as the text ClickHouse parses for a ``{name:Type}`` parameter, as a server reads ``param_name``.

    The value is data, never SQL: at the top a string is sent bare with backslash escapes (a backslash, quote,
    tab or newline comes back as sent); inside an array or tuple it is a quoted literal.

    >>> print(bind_text("it's C:\\new"))
    it\'s C:\\new
    >>> print(bind_text(["a", None, 2]))
    ['a', NULL, 2]
    """
    if value is None:
        return "NULL" if nested else "\\N"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, str):
        escaped = "".join(ESCAPED.get(char, char) for char in value)
        return f"'{escaped}'" if nested else escaped
    if isinstance(value, list):
        return "[" + ", ".join(bind_text(item, nested=True) for item in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(bind_text(item, nested=True) for item in value) + ")"
    return str(value)


class ClickHouseClient(Protocol):
    """A connection to one ClickHouse database (``database``), safe to use from several threads."""

    database: str

    def command(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        """Run a statement that returns nothing (DDL, INSERT ... SELECT, ALTER)."""
        ...

    def query_arrow(self, sql: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """The result as a ``pyarrow.Table`` (columns travel without a loop per row); ClickHouse stops the
        statement after ``timeout`` seconds."""
        ...

    def query_rows(
        self, sql: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> list[tuple[Any, ...]]:
        """The result as a list of tuples, for small answers."""
        ...

    def insert_arrow(self, table: str, data: Any) -> None:
        """Insert a ``pyarrow.Table`` whose column names are ``table``'s columns, as one insert."""
        ...

    def close(self) -> None: ...


class EngineBusy(APIError):
    """The chdb folder is held by another process: embedded ClickHouse lets one process open a folder."""

    status = 409
    default_code = "engine_busy"


def _open_session(session_module: Any, path: str) -> Any:
    try:
        return session_module.Session(path)
    except RuntimeError as error:
        if _held_elsewhere(path) or "Another server instance" in str(error):
            raise EngineBusy(
                f"The chdb folder {path} is open in another process (a running insightlab serve?): stop it first,"
                " or send the events to that server."
            ) from None
        raise EngineBusy(f"The chdb folder {path} cannot be opened: {str(error).splitlines()[0][:300]}") from None


def _held_elsewhere(path: str) -> bool:
    """Whether another process holds the folder's lock (ClickHouse locks ``status`` while it has it open)."""
    import fcntl

    try:
        with open(os.path.join(path, "status"), "rb") as status:
            try:
                fcntl.flock(status, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(status, fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def _progress_reporter(session: Any) -> Any:
    """The chdb connection behind ``session``, which takes a progress callback (a session has no public way to
    it), or None where this chdb has none."""
    connection = getattr(session, "_conn", None)
    return connection if hasattr(connection, "set_progress_callback") else None


def _progress_callback(report: Callable[[int, int], None]) -> Callable[[Mapping[str, Any]], None]:
    """chdb's progress payloads as ``report(bytes read, bytes to read)``."""

    def on_progress(payload: Mapping[str, Any]) -> None:
        try:
            report(int(payload.get("read_bytes", 0)), int(payload.get("total_bytes_to_read", 0)))
        except Exception:  # noqa: BLE001 - showing progress must never stop the statement
            return

    return on_progress


class _SessionPool:
    """The chdb sessions open on one folder: one per statement running at once, up to :data:`MAX_SESSIONS`.

    chdb keeps a statement's parameters and settings on its session, so a session runs one statement at a time;
    sessions on one folder are connections to the same embedded server and run side by side (measured: an
    insert answers in milliseconds while a read on another session runs for seconds, and parameterized reads
    on four sessions at once each get their own answers).
    """

    def __init__(self, session_module: Any, path: str, first: Any) -> None:
        self._session_module = session_module
        self._path = path
        self._idle: queue.LifoQueue[Any] = queue.LifoQueue()
        self._idle.put(first)
        self._opened = 1
        self._guard = threading.Lock()

    @property
    def folder(self) -> str:
        return self._path

    def take(self) -> Any:
        """An idle session, a new one while fewer than :data:`MAX_SESSIONS` are open, or the next one freed."""
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._guard:
            if self._opened < MAX_SESSIONS:
                self._opened += 1
                return _prepared(_open_session(self._session_module, self._path))
        return self._idle.get()

    def give_back(self, session: Any) -> None:
        self._idle.put(session)

    def close(self) -> None:
        """Close the idle sessions (at exit: a statement still running keeps its own)."""
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return


def _prepared(session: Any) -> Any:
    # Arrow answers stay in this process: compressing them (LZ4 by default) is pure cost
    session.query("SET output_format_arrow_compression_method = 'none'")
    return session


class ChdbClient:
    """ClickHouse embedded in this process through chdb, its data kept in ``path``.

    chdb opens one folder per process; clients on the same path share its sessions (:meth:`open`). A statement
    takes a session of its own for its run (:class:`_SessionPool`): chdb keeps a statement's parameters on the
    session, so two statements on one session at once could run with each other's values (measured: wrong
    answers, or "Substitution is not set"), while statements on different sessions run side by side. So
    capture's inserts never wait behind a long calculation, and a statement with a ``timeout`` is stopped by
    ClickHouse when it passes (the setting is the session's for that statement only).
    """

    _sessions: dict[str, Any] = {}  # path -> the first session opened on it
    _pools: dict[str, _SessionPool] = {}
    _guard = threading.Lock()

    def __init__(self, session: Any, database: str, *, pool: _SessionPool | None = None) -> None:
        self._session = session
        self.database = database
        self._pool = pool

    @classmethod
    def open_folder(cls) -> str | None:
        """The chdb folder this process has opened (chdb allows one per process), None before any."""
        with cls._guard:
            return next(iter(cls._sessions), None)

    @property
    def folder(self) -> str | None:
        """The chdb folder this client's database lives in (None for a session handed in by hand)."""
        return self._pool.folder if self._pool is not None else None

    @classmethod
    def open(cls, path: str, database: str = "insightlab") -> ChdbClient:
        session_module = require("chdb.session")
        require("pyarrow")
        with cls._guard:
            session = cls._sessions.get(path)
            if session is None:
                if not cls._sessions:
                    atexit.register(cls._close_all)
                session = cls._sessions[path] = _prepared(_open_session(session_module, path))
                cls._pools[path] = _SessionPool(session_module, path, session)
            pool = cls._pools[path]
        client = cls(session, database, pool=pool)
        client.command(f"CREATE DATABASE IF NOT EXISTS `{database}`")
        return client

    @contextmanager
    def _turn(self) -> Iterator[Any]:
        """A session of this folder to itself for one statement."""
        if self._pool is None:  # a session handed in by hand: its statements take turns on it
            with _lock_of(self._session):
                yield self._session
            return
        session = self._pool.take()
        try:
            yield session
        finally:
            self._pool.give_back(session)

    def _run(
        self,
        sql: str,
        fmt: str,
        params: Mapping[str, Any] | None,
        report: Callable[[int, int], None] | None = None,
        timeout: float | None = None,
    ) -> Any:
        # chdb reads each value as a server reads ``param_NAME``: escaped text, not a Python object
        texts = {name: bind_text(value) for name, value in params.items()} if params else None
        limits = timeout_settings(timeout)
        with self._turn() as session:
            reporter = _progress_reporter(session) if report is not None else None
            if reporter is not None:
                reporter.set_progress_callback(_progress_callback(report))
            if limits:
                session.query("SET " + ", ".join(f"{name} = {_setting_text(value)}" for name, value in limits.items()))
            failed = True
            try:
                result = session.query(sql, fmt, params=texts) if texts else session.query(sql, fmt)
                failed = False
                return result
            finally:
                if limits or failed:
                    # the session's next statement runs without this one's limit; and after a failure, chdb
                    # hands the next statement's caller what the failed one left unsent before its own answer
                    # (measured: an Arrow answer that cannot be read), so a statement runs in between
                    session.query(RESET_LIMIT)
                if reporter is not None:
                    reporter.set_progress_callback(None)

    def command(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        self._run(sql, "CSV", params)

    def command_reporting(
        self, sql: str, report: Callable[[int, int], None], params: Mapping[str, Any] | None = None
    ) -> None:
        """:meth:`command`, calling ``report(bytes read, bytes to read)`` while ClickHouse reads: about ten times a
        second and once at the end (a file's size is known ahead; 0 when nothing is). Where this chdb cannot
        report, the statement runs all the same."""
        self._run(sql, "CSV", params, report)

    def query_arrow(self, sql: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        pyarrow = require("pyarrow")
        result = self._run(sql, "Arrow", params, timeout=timeout)
        wrapper = result.get_memview()
        view = wrapper.view()
        if not view.nbytes:
            return pyarrow.table({})
        # the columns are read where chdb wrote them, without a copy: the buffer keeps the result alive (a
        # bare memoryview of it would not)
        address = numpy.frombuffer(view, dtype=numpy.uint8).ctypes.data
        return pyarrow.ipc.open_file(pyarrow.foreign_buffer(address, view.nbytes, base=(result, wrapper))).read_all()

    def query_rows(
        self, sql: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> list[tuple[Any, ...]]:
        table = self.query_arrow(sql, params, timeout=timeout)
        return list(zip(*(column.to_pylist() for column in table.columns), strict=True)) if table.num_columns else []

    def insert_arrow(self, table: str, data: Any) -> None:
        """Insert ``data`` into ``table`` (a name in this database, or ``db.table``) as one insert.

        The Arrow columns are matched to the table's by name; a column left out takes its default.
        """
        # chdb reads a Python object named in the query; the name below is the argument's
        arrow_table = data  # noqa: F841 - read by chdb's Python() table function
        target = table if "." in table else f"`{self.database}`.{table}"  # a bare name is in this database
        # named columns, so the Arrow columns may come in any order; the others (and MATERIALIZED ones) take
        # their defaults, as on a server
        columns = ", ".join(f"`{name}`" for name in data.column_names)
        with self._turn() as session:
            try:
                session.query(f"INSERT INTO {target} ({columns}) SELECT {columns} FROM Python(arrow_table)")
            except Exception:
                session.query(RESET_LIMIT)  # what the failed insert left unsent goes before the next answer
                raise

    def close(self) -> None:
        """Sessions stay open for the process (chdb opens one folder per process); nothing to release per client."""

    @classmethod
    def _close_all(cls) -> None:
        """Close every session as the process exits, while chdb is whole: a session closed during the
        interpreter's teardown may find chdb's server already gone (a crash on the way out)."""
        with cls._guard:
            for pool in cls._pools.values():
                pool.close()
            cls._pools.clear()
            cls._sessions.clear()


_hand_locks: dict[int, threading.Lock] = {}  # id of a session handed in by hand -> the lock its statements take


def _lock_of(session: Any) -> threading.Lock:
    with ChdbClient._guard:
        return _hand_locks.setdefault(id(session), threading.Lock())


def _setting_text(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else str(value)
