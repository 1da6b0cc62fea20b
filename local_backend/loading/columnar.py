"""Bulk load into a chdb engine a column at a time: ClickHouse reads the file, Python only decides persons.

The row-by-row loader (:mod:`.loader`) reads, checks and hashes every event in Python, which caps a load near
100,000 events/s. For a JSON Lines or Parquet file going into a chdb project without plugins, this module does
the same work in columns instead:

1. ClickHouse reads the whole file into a staging table (``_load_<id>`` beside ``events``,
   :mod:`local_backend.store.engine.clickhouse.loader.staging`): each row's number, name, distinct id (cut to 200
   characters), time in UTC microseconds (capped at the load's time when more than 23 hours ahead), properties as the
   JSON text of the file, uuid (given, or derived from the content), and the reason it cannot be an event, if any: the
   checks of :func:`~.prepare.prepare_batch`. The properties are parsed once, into names and raw values, and everything
   else that needs them comes from that one parse: the check that they are an object, the stored hot columns and
   ``session_id`` (:mod:`..store.engine.clickhouse.raw_values`), ``$groups``, the group type a ``$groupidentify`` names,
   whether the event may change persons, and its shape for the definitions (step 4).
2. Rows already stored (by uuid) or repeated in the file are set aside in one query.
3. Batch by batch, in file order, in one SQLite transaction each: Python fetches the batch's distinct ids and
   times (Arrow columns, no properties), runs the person rules one event at a time only for the events that
   identify, alias, set person properties or identify a group (their properties fetched for them alone),
   creates a bare person in bulk for each new distinct id whose first event is none of those
   (:meth:`~..store.person_book.PersonBook.plan_bare`), maps every event to its person with one vectorised lookup,
   and ClickHouse copies the batch from the staging table into ``events`` joined with that map, before the
   SQLite commit (as capture does). ClickHouse makes the bare persons' uuids (SHA-1) along with the batch, and
   what earlier batches read and wrote (distinct ids, merges, groups) is remembered, so SQLite is asked only
   about the rest (:mod:`..store.run_memory`). A worker thread fetches the next batch while the persons go
   into SQLite, then copies while Python decides the next batch's persons (:func:`_write`).
4. Event and property definitions come from aggregates over the batch, not from each row: property types from
   the first event of each shape (its property names and which of them hold a typed value).

A file this module cannot take as it is (other columns, which become properties; non-text Parquet columns;
a line ClickHouse cannot read; properties naming a key twice in one object, whose last value Python keeps and
stores alone, where ClickHouse's JSON functions would read the first) is loaded by the row-by-row loader instead,
with the same outcome.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from tqdm import tqdm

from ..ingestion.bulk import changes_persons
from ..ingestion.definitions import DefinitionsWriter
from ..ingestion.groups import GroupBook
from ..ingestion.person_events import PERSON_KEYS, person_and_groups
from ..ingestion.timestamps import to_micros
from ..ingestion.wire import WireEvent
from ..ingestion.writer import settle_interrupted_writes, transaction_writes, write_transaction
from ..plugins.pipeline import load_enabled_plugins
from ..store.engine.clickhouse.client import require
from ..store.engine.clickhouse.engine import client_for
from ..store.engine.clickhouse.loader.abandoned_stages import drop_abandoned_stages
from ..store.engine.clickhouse.loader.file_source import file_source
from ..store.engine.clickhouse.loader.staging import Stage
from ..store.engine.clickhouse.pending_writes import PendingWrites
from ..store.engine.clickhouse.stored_columns import stored_columns
from ..store.engine.connection import engine_of
from ..store.person_book import PersonBook
from ..store.run_memory import RunMemory
from .loader import LoadReport, rare_collections
from .readers import EventsFile

__all__ = ["COLUMNAR_BATCH", "load_columnar"]

COLUMNAR_BATCH = 250_000  # events per transaction at least: ClickHouse wants few large inserts
# Batches at most, the batch growing past COLUMNAR_BATCH for a larger file. Each commit writes every page of the
# persons' uuid index and distinct ids' key that the batch's inserts touched, and inserts at random places touch
# nearly all of them: a commit costs in proportion to the tables, so with a fixed batch the commits of a load grew
# with the square of its size.
COLUMNAR_BATCHES = 20
# SQLite's page cache and memory map while the persons are written: each batch inserts tens of thousands of
# persons at random places of the persons' uuid index and the distinct ids' key, which at 20M events (about
# 2.8M persons) hold some 300 MB. With the usual 16 MiB cache most inserts missed it, and the cost per person
# grew with the tables (measured: the persons' writes took 19 µs per person at 5M against 13 with 256 MiB).
# The cache takes memory only as pages are read.
LOAD_CACHE_KIB = 1024 * 1024
LOAD_MMAP_BYTES = 0x7FFF0000  # SQLite's largest


def load_columnar(
    conn: sqlite3.Connection,
    project: Mapping[str, Any],
    events_file: EventsFile,
    *,
    now: datetime,
    batch_size: int,
    progress: bool = False,
) -> LoadReport | None:
    """Load ``events_file`` column at a time when it can be (see the module docstring); None when it cannot."""
    if events_file.format not in ("jsonl", "parquet") or not engine_of(conn).reads_files:
        return None
    project_id = int(project["id"])
    if load_enabled_plugins(conn, project_id):
        return None
    source = file_source(events_file.path, events_file.format)
    if source is None:
        return None
    client = client_for(conn)
    started = time.perf_counter()
    settle_interrupted_writes(conn)  # before the fill reads which events are stored
    drop_abandoned_stages(client)  # left by a load that was killed
    stage = Stage(client, project_id)
    try:
        for typed in (False, True):
            try:
                with _reading_bar(events_file.path.name, progress) as report:
                    read = file_source(events_file.path, events_file.format, typed=True) if typed else source
                    stage.fill(read, typed=typed,
                               json_text=events_file.format == "jsonl" and not typed, received=to_micros(now),
                               stored=stored_columns(client), report=report)  # fmt: skip
            except Exception as error:
                if "DB::Exception" not in str(error):
                    raise
                return None  # a line ClickHouse cannot read: the row-by-row loader reports it in its place
            if not stage.may_hold_typed_values():
                break
            stage.drop()  # a number, boolean, array or object may have been read as text: read again with types
            stage = Stage(client, project_id)
        if stage.has_other_time_forms():
            return None  # an ISO 8601 form only Python reads: the row-by-row loader reads the file
        if stage.has_repeated_names():
            return None  # Python keeps a repeated name's last value, JSON functions the first: stored as Python reads
        counts = stage.counts()
        report = LoadReport(read=counts.read, rejected=counts.rejected, duplicates=counts.duplicates)
        for row, reason in counts.rejections:
            report.add_rejection(row, reason)
        with _load_pragmas(conn), rare_collections():
            _store(conn, project_id, stage, report, _batch_size(stage.rows, batch_size), to_micros(now), progress,
                   events_file.path.name)  # fmt: skip
    finally:
        stage.drop()
        report_seconds = time.perf_counter() - started
    report.seconds = report_seconds
    return report


def _batch_size(rows: int, asked: int) -> int:
    """Events per batch: at least ``asked`` and :data:`COLUMNAR_BATCH`, and few enough for at most
    :data:`COLUMNAR_BATCHES` batches."""
    return max(asked, COLUMNAR_BATCH, -(-rows // COLUMNAR_BATCHES))


@contextmanager
def _reading_bar(name: str, progress: bool) -> Iterator[Callable[[int, int], None]]:
    """A bar of the file's bytes as ClickHouse reads them into the staging table (a minute or more for tens of
    millions of events, before the first batch); yields what ClickHouse reports to."""
    with tqdm(desc=f"{name} (reading)", unit="B", unit_scale=True, file=sys.stderr, disable=not progress) as bar:

        def report(read: int, total: int) -> None:
            if total and bar.total != total:
                bar.total = total
            bar.update(min(read, total or read) - bar.n)

        yield report
        if bar.total:  # read whole (a Parquet file's count of bytes read stops short of its size)
            bar.update(bar.total - bar.n)


@contextmanager
def _load_pragmas(conn: sqlite3.Connection) -> Iterator[None]:
    """:data:`LOAD_CACHE_KIB` and :data:`LOAD_MMAP_BYTES` on ``conn`` for the block, and no foreign key checks,
    set back after.

    The load writes each batch's persons before the distinct ids that name them, in one transaction, so the
    checks cannot fail; they cost a lookup of the person for each distinct id written (measured: about a third
    of the time the distinct ids' inserts took, some 2 s at 5M events)."""
    pragmas = {"cache_size": f"-{LOAD_CACHE_KIB}", "mmap_size": str(LOAD_MMAP_BYTES), "foreign_keys": "OFF"}
    before = {name: int(conn.execute(f"PRAGMA {name}").fetchone()[0]) for name in pragmas}
    for name, value in pragmas.items():
        conn.execute(f"PRAGMA {name} = {value}")
    try:
        yield
    finally:
        for name, value in before.items():
            conn.execute(f"PRAGMA {name} = {value}")


@dataclass
class _Fetched:
    """What the person rules read of one batch of kept rows: the rows (row, distinct id, time, name, uuid,
    flag), the properties of the rows that may change persons, and the group types the rows name."""

    first: int
    last: int
    batch: Any
    texts: dict[int, str]
    group_types: list[str]


@dataclass
class _Decided:
    """One batch with its persons decided in memory (nothing written yet), and what they were decided from."""

    fetched: _Fetched
    first: int
    last: int
    batch: Any
    persons: PersonBook
    groups: GroupBook
    definitions: DefinitionsWriter
    person_ids: Any


def _store(
    conn: sqlite3.Connection,
    project_id: int,
    stage: Stage,
    report: LoadReport,
    batch_size: int,
    created_at: int,
    progress: bool,
    description: str,
) -> None:
    spans = [(first, min(first + batch_size - 1, stage.rows)) for first in range(1, stage.rows + 1, batch_size)]
    with (
        tqdm(total=stage.rows, unit="ev", desc=description, file=sys.stderr, disable=not progress) as bar,
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="columnar-copy") as copier,
    ):
        memory = RunMemory(conn, project_id)

        def decide(fetched: _Fetched | None) -> _Decided | None:
            return None if fetched is None else _decide(conn, project_id, memory, fetched)

        decided = decide(_fetch(stage, spans[0])) if spans else None
        for number, (_, last) in enumerate(spans):
            following = spans[number + 1] if number + 1 < len(spans) else None
            if decided is None:  # every row of the batch set aside
                decided = decide(_fetch(stage, following)) if following else None
            else:
                count = decided.batch.num_rows
                with write_transaction(conn):
                    if memory.stale():  # another connection committed after the batch was decided: decide again
                        decided = _decide(conn, project_id, memory, decided.fetched)
                    decided, failure = _write(conn, project_id, stage, decided, created_at, copier, following, decide)
                report.loaded += count
                if failure is not None:  # deciding the next batch failed once this one was stored
                    raise failure
            bar.update(last - bar.n)


def _fetch(stage: Stage, span: tuple[int, int]) -> _Fetched | None:
    """The kept rows of ``span`` (first and last row) and what the person rules read of them; None if none."""
    first, last = span
    batch = stage.batch(first, last)
    if not batch.num_rows:
        return None
    texts = stage.properties(first, last) if require("pyarrow.compute").max(batch["maybe_person"]).as_py() else {}
    return _Fetched(first, last, batch, texts, stage.group_types(first, last))


def _decide(conn: sqlite3.Connection, project_id: int, memory: RunMemory, fetched: _Fetched) -> _Decided:
    """The person rules for a fetched batch, in file order, in memory (reading SQLite, not ClickHouse).

    Only the events that may change persons go through the rules one by one; a new distinct id's first event
    otherwise creates a bare person in bulk (:meth:`PersonBook.plan_bare`). Every event's person is then its
    distinct id's person at the end of the batch, merges applied. ``memory`` holds what the earlier batches
    read and wrote, so that SQLite is asked only about the rest."""
    memory.check()
    pa, pc = require("pyarrow"), require("pyarrow.compute")
    batch, texts = fetched.batch, fetched.texts
    rows = batch["row"].to_numpy()
    distinct_ids = batch["distinct_id"]
    timestamps = batch["ts"].to_numpy()
    # one hashing of the ids: the distinct ones in order of first sight, and each event's index among them
    encoded = pc.dictionary_encode(distinct_ids.combine_chunks())
    unique_ids, codes = encoded.dictionary.to_pylist(), encoded.indices.to_numpy()
    persons, groups, definitions = (
        PersonBook(conn, project_id, memory),
        GroupBook(conn, project_id, memory),
        DefinitionsWriter(project_id),
    )
    persons.prefetch(unique_ids)
    # a distinct id already stored keeps its person: only a new one's first event can create a person
    known = persons.known
    # an id's first event is where its index first appears: the indices first appear in increasing order
    first_positions = np.flatnonzero(codes > np.maximum.accumulate(np.concatenate(([-1], codes[:-1]))))
    firsts = first_positions[[distinct_id not in known for distinct_id in unique_ids]].tolist()
    maybe = pc.indices_nonzero(pc.not_equal(batch["maybe_person"], 0)).to_numpy()
    for group_type in fetched.group_types:  # indexes as the events meet them, before anything else
        groups.index_of(group_type)
    # the first events of new distinct ids that carry nothing for persons create bare persons in bulk; the
    # others go through the rules one by one (their columns taken out as Python values, no more)
    special = set(maybe.tolist())
    bare = sorted(i for i in firsts if i not in special)
    taken = pa.array(bare, pa.int64())
    persons.plan_bare(pc.take(distinct_ids, taken).to_pylist(), bare, timestamps[bare].tolist(),
                      pc.take(batch["person_uuid"], taken).to_pylist())  # fmt: skip
    names, ids = pc.take(batch["event"], maybe).to_pylist(), pc.take(distinct_ids, maybe).to_pylist()
    uuids = None
    for k, (i, row, timestamp) in enumerate(zip(maybe.tolist(), rows[maybe].tolist(), timestamps[maybe].tolist(),
                                                strict=True)):  # fmt: skip
        persons.at(i)
        properties = json.loads(texts[row]) if row in texts else None
        if properties is not None and changes_persons(names[k], properties):
            if uuids is None:
                uuids = pc.take(batch["uuid"], maybe).to_pylist()
            wanted = {key: properties[key] for key in PERSON_KEYS if key in properties}
            person_and_groups(WireEvent(uuids[k], names[k], ids[k], timestamp, wanted), persons, groups, definitions)
        else:
            persons.person_for(ids[k], timestamp)
    persons.create_planned()
    people = pa.array(persons.persons_now(unique_ids), pa.int64())
    person_ids = pc.take(people, encoded.indices)
    return _Decided(fetched, fetched.first, fetched.last, batch, persons, groups, definitions, person_ids)


def _write(
    conn: sqlite3.Connection,
    project_id: int,
    stage: Stage,
    decided: _Decided,
    created_at: int,
    copier: ThreadPoolExecutor,
    upcoming: tuple[int, int] | None,
    decide: Callable[[_Fetched | None], _Decided | None],
) -> tuple[_Decided | None, BaseException | None]:
    """Store one decided batch inside the caller's transaction, and return the ``upcoming`` span (first and last
    row) decided meanwhile, or the error deciding it raised (Ctrl-C included): the batch is stored all the same
    once its copy is done, since ClickHouse cannot take the copy back with the transaction.

    A worker thread fetches the upcoming batch from ClickHouse while persons and groups go into SQLite here
    (chdb and SQLite both release the GIL while a statement runs); then the worker puts them into ClickHouse
    and copies the batch's events after them, while this thread decides the next batch's persons (reading the
    persons just written, in this same transaction). The definitions are written last, once the copy is done,
    so the commit that follows covers a batch whose events are all stored."""
    pa = require("pyarrow")
    fetching = copier.submit(_fetch, stage, upcoming) if upcoming else None
    try:
        person_changes, group_rows = decided.persons.flush(), decided.groups.flush()
        pending = transaction_writes(conn)
        if not isinstance(pending, PendingWrites):
            raise TypeError("a column-at-a-time load writes to a ClickHouse engine")
        # persons and groups copies and merges go with the transaction's own insert
        pending.add_merges(project_id, person_changes.merges)
        pending.add_persons(project_id, person_changes.persons)
        pending.add_groups(project_id, group_rows)
        mapping = pa.table({"row": decided.batch["row"], "person_id": decided.person_ids})
        known_types = decided.groups.known_types()

        def to_clickhouse() -> list[tuple[str, str, str]]:
            pending.note_copy(project_id, stage.tables, decided.first, decided.last, created_at)
            pending.flush()  # journaled with the copy; before the events, so no event is read before its person
            stage.set_persons(mapping)
            stage.copy(known_types, decided.first, decided.last, created_at)
            return stage.property_samples(decided.first, decided.last)

        fetched = fetching.result() if fetching is not None else None  # a failed fetch stops before the copy
    finally:
        if fetching is not None:
            wait([fetching])  # nothing of the worker's outlives the transaction
    copying = copier.submit(to_clickhouse)
    decided_next, failure = None, None
    try:
        decided_next = decide(fetched)
    except BaseException as error:  # raised by the caller once this batch is stored
        failure = error
    wait([copying])  # the transaction ends only after the copy, whichever way the deciding went
    samples = copying.result()
    _definitions(decided.definitions, decided.batch, samples)
    decided.definitions.flush(conn)
    return decided_next, failure


def _definitions(definitions: DefinitionsWriter, batch: Any, property_samples: list[tuple[str, str, str]]) -> None:
    spans = batch.group_by("event", use_threads=False).aggregate([("ts", "count"), ("ts", "min"), ("ts", "max")])
    for name, count, low, high in zip(*(spans[c].to_pylist() for c in ("event", "ts_count", "ts_min", "ts_max")),
                                      strict=True):  # fmt: skip
        definitions.add_event_span(name, int(count), int(low), int(high))
    samples: dict[str, Any] = {}
    for key, typed, raw in property_samples:
        try:
            samples[key] = json.loads(typed or raw)
        except ValueError:
            continue
    definitions.add_properties(samples)
