"""Dashboard shapes: what a client writes, and the body built from a stored dashboard."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .common import UserBasic, user_basic
from .fields import JSONObject

__all__ = ["DashboardWrite", "Dashboard", "dashboard_body"]


class DashboardWrite(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str = Field("", max_length=400)
    description: str = Field("", max_length=4000)
    filters: JSONObject = Field(default_factory=dict, description="date_from, date_to, properties")


class Dashboard(BaseModel):
    id: int
    name: str
    description: str
    filters: dict[str, Any]
    created_at: str
    created_by: UserBasic | None
    deleted: bool


def dashboard_body(dashboard: dict[str, Any], *, created_by: dict[str, Any] | None) -> dict[str, Any]:
    """The body of a stored dashboard; ``created_by`` is its creator's user row, if any."""
    return {
        "id": dashboard["id"],
        "name": dashboard["name"] or "",
        "description": dashboard["description"] or "",
        "filters": dashboard["filters"],
        "created_at": dashboard["created_at"],
        "created_by": user_basic(created_by),
        "deleted": dashboard["deleted"],
    }
