"""Insights, their dashboard tiles, views and sharing configurations."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from .accounts import get_user
from .db import row_dict, transaction
from .ids import new_sharing_token, new_short_id

__all__ = [
    "JSON_FIELDS",
    "create_insight",
    "get_insight",
    "InsightListFilter",
    "list_insights",
    "with_related",
    "update_insight",
    "insight_dashboard_ids",
    "set_insight_dashboards",
    "insight_tiles",
    "record_view",
    "last_viewed_insights",
    "get_or_create_sharing",
    "set_sharing_enabled",
]

JSON_FIELDS = ("filters", "query", "tags")
BOOL_FIELDS = ("deleted", "favorited", "saved", "is_sample")
ORDERABLE = ("id", "order", "name", "created_at", "updated_at", "last_modified_at", "short_id", "favorited")


def _decode(row: sqlite3.Row | None) -> dict[str, Any] | None:
    insight = row_dict(row)
    if insight is not None:
        for field in JSON_FIELDS:
            insight[field] = json.loads(insight[field]) if insight[field] is not None else None
        for field in BOOL_FIELDS:
            insight[field] = bool(insight[field])
    return insight


def _encode(values: dict[str, Any]) -> dict[str, Any]:
    return {k: json.dumps(v) if k in JSON_FIELDS and v is not None else v for k, v in values.items()}


def create_insight(conn: sqlite3.Connection, *, project_id: int, user_id: int, values: dict[str, Any], now: str) -> int:
    encoded = _encode({"filters": {}, "tags": [], **values})
    with transaction(conn):
        while True:
            short_id = new_short_id()
            taken = conn.execute(
                "SELECT 1 FROM insights WHERE project_id = ? AND short_id = ?", (project_id, short_id)
            ).fetchone()
            if not taken:
                break
        columns = {
            **encoded,
            "project_id": project_id,
            "short_id": short_id,
            "created_by_id": user_id,
            "last_modified_by_id": user_id,
            "created_at": now,
            "updated_at": now,
            "last_modified_at": now,
        }
        names = ", ".join(f'"{c}"' for c in columns)
        marks = ", ".join("?" for _ in columns)
        cursor = conn.execute(f"INSERT INTO insights ({names}) VALUES ({marks})", list(columns.values()))
    return int(cursor.lastrowid or 0)


def get_insight(
    conn: sqlite3.Connection, project_id: int, insight_id: int, *, include_deleted: bool = False
) -> dict[str, Any] | None:
    sql = "SELECT * FROM insights WHERE project_id = ? AND id = ?"
    if not include_deleted:
        sql += " AND deleted = 0"
    return _decode(conn.execute(sql, (project_id, insight_id)).fetchone())


@dataclass(frozen=True)
class InsightListFilter:
    """Which live insights a list shows; every field given must hold (an empty filter shows them all)."""

    only_id: int | None = None  # the one insight a sharing token opens
    short_id: str | None = None
    created_by: tuple[int, ...] = ()  # every one must be the creator, so two different ids match nothing
    favorited: bool = False  # True: only favorited ones
    saved: bool | None = None  # True: saved or on a live dashboard tile; False: not saved
    dashboards: tuple[int, ...] = ()  # on a live tile of each of these dashboards
    kind: str | None = None  # TRENDS, FUNNELS, ...: legacy insights (no query) of this kind, TRENDS when unstated
    modified_after: str | None = None  # stored instants (format_instant), exclusive
    modified_before: str | None = None
    search: str | None = None  # a substring of the name, derived name, description or tags (case-insensitive)


_ON_LIVE_TILE = "EXISTS (SELECT 1 FROM dashboard_tiles t WHERE t.insight_id = insights.id AND t.deleted = 0"


def _like_pattern(text: str) -> str:
    """``text`` as a LIKE pattern matching it anywhere, its ``%``, ``_`` and ``\\`` taken literally."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _list_conditions(project_id: int, filter: InsightListFilter) -> tuple[str, list[Any]]:
    where: list[tuple[str, list[Any]]] = [("project_id = ?", [project_id]), ("deleted = 0", [])]
    if filter.only_id is not None:
        where.append(("id = ?", [filter.only_id]))
    if filter.short_id is not None:
        where.append(("short_id = ?", [filter.short_id]))
    where.extend(("created_by_id = ?", [user_id]) for user_id in filter.created_by)
    if filter.favorited:
        where.append(("favorited = 1", []))
    if filter.saved is not None:
        where.append((f"(saved = 1 OR {_ON_LIVE_TILE}))", []) if filter.saved else ("saved = 0", []))
    where.extend((f"{_ON_LIVE_TILE} AND t.dashboard_id = ?)", [dashboard_id]) for dashboard_id in filter.dashboards)
    if filter.kind is not None:
        where.append(("query IS NULL AND coalesce(json_extract(filters, '$.insight'), 'TRENDS') = ?", [filter.kind]))
    if filter.modified_after is not None:
        where.append(("last_modified_at > ?", [filter.modified_after]))
    if filter.modified_before is not None:
        where.append(("last_modified_at < ?", [filter.modified_before]))
    if filter.search:
        columns = ("name", "derived_name", "description", "tags")
        where.append(
            ("(" + " OR ".join(f"{column} LIKE ? ESCAPE '\\'" for column in columns) + ")",
             [_like_pattern(filter.search)] * len(columns))
        )  # fmt: skip
    return " AND ".join(sql for sql, _ in where), [param for _, params in where for param in params]


def list_insights(
    conn: sqlite3.Connection,
    project_id: int,
    filter: InsightListFilter,
    *,
    order: str,
    limit: int,
    offset: int,
) -> tuple[list[dict[str, Any]], int]:
    """One page of the project's live insights that pass ``filter``, and their count; ``order`` is an ORDERABLE
    column, '-' first for descending."""
    field = order.lstrip("-")
    assert field in ORDERABLE
    direction = "DESC" if order.startswith("-") else "ASC"
    condition, params = _list_conditions(project_id, filter)
    total = int(conn.execute(f"SELECT count(*) FROM insights WHERE {condition}", params).fetchone()[0])
    rows = conn.execute(
        f'SELECT * FROM insights WHERE {condition} ORDER BY "{field}" IS NULL, "{field}" {direction}, id'
        " LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    return [i for i in map(_decode, rows) if i is not None], total


def update_insight(
    conn: sqlite3.Connection, insight_id: int, changes: dict[str, Any], *, user_id: int, now: str, material: bool
) -> None:
    columns = {**_encode(changes), "is_sample": 0, "updated_at": now}
    if material:
        columns.update(last_modified_at=now, last_modified_by_id=user_id)
    assignments = ", ".join(f'"{c}" = ?' for c in columns)
    with transaction(conn):
        conn.execute(f"UPDATE insights SET {assignments} WHERE id = ?", [*columns.values(), insight_id])
        if changes.get("deleted"):
            conn.execute("UPDATE dashboard_tiles SET deleted = 1 WHERE insight_id = ?", (insight_id,))


def insight_tiles(conn: sqlite3.Connection, insight_id: int) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT t.id, t.dashboard_id, t.deleted FROM dashboard_tiles t JOIN dashboards d ON d.id = t.dashboard_id"
        " WHERE t.insight_id = ? AND t.deleted = 0 AND d.deleted = 0 ORDER BY t.id",
        (insight_id,),
    )
    return [{"id": r["id"], "dashboard_id": r["dashboard_id"], "deleted": bool(r["deleted"])} for r in rows]


def with_related(conn: sqlite3.Connection, insight: dict[str, Any]) -> dict[str, Any]:
    """The insight with what its body shows besides its own row: live ``dashboard_tiles`` and the user rows
    ``created_by`` and ``last_modified_by``."""
    return {
        **insight,
        "dashboard_tiles": insight_tiles(conn, insight["id"]),
        "created_by": get_user(conn, insight["created_by_id"]),
        "last_modified_by": get_user(conn, insight["last_modified_by_id"]),
    }


def insight_dashboard_ids(conn: sqlite3.Connection, insight_id: int) -> list[int]:
    return [tile["dashboard_id"] for tile in insight_tiles(conn, insight_id)]


def set_insight_dashboards(conn: sqlite3.Connection, insight_id: int, dashboard_ids: list[int]) -> None:
    """Add tiles for new dashboards (undeleting old ones) and soft-delete tiles of dashboards left out."""
    with transaction(conn):
        conn.execute(
            f"UPDATE dashboard_tiles SET deleted = 1 WHERE insight_id = ?"
            f" AND dashboard_id NOT IN ({','.join('?' for _ in dashboard_ids) or 'NULL'})",
            [insight_id, *dashboard_ids],
        )
        for dashboard_id in dashboard_ids:
            conn.execute(
                "INSERT INTO dashboard_tiles (dashboard_id, insight_id, deleted) VALUES (?, ?, 0)"
                " ON CONFLICT (dashboard_id, insight_id) DO UPDATE SET deleted = 0",
                (dashboard_id, insight_id),
            )


def record_view(conn: sqlite3.Connection, *, project_id: int, user_id: int, insight_id: int, now: str) -> None:
    with transaction(conn):
        seq = conn.execute("SELECT coalesce(max(view_seq), 0) + 1 FROM insight_views").fetchone()[0]
        conn.execute(
            "INSERT INTO insight_views (project_id, user_id, insight_id, last_viewed_at, view_seq)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, insight_id)"
            " DO UPDATE SET last_viewed_at = excluded.last_viewed_at, view_seq = excluded.view_seq",
            (project_id, user_id, insight_id, now, seq),
        )


def last_viewed_insights(conn: sqlite3.Connection, *, project_id: int, user_id: int, limit: int) -> list[dict]:
    rows = conn.execute(
        "SELECT i.* FROM insight_views v JOIN insights i ON i.id = v.insight_id"
        " WHERE v.project_id = ? AND v.user_id = ? AND i.deleted = 0"
        " ORDER BY v.last_viewed_at DESC, v.view_seq DESC LIMIT ?",
        (project_id, user_id, limit),
    ).fetchall()
    return [i for i in map(_decode, rows) if i is not None]


def get_or_create_sharing(conn: sqlite3.Connection, *, project_id: int, insight_id: int, now: str) -> dict[str, Any]:
    with transaction(conn):
        conn.execute(
            "INSERT OR IGNORE INTO sharing_configurations (project_id, insight_id, enabled, access_token, created_at)"
            " VALUES (?, ?, 0, ?, ?)",
            (project_id, insight_id, new_sharing_token(), now),
        )
    row = conn.execute("SELECT * FROM sharing_configurations WHERE insight_id = ?", (insight_id,)).fetchone()
    return {"created_at": row["created_at"], "enabled": bool(row["enabled"]), "access_token": row["access_token"]}


def set_sharing_enabled(conn: sqlite3.Connection, *, insight_id: int, enabled: bool) -> None:
    """Turn sharing on or off. Turning it off retires the token, so re-enabling shares under a new one and a
    leaked link stays dead; the token shown before the first enable is the one enabled."""
    with transaction(conn):
        conn.execute(
            "UPDATE sharing_configurations SET access_token = ? WHERE insight_id = ? AND enabled = 1 AND ?",
            (new_sharing_token(), insight_id, int(not enabled)),
        )
        conn.execute("UPDATE sharing_configurations SET enabled = ? WHERE insight_id = ?", (int(enabled), insight_id))
