"""Groups as ingestion fills them: group types, ``$groups`` on events, ``$groupidentify``.

A project has at most five group types. The first time a type name is seen (in an event's ``$groups`` or a
``$groupidentify``) it takes the lowest free index 0..4 in ``group_type_mappings``; a sixth type is ignored.
``$groups: {"company": "acme"}`` puts ``acme`` in the event's ``group_<index>`` column. ``$groupidentify``
with ``$group_type``, ``$group_key`` and ``$group_set`` creates the group (at the event's time) and sets its
properties, later values replacing earlier ones. Which keys name a group: :func:`is_group_key`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from ..store.run_memory import RunMemory

__all__ = ["GroupBook", "MAX_GROUP_TYPES", "NO_GROUPS", "is_group_key"]

MAX_GROUP_TYPES = 5
NO_GROUPS: tuple[str | None, ...] = (None,) * MAX_GROUP_TYPES


def is_group_key(key: Any) -> bool:
    """Whether a ``$groups`` value or ``$group_key`` names a group: a non-empty text, number or boolean (stored
    as its ``str()``); null, empty text, an object or an array name none."""
    return key is not None and key != "" and not isinstance(key, Mapping | list)


class GroupBook:
    """One project's group types and touched groups during one ingestion call."""

    def __init__(self, conn: sqlite3.Connection, project_id: int, memory: RunMemory | None = None) -> None:
        self.conn = conn
        self.project_id = project_id
        self._memory = memory  # what a bulk load's earlier batches wrote (see :mod:`..store.run_memory`)
        self._index: dict[str, int] = {
            row[0]: row[1]
            for row in conn.execute(
                "SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ?", (project_id,)
            )
        }
        self._groups: dict[tuple[int, str], tuple[dict[str, Any], int]] = {}  # (index, key) -> (properties, created)
        self._dirty: set[tuple[int, str]] = set()

    def index_of(self, group_type: str) -> int | None:
        """The type's index, assigning the lowest free one on first sight; None when all five are taken."""
        index = self._index.get(group_type)
        if index is None:
            free = sorted(set(range(MAX_GROUP_TYPES)) - set(self._index.values()))
            if not free:
                return None
            index = free[0]
            self.conn.execute(
                "INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES (?, ?, ?)",
                (self.project_id, group_type, index),
            )
            self._index[group_type] = index
        return index

    def known_types(self) -> dict[str, int]:
        """Group type name -> index, as assigned so far."""
        return dict(self._index)

    def columns(self, groups: Any) -> tuple[str | None, ...]:
        """The ``group_0`` .. ``group_4`` values of an event with this ``$groups`` object."""
        if not isinstance(groups, Mapping) or not groups:
            return NO_GROUPS
        values: list[str | None] = list(NO_GROUPS)
        for group_type, key in groups.items():
            if not is_group_key(key) or not isinstance(group_type, str) or not group_type:
                continue
            index = self.index_of(group_type)
            if index is not None:
                values[index] = str(key)
        return tuple(values)

    def identify(self, group_type: str, group_key: str, group_set: Any, timestamp: int) -> int | None:
        """Create or update one group from a ``$groupidentify``; returns its type index (None if no room)."""
        index = self.index_of(group_type)
        if index is None:
            return None
        slot = (index, group_key)
        known = self._groups.get(slot)
        if known is None and self._memory is not None:
            known = self._memory.recall_group(slot)
            if known is None and self._memory.holds_every_group:
                known = ({}, timestamp)
                self._dirty.add(slot)
            if known is not None:
                self._groups[slot] = known
        if known is None:
            row = self.conn.execute(
                "SELECT properties, created_at FROM groups WHERE project_id = ? AND group_type_index = ?"
                " AND group_key = ?",
                (self.project_id, index, group_key),
            ).fetchone()
            if row is None:
                known = ({}, timestamp)
                self._dirty.add(slot)
            else:
                properties = json.loads(row[0]) if row[0] else {}
                known = (properties if isinstance(properties, dict) else {}, row[1])
            self._groups[slot] = known
        properties, _ = known
        if isinstance(group_set, Mapping):
            for key, value in group_set.items():
                if key not in properties or properties[key] != value:
                    properties[key] = value
                    self._dirty.add(slot)
        return index

    def flush(self) -> list[tuple[int, str, str, int]]:
        """Write created and changed groups; the caller holds the transaction. Returns them as
        ``(type index, key, properties JSON, created_at)``, for an event engine that keeps its own copy."""
        rows = [
            (index, key, json.dumps(self._groups[(index, key)][0], default=str), self._groups[(index, key)][1])
            for index, key in sorted(self._dirty)
        ]
        self.conn.executemany(
            "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (project_id, group_type_index, group_key)"
            " DO UPDATE SET properties = excluded.properties",
            [(self.project_id, *row) for row in rows],
        )
        self._dirty.clear()
        if self._memory is not None:
            self._memory.remember_groups(self._groups)
        return rows
