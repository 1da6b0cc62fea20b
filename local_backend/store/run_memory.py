"""What the earlier batches of one bulk load wrote about persons and groups, so later batches need not read it back.

A bulk load decides each batch's persons against SQLite: every distinct id of the batch is looked up, and every
group a ``$groupidentify`` names is read. Most of those rows were written by the load's own earlier batches (a
returning user, a company identified again), and a fresh project has no others. :class:`RunMemory` keeps what
the load wrote, distinct id -> person (merges applied when read) and each group's properties, and whether the
project held any distinct ids or groups when the load began; a batch then asks SQLite only about what the
memory cannot answer. SQLite's ``PRAGMA data_version`` tells whether another connection has committed since:
if one has, the memory forgets everything and every lookup goes to SQLite again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["MAX_REMEMBERED_IDS", "RunMemory"]

#: The most distinct ids a load remembers (about 170 bytes each); past it the rest are looked up in SQLite.
MAX_REMEMBERED_IDS = 5_000_000

GroupSlot = tuple[int, str]  # (group type index, group key)


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def _none_stored(conn: sqlite3.Connection, table: str, project_id: int) -> bool:
    return conn.execute(f"SELECT 1 FROM {table} WHERE project_id = ? LIMIT 1", (project_id,)).fetchone() is None


class RunMemory:
    """Distinct ids, merges and groups one connection's batches wrote to one project."""

    def __init__(self, conn: sqlite3.Connection, project_id: int) -> None:
        self.conn = conn
        self._version = _data_version(conn)
        self._person_of: dict[str, int] = {}
        self._merged_into: dict[int, int] = {}
        self._groups: dict[GroupSlot, tuple[dict[str, Any], int]] = {}
        # whether a distinct id (a group) the memory does not hold is surely not stored
        self.holds_every_distinct_id = _none_stored(conn, "person_distinct_ids", project_id)
        self.holds_every_group = _none_stored(conn, "groups", project_id)

    def check(self) -> None:
        """Forget everything if another connection committed since the last check (call it inside the
        transaction whose reads the memory stands in for)."""
        version = _data_version(self.conn)
        if version != self._version:
            self._person_of.clear()
            self._merged_into.clear()
            self._groups.clear()
            self.holds_every_distinct_id = self.holds_every_group = False
            self._version = version

    def stale(self) -> bool:
        """Whether another connection committed since the last :meth:`check`: what was decided then may be out of
        date (a batch decided in the transaction before this one, or outside any)."""
        return _data_version(self.conn) != self._version

    # --- persons -------------------------------------------------------------------------------------------

    def recall_persons(self, distinct_ids: Iterable[str], found: dict[str, int], absent: set[str]) -> list[str]:
        """Put the person of each distinct id the memory knows into ``found``, and the ids it knows are not
        stored into ``absent``; returns the ids left for SQLite."""
        person_of, merged_into = self._person_of, self._merged_into
        rest: list[str] = []
        for distinct_id in distinct_ids:
            person_id = person_of.get(distinct_id)
            if person_id is None:
                rest.append(distinct_id)
                continue
            while person_id in merged_into:
                person_id = merged_into[person_id]
            found[distinct_id] = person_id
        if self.holds_every_distinct_id:
            absent.update(rest)
            return []
        return rest

    def remember_persons(self, mappings: Iterable[tuple[str, int]], merges: Iterable[tuple[int, int]]) -> None:
        """What a batch read or wrote: distinct id -> person, and ``(surviving person, person merged away)``.
        Once :data:`MAX_REMEMBERED_IDS` are held, new ones are not: a distinct id not held may then be stored."""
        mappings = list(mappings)
        if len(self._person_of) + len(mappings) <= MAX_REMEMBERED_IDS:
            self._person_of.update(mappings)
        else:
            self._person_of.update((d, p) for d, p in mappings if d in self._person_of)  # kept current
            self.holds_every_distinct_id = False
        for into, old in merges:
            self._merged_into[old] = into

    # --- groups --------------------------------------------------------------------------------------------

    def recall_group(self, slot: GroupSlot) -> tuple[dict[str, Any], int] | None:
        """A copy of the group's properties and its ``created_at`` as written, or None when the memory does
        not hold it (:attr:`holds_every_group` tells whether it is then surely new)."""
        known = self._groups.get(slot)
        return None if known is None else (dict(known[0]), known[1])

    def remember_groups(self, groups: Mapping[GroupSlot, tuple[dict[str, Any], int]]) -> None:
        """Groups as a batch left them stored (read, created or changed): ``(index, key) -> (properties,
        created_at)``."""
        self._groups.update(groups)
