"""Shapes shared by several resources: pages, users, activity entries, errors."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ErrorResponse",
    "Paginated",
    "UserBasic",
    "ActivityChange",
    "ActivityUser",
    "ActivityDetail",
    "ActivityEntry",
    "ActivityPage",
    "user_basic",
    "activity_entry",
]

T = TypeVar("T")


class ErrorResponse(BaseModel):
    """Every error response has this body."""

    type: str = Field(examples=["validation_error"])
    code: str = Field(examples=["required"])
    detail: str = Field(examples=["This field is required."])
    attr: str | None = Field(examples=["plugin"])


class Paginated(BaseModel, Generic[T]):
    count: int
    next: str | None
    previous: str | None
    results: list[T]


class UserBasic(BaseModel):
    id: int
    uuid: str
    distinct_id: str
    first_name: str
    last_name: str
    email: str
    is_email_verified: bool
    hedgehog_config: dict[str, Any] | None
    role_at_organization: str | None = None


def user_basic(user: dict[str, Any] | None) -> dict[str, Any] | None:
    """The embedded user object (spec 2.4) from a stored user row."""
    if user is None:
        return None
    return {
        "id": user["id"],
        "uuid": user["uuid"],
        "distinct_id": user["distinct_id"],
        "first_name": user["first_name"],
        "last_name": user["last_name"],
        "email": user["email"],
        "is_email_verified": bool(user["is_email_verified"]),
        "hedgehog_config": user["hedgehog_config"],
        "role_at_organization": None,
    }


class ActivityChange(BaseModel):
    type: str
    action: str
    field: str | None = None
    before: Any = None
    after: Any = None


class ActivityUser(BaseModel):
    first_name: str | None
    email: str | None
    is_system: bool = False


class ActivityDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    changes: list[ActivityChange] | None = None
    trigger: Any = None
    type: str | None = None
    name: str | None = None
    short_id: str | None = None


class ActivityEntry(BaseModel):
    id: str
    user: ActivityUser
    activity: str
    scope: str
    item_id: str
    detail: ActivityDetail
    created_at: str


class ActivityPage(BaseModel):
    results: list[ActivityEntry]
    next: str | None
    previous: str | None
    total_count: int


def activity_entry(row: dict[str, Any]) -> dict[str, Any]:
    """An activity entry from a row of :func:`local_backend.store.activity.list_activity`."""
    if row["is_system"]:
        user = {"first_name": "System", "email": None, "is_system": True}
    else:
        user = {"first_name": row["user_first_name"], "email": row["user_email"], "is_system": False}
    return {
        "id": row["id"],
        "user": user,
        "activity": row["activity"],
        "scope": row["scope"],
        "item_id": row["item_id"],
        "detail": row["detail"],
        "created_at": row["created_at"],
    }
