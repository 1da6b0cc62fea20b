"""Insight and sharing shapes (spec 2.3-2.5); dashboards are in :mod:`.dashboards`."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .common import UserBasic, user_basic
from .fields import Flag, Integer, JSONObject, ObjectId, not_null

__all__ = [
    "InsightWrite",
    "InsightUpdate",
    "Insight",
    "InsightBasic",
    "DashboardTile",
    "SharingConfiguration",
    "SharingUpdate",
    "CancelRequest",
    "insight_body",
    "insight_basic_body",
    "effective_filters",
    "RESULT_FIELDS",
    "filters_hash",
]


class InsightWrite(BaseModel):
    """Every field is optional on create and update; unknown and read-only fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    name: str | None = Field(None, max_length=400)
    derived_name: str | None = Field(None, max_length=400)
    description: str | None = Field(None, max_length=400)
    filters: JSONObject | None = None
    query: JSONObject | None = None
    order: Integer | None = Field(None, ge=-(2**31), le=2**31 - 1)
    deleted: Flag | None = None
    dashboards: list[ObjectId] | None = Field(None, description="Deprecated: the dashboards the insight is shown on")
    tags: list[str] | None = None
    favorited: Flag | None = None
    saved: Flag | None = None


class InsightUpdate(InsightWrite):
    """As :class:`InsightWrite`, but an update may not set these fields to null (the route refuses it with code
    ``null``; the schema leaves null out)."""

    filters: JSONObject | None = Field(None, json_schema_extra=not_null)
    tags: list[str] | None = Field(None, json_schema_extra=not_null)
    deleted: Flag | None = Field(None, json_schema_extra=not_null)
    favorited: Flag | None = Field(None, json_schema_extra=not_null)
    saved: Flag | None = Field(None, json_schema_extra=not_null)


class DashboardTile(BaseModel):
    id: int
    dashboard_id: int
    deleted: bool | None


class InsightBasic(BaseModel):
    id: int
    short_id: str
    name: str | None
    derived_name: str | None
    favorited: bool
    filters: dict[str, Any]
    query: dict[str, Any] | None
    dashboards: list[int]
    dashboard_tiles: list[DashboardTile]
    description: str | None
    last_refresh: str | None
    refreshing: bool
    saved: bool
    updated_at: str
    created_by: UserBasic | None
    created_at: str
    last_modified_at: str
    tags: list[str]


class Insight(BaseModel):
    id: int
    short_id: str
    name: str | None
    derived_name: str | None
    filters: dict[str, Any]
    query: dict[str, Any] | None
    order: int | None
    deleted: bool
    dashboards: list[int]
    dashboard_tiles: list[DashboardTile]
    last_refresh: str | None
    cache_target_age: str | None
    next_allowed_client_refresh: str | None
    result: Any
    hasMore: Any
    columns: Any
    created_at: str
    created_by: UserBasic | None
    description: str | None
    updated_at: str
    tags: list[str]
    favorited: bool
    saved: bool
    last_modified_at: str
    last_modified_by: UserBasic | None
    is_sample: bool
    effective_restriction_level: int
    effective_privilege_level: int
    timezone: str | None
    is_cached: Any
    query_status: Any
    hogql: Any
    types: Any
    filters_hash: str


class SharingConfiguration(BaseModel):
    created_at: str | None
    enabled: bool
    access_token: str


class SharingUpdate(BaseModel):
    enabled: Flag


class CancelRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    client_query_id: str = Field(min_length=1)


# PostHog's restriction and privilege levels: everyone in the project can edit; the caller can edit.
EVERYONE_CAN_EDIT = 21
CAN_EDIT = 37


def filters_hash(project_id: int, filters: dict[str, Any]) -> str:
    canonical = json.dumps([project_id, filters], sort_keys=True, separators=(",", ":"))
    return "cache_" + hashlib.sha256(canonical.encode()).hexdigest()[:32]


def _effective_filters(insight: dict[str, Any]) -> dict[str, Any]:
    filters = dict(insight["filters"] or {})
    if "insight" not in filters and insight["query"] is None:
        filters["insight"] = "TRENDS"
    return filters


RESULT_FIELDS = (
    "result",
    "last_refresh",
    "cache_target_age",
    "next_allowed_client_refresh",
    "is_cached",
    "query_status",
    "timezone",
    "hogql",
    "types",
    "columns",
    "hasMore",
)


def effective_filters(insight: dict[str, Any]) -> dict[str, Any]:
    """The insight's legacy filters, with the kind made explicit (TRENDS when none is given)."""
    return _effective_filters(insight)


def insight_body(insight: dict[str, Any], package: dict[str, Any] | None = None) -> dict[str, Any]:
    """The full insight representation, in the reference's field order, with the result ``package`` (from
    :func:`local_backend.results.service.serve_calculation`) when there is one.

    ``insight`` is a stored insight with its related rows (:func:`local_backend.store.insights.with_related`).
    """
    body = _insight_fields(insight)
    if package is not None:
        body.update({field: package[field] for field in RESULT_FIELDS})
    return body


def _insight_fields(insight: dict[str, Any]) -> dict[str, Any]:
    filters = _effective_filters(insight)
    return {
        "id": insight["id"],
        "short_id": insight["short_id"],
        "name": insight["name"],
        "derived_name": insight["derived_name"],
        "filters": filters,
        "query": insight["query"],
        "order": insight["order"],
        "deleted": insight["deleted"],
        "dashboards": [tile["dashboard_id"] for tile in insight["dashboard_tiles"]],
        "dashboard_tiles": insight["dashboard_tiles"],
        "last_refresh": None,
        "cache_target_age": None,
        "next_allowed_client_refresh": None,
        "result": None,
        "hasMore": None,
        "columns": None,
        "created_at": insight["created_at"],
        "created_by": user_basic(insight["created_by"]),
        "description": insight["description"],
        "updated_at": insight["updated_at"],
        "tags": insight["tags"] or [],
        "favorited": insight["favorited"],
        "saved": insight["saved"],
        "last_modified_at": insight["last_modified_at"],
        "last_modified_by": user_basic(insight["last_modified_by"]),
        "is_sample": insight["is_sample"],
        "effective_restriction_level": EVERYONE_CAN_EDIT,
        "effective_privilege_level": CAN_EDIT,
        "timezone": None,
        "is_cached": False,
        "query_status": None,
        "hogql": None,
        "types": None,
        "filters_hash": filters_hash(insight["project_id"], filters),
    }


def insight_basic_body(insight: dict[str, Any]) -> dict[str, Any]:
    """The short representation (recently viewed lists), from the same input as :func:`insight_body`."""
    full = insight_body(insight)
    keys = InsightBasic.model_fields.keys()
    return {key: full.get(key, False) for key in keys} | {"refreshing": False}
