"""Persons as ingestion changes them: distinct ids, ``$set`` / ``$set_once`` / ``$unset``, merges.

A :class:`PersonBook` holds one project's persons for the length of one ingestion call: it answers "which
person is this distinct id" from memory after one bulk lookup, keeps every change in memory, and writes them
all in :meth:`PersonBook.flush`, inside the caller's transaction. The rules are PostHog's:

- a new distinct id gets a new person, created at the event's time with the event's ``$set_once`` and
  ``$set`` as its properties;
- every event applies ``$set_once`` (only keys the person lacks), then ``$set``, then ``$unset`` (a list of
  keys, or an object whose keys are removed);
- ``$identify`` (``$anon_distinct_id``) and ``$create_alias`` / ``$merge_dangerously`` (``alias``) join the
  other distinct id to the event's distinct id. When both already have different persons, the other person
  is merged into the event's person: its distinct ids move, its events are rewritten to the surviving
  person, properties combine with the surviving person's values winning, the earlier ``created_at`` is kept,
  and the merged person is deleted. A person already identified is never merged away by ``$identify`` or
  ``$create_alias`` (only by ``$merge_dangerously``). Generic ids such as ``anonymous`` or ``null`` never
  merge. The person of an identify or alias event is marked ``is_identified``.

The parts of these rules that need no storage (a person's uuid, the ids that never merge, the property updates)
are :mod:`.person_rules`.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .person_rules import apply_property_updates, is_illegal_distinct_id, person_uuid
from .run_memory import RunMemory
from .write_marks import PERSON_ID, raise_mark, read_mark

__all__ = ["PersonBook", "PersonChanges"]

# a person's properties as stored: what json.dumps(value, separators=(",", ":"), default=str) makes, without a new
# encoder for each person
_ENCODER = json.JSONEncoder(separators=(",", ":"), default=str)


@dataclass
class PersonChanges:
    """What :meth:`PersonBook.flush` wrote: persons created or changed ``(id, uuid, properties JSON, created_at)``
    and merges ``(surviving person, person merged away)``."""

    persons: list[tuple[int, str, str, int]]
    merges: list[tuple[int, int]]


_PersonRow = tuple[int, int, str, str, int, int]  # id, project, uuid, properties, is_identified, created_at


@dataclass
class _BarePlan:
    """Bare persons to create (see :meth:`PersonBook.plan_bare`): each distinct id, its event's position, time,
    and the person's uuid when the caller has made it (:func:`person_uuid`)."""

    distinct_ids: list[str]
    positions: list[int]
    timestamps: list[int]
    uuids: list[str] | None = None


@dataclass
class _Person:
    id: int
    uuid: str
    properties: dict[str, Any]
    is_identified: bool
    created_at: int
    stored: bool
    dirty: bool = False


class PersonBook:
    """One project's persons during one ingestion call; see the module docstring for the rules."""

    def __init__(self, conn: sqlite3.Connection, project_id: int, memory: RunMemory | None = None) -> None:
        self.conn = conn
        self.project_id = project_id
        self._memory = memory  # what a bulk load's earlier batches wrote (see :mod:`.run_memory`)
        self._person_of: dict[str, int] = {}  # distinct id -> person id at the time it was read or assigned
        self._absent: set[str] = set()
        self._persons: dict[int, _Person] = {}
        self._merged_into: dict[int, int] = {}
        self._mappings: dict[str, int] = {}  # distinct ids whose row is new or changed
        self._absorbed: list[int] = []  # stored persons merged away
        self._last_id: int | None = None  # the largest person id before this call's creations, once read
        self._highest = 0  # the largest person id this call handed out
        self._created_by_rules = 0
        # bare persons (see plan_bare): the events' positions, the rules' creations' positions, the planned ids
        self._position = 0
        self._plan = _BarePlan([], [], [])
        self._rule_positions: list[int] = []
        self._planned: dict[str, int] = {}  # distinct id -> its index in the plan, while not created
        # bare persons created, not yet written: id -> (distinct id, created_at, uuid or None if not made yet);
        # one becomes a full :class:`_Person` only if something reads or changes it
        self._bare: dict[int, tuple[str, int, str | None]] = {}
        self.created = 0
        self.merged = 0

    # --- reading -------------------------------------------------------------------------------------------

    @property
    def known(self) -> Mapping[str, int]:
        """Distinct id -> person id as read or assigned in this call; current only while ``merged`` is 0."""
        return self._person_of

    def prefetch(self, distinct_ids: Iterable[str]) -> None:
        """Look up many distinct ids at once, so the per-event path never queries."""
        wanted = [d for d in set(distinct_ids) if d not in self._person_of and d not in self._absent]
        if wanted and self._memory is not None:
            wanted = self._memory.recall_persons(wanted, self._person_of, self._absent)
        if not wanted:
            return
        # one query for any number of ids: the list travels as one JSON parameter
        rows = self.conn.execute(
            "SELECT distinct_id, person_id FROM person_distinct_ids"
            " WHERE project_id = ? AND distinct_id IN (SELECT value FROM json_each(?))",
            (self.project_id, json.dumps(wanted)),
        ).fetchall()
        for distinct_id, person_id in rows:
            self._person_of[distinct_id] = person_id
        if self._memory is not None:
            self._memory.remember_persons(rows, ())
        self._absent.update(set(wanted) - {row[0] for row in rows})

    def lookup(self, distinct_id: str) -> int | None:
        """The person a distinct id belongs to now, or None."""
        person_id = self._person_of.get(distinct_id)
        if person_id is None:
            if distinct_id in self._planned and self._plan.positions[self._planned[distinct_id]] < self._position:
                return self._create_planned([self._planned[distinct_id]])[0]
            if distinct_id in self._absent:
                return None
            self.prefetch([distinct_id])
            person_id = self._person_of.get(distinct_id)
            if person_id is None:
                return None
        return self.resolve(person_id) if self._merged_into else person_id

    def resolve(self, person_id: int) -> int:
        """The surviving person of ``person_id`` after this call's merges."""
        while person_id in self._merged_into:
            person_id = self._merged_into[person_id]
        return person_id

    def _load(self, person_id: int) -> _Person:
        person = self._persons.get(person_id)
        if person is None and person_id in self._bare:
            distinct_id, created_at, made = self._bare.pop(person_id)
            person = _Person(person_id, made or person_uuid(self.project_id, distinct_id), {}, False, created_at, False)
            self._persons[person_id] = person
        elif person is None:
            row = self.conn.execute(
                "SELECT id, uuid, properties, is_identified, created_at FROM persons WHERE id = ?", (person_id,)
            ).fetchone()
            if row is None:  # a mapping to a person that is gone: treat the person as empty
                person = _Person(person_id, str(uuid.uuid4()), {}, False, 0, stored=False, dirty=True)
            else:
                properties = json.loads(row[2]) if row[2] else {}
                person = _Person(
                    row[0], row[1], properties if isinstance(properties, dict) else {}, bool(row[3]), row[4], True
                )
            self._persons[person_id] = person
        return person

    # --- changing ------------------------------------------------------------------------------------------

    def _base(self) -> int:
        """The largest person id handed out before this call: stored now, or once (merged away, deleted, or
        rolled back with its transaction; ClickHouse's overrides may still name it), so never handed out again."""
        if self._last_id is None:
            stored = int(self.conn.execute("SELECT COALESCE(MAX(id), 0) FROM persons").fetchone()[0])
            self._last_id = max(stored, read_mark(self.conn, PERSON_ID))
        return self._last_id

    def _next_id(self) -> int:
        """The id of a person the rules create at the current position: after every planned bare person before
        it, and every person the rules created before."""
        person_id = self._base() + 1 + bisect_left(self._plan.positions, self._position) + self._created_by_rules
        self._created_by_rules += 1
        self._rule_positions.append(self._position)
        self._highest = max(self._highest, person_id)
        return person_id

    def _create(self, distinct_ids: list[str], created_at: int, *, identified: bool) -> int:
        person_id = self._next_id()
        made = person_uuid(self.project_id, distinct_ids[0])
        self._persons[person_id] = _Person(person_id, made, {}, identified, created_at, stored=False)
        for distinct_id in distinct_ids:
            self._assign(distinct_id, person_id)
        self.created += 1
        return person_id

    def _assign(self, distinct_id: str, person_id: int) -> None:
        self._person_of[distinct_id] = person_id
        self._absent.discard(distinct_id)
        self._mappings[distinct_id] = person_id

    def person_for(self, distinct_id: str, timestamp: int) -> int:
        """The distinct id's person, created now (at ``timestamp``) if the id is new."""
        person_id = self.lookup(distinct_id)
        if person_id is None:
            person_id = self._create([distinct_id], timestamp, identified=False)
        return person_id

    # --- bare persons, in bulk ----------------------------------------------------------------------------

    def plan_bare(
        self, distinct_ids: list[str], positions: list[int], timestamps: list[int], uuids: list[str] | None = None
    ) -> None:
        """Plan what :meth:`person_for` would do at each of these events, which carry nothing for persons: a new
        person with no properties for the distinct id, unless the id is assigned before its event. ``positions``
        (ascending) place the events among those the caller then passes through the rules, each after
        :meth:`at` its position; :meth:`create_planned` then creates the rest at once, with the ids they would
        have had one by one. Without an object per person: a bulk load creates hundreds of thousands. ``uuids``,
        when given, are each distinct id's :func:`person_uuid`, made by the caller in bulk."""
        self._plan = _BarePlan(distinct_ids, positions, timestamps, uuids)
        self._planned = dict(zip(distinct_ids, range(len(distinct_ids)), strict=True))

    def at(self, position: int) -> None:
        """The position of the event the rules see next, among those of :meth:`plan_bare`."""
        self._position = position

    def create_planned(self) -> None:
        """Create the planned bare persons of ids still unassigned; the plan ends."""
        person_of = self._person_of
        self._create_all_planned([i for distinct_id, i in self._planned.items() if distinct_id not in person_of])
        self._last_id = self._base() + len(self._plan.positions) + self._created_by_rules
        self._plan, self._planned, self._rule_positions, self._created_by_rules = _BarePlan([], [], []), {}, [], 0

    def _create_planned(self, indexes: list[int]) -> list[int]:
        """Create the planned persons of these plan indexes (one at a time as the rules read them, or the rest
        at once): each gets the id it would have had one by one, among the persons the rules created."""
        plan, base, rules = self._plan, self._base() + 1, self._rule_positions
        distinct_ids, positions, timestamps, uuids = plan.distinct_ids, plan.positions, plan.timestamps, plan.uuids
        person_of, mappings, absent, bare = self._person_of, self._mappings, self._absent, self._bare
        ids = []
        for i in indexes:  # a plain loop: most calls are for one person, where building lists costs more
            distinct_id = distinct_ids[i]
            person_id = base + i + bisect_left(rules, positions[i])
            person_of[distinct_id] = mappings[distinct_id] = person_id
            absent.discard(distinct_id)
            bare[person_id] = (distinct_id, timestamps[i], None if uuids is None else uuids[i])
            del self._planned[distinct_id]
            ids.append(person_id)
        self._highest = max(self._highest, max(ids, default=0))
        self.created += len(ids)
        return ids

    def _create_all_planned(self, indexes: list[int]) -> None:
        """:meth:`_create_planned` for the plan's remaining persons at once, as the plan ends (tens of thousands in a
        bulk load's batch: their ids are worked out together, and the plan is not kept up to date)."""
        if not indexes:
            return
        plan = self._plan
        at = np.asarray(indexes)
        ids = (self._base() + 1 + at + np.searchsorted(self._rule_positions, np.asarray(plan.positions)[at])).tolist()
        distinct_ids = [plan.distinct_ids[i] for i in indexes]
        timestamps = [plan.timestamps[i] for i in indexes]
        uuids = [None] * len(indexes) if plan.uuids is None else [plan.uuids[i] for i in indexes]
        self._person_of.update(zip(distinct_ids, ids, strict=True))
        self._mappings.update(zip(distinct_ids, ids, strict=True))
        self._absent.difference_update(distinct_ids)
        self._bare.update(zip(ids, zip(distinct_ids, timestamps, uuids, strict=True), strict=True))
        self._highest = max(self._highest, max(ids))
        self.created += len(ids)

    def persons_now(self, distinct_ids: Sequence[str]) -> list[int | None]:
        """:meth:`lookup` of each distinct id, in one pass when all were read or assigned in this call."""
        person_of = self._person_of
        try:
            found = [person_of[distinct_id] for distinct_id in distinct_ids]
        except KeyError:
            return [self.lookup(distinct_id) for distinct_id in distinct_ids]
        return [self.resolve(person_id) for person_id in found] if self._merged_into else found

    def update_properties(self, person_id: int, set_: Any, set_once: Any, unset: Any) -> None:
        person = self._load(person_id)
        if apply_property_updates(person.properties, set_, set_once, unset):
            person.dirty = True

    def mark_identified(self, person_id: int) -> None:
        person = self._load(person_id)
        if not person.is_identified:
            person.is_identified = True
            person.dirty = True

    def merge(self, other_id: str, into_id: str, timestamp: int, *, dangerous: bool = False) -> int:
        """Join ``other_id`` to ``into_id`` (an identify or alias); returns the person of ``into_id``."""
        if other_id == into_id or is_illegal_distinct_id(into_id) or is_illegal_distinct_id(other_id):
            return self.person_for(into_id, timestamp)
        other = self.lookup(other_id)
        into = self.lookup(into_id)
        if other is not None and into is None:
            self._assign(into_id, other)
            result = other
        elif into is not None and other is None:
            self._assign(other_id, into)
            result = into
        elif into is not None and other is not None:
            result = into
            if other != into:
                self._merge_persons(other, into, dangerous=dangerous)
        else:
            result = self._create([into_id, other_id], timestamp, identified=True)
        self.mark_identified(result)
        return result

    def _merge_persons(self, other_id: int, into_id: int, *, dangerous: bool) -> None:
        other = self._load(other_id)
        if other.is_identified and not dangerous:
            return
        into = self._load(into_id)
        into.properties = {**other.properties, **into.properties}
        into.created_at = min(into.created_at, other.created_at)
        into.dirty = True
        self._merged_into[other_id] = into_id  # mappings and pending events follow it through resolve()
        if other.stored:
            self._absorbed.append(other_id)
        del self._persons[other_id]
        self.merged += 1

    # --- writing -------------------------------------------------------------------------------------------

    def flush(self) -> PersonChanges:
        """Write every change; the caller holds the transaction. Returns what changed, for an event engine
        that keeps its own copy of persons."""
        conn, project_id = self.conn, self.project_id
        new = [p for p in self._persons.values() if not p.stored]
        changed = [p for p in self._persons.values() if p.stored and p.dirty]
        texts = {p.id: _dumps(p.properties) for p in new + changed}
        # (id, project, uuid, properties, is_identified, created_at) of every new person, bare ones included
        created = [(p.id, project_id, p.uuid, texts[p.id], int(p.is_identified), p.created_at) for p in new]
        bare = self._bare.items()
        created += [(i, project_id, u or person_uuid(project_id, d), "{}", 0, at) for i, (d, at, u) in bare]
        created = self._insert_persons(created)
        conn.executemany(
            "UPDATE persons SET properties = ?, is_identified = ?, created_at = ? WHERE id = ?",
            [(texts[p.id], int(p.is_identified), p.created_at, p.id) for p in changed],
        )
        changes = PersonChanges(
            persons=[(i, u, text, at) for i, _, u, text, _, at in created]
            + [(p.id, p.uuid, texts[p.id], p.created_at) for p in changed],
            merges=[(self.resolve(old), old) for old in self._absorbed],
        )
        moves = [(self.resolve(old), project_id, old) for old in self._absorbed]
        conn.executemany("UPDATE person_distinct_ids SET person_id = ? WHERE project_id = ? AND person_id = ?", moves)
        conn.executemany("UPDATE events SET person_id = ? WHERE project_id = ? AND person_id = ?", moves)
        mappings = (
            [(d, self.resolve(p)) for d, p in self._mappings.items()] if self._merged_into else self._mappings.items()
        )
        conn.executemany(
            "INSERT OR REPLACE INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, ?)",
            [(project_id, distinct_id, person_id) for distinct_id, person_id in mappings],
        )
        if self._memory is not None:
            self._memory.remember_persons(mappings, changes.merges)
        conn.executemany("DELETE FROM persons WHERE id = ?", [(old,) for old in self._absorbed])
        highest = max(self._highest, max(self._absorbed, default=0))  # a merged-away id stays handed out
        if highest:
            raise_mark(conn, PERSON_ID, highest)
        self._mappings.clear()
        self._absorbed.clear()
        self._bare.clear()
        for person in self._persons.values():
            person.stored, person.dirty = True, False
        return changes

    def _insert_persons(self, created: list[_PersonRow]) -> list[_PersonRow]:
        """Insert new persons' rows; returns them as stored. Person uuids derive from the first distinct id; one
        already taken (by a person whose distinct ids were edited away) gets a random uuid instead."""
        insert = (
            "INSERT {} INTO persons (id, project_id, uuid, properties, is_identified, created_at) VALUES (?,?,?,?,?,?)"
        )
        if self.conn.executemany(insert.format("OR IGNORE"), created).rowcount == len(created):
            return created
        ours = {row[0]: row[2] for row in created}
        stored = {
            person_id
            for person_id, person_uuid in self.conn.execute(
                "SELECT id, uuid FROM persons WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(ours)),)
            )
            if ours[person_id] == person_uuid
        }
        retried = [(row[0], row[1], str(uuid.uuid4()), *row[3:]) for row in created if row[0] not in stored]
        self.conn.executemany(insert.format(""), retried)  # a clash other than the uuid's fails here
        for row in retried:
            if row[0] in self._persons:
                self._persons[row[0]].uuid = row[2]
        fresh = {row[0]: row for row in retried}
        return [fresh.get(row[0], row) for row in created]


def _dumps(value: Mapping[str, Any]) -> str:
    if not value:  # most persons of a bulk load have no properties
        return "{}"
    return _ENCODER.encode(value)
