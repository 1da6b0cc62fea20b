"""Project shapes (PostHog's TeamBasic, plus the settings the calculations read)."""

from __future__ import annotations

from typing import Any
from zoneinfo import available_timezones

from pydantic import BaseModel, ConfigDict, Field

from .fields import Integer, JSONObject, non_blank, not_null

__all__ = ["ProjectBasic", "Project", "ProjectCreate", "ProjectUpdate", "project_basic", "project_detail"]


class ProjectBasic(BaseModel):
    id: int
    uuid: str
    organization: str
    project_id: int
    api_token: str
    name: str
    completed_snippet_onboarding: bool
    has_completed_onboarding_for: dict[str, Any] | None
    ingested_event: bool
    is_demo: bool
    timezone: str
    access_control: bool


class Project(ProjectBasic):
    test_account_filters: list[dict[str, Any]]
    week_start_day: int | None
    created_at: str
    updated_at: str


# The IANA names the server knows (what the route's ZoneInfo check accepts).
TIME_ZONES = sorted(available_timezones())


def _time_zone_choice(schema: dict[str, Any]) -> None:
    not_null(schema)
    schema["enum"] = TIME_ZONES


class ProjectCreate(BaseModel):
    """A new project (POST): a name, and optionally its time zone (UTC when left out, never null)."""

    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1, max_length=200, json_schema_extra=non_blank)
    timezone: str | None = Field(
        None, description="IANA time zone, e.g. Europe/Berlin (default UTC)", json_schema_extra=_time_zone_choice
    )


class ProjectUpdate(BaseModel):
    """Writable project settings (PATCH)."""

    model_config = ConfigDict(extra="ignore")

    # name and timezone may be left out but not set to null (the route refuses null with code "null")
    name: str | None = Field(None, min_length=1, max_length=200, json_schema_extra=not_null)
    timezone: str | None = Field(
        None, description="IANA time zone, e.g. Europe/Berlin", json_schema_extra=_time_zone_choice
    )
    week_start_day: Integer | None = Field(None, ge=0, le=1, description="0: weeks start on Sunday, 1: on Monday")
    test_account_filters: list[JSONObject] | None = Field(
        None, description="Property filters that `filter_test_accounts` applies"
    )


def project_basic(project: dict[str, Any], *, ingested_event: bool = False) -> dict[str, Any]:
    return {
        "id": project["id"],
        "uuid": project["uuid"],
        "organization": project["organization_uuid"],
        "project_id": project["id"],
        "api_token": project["api_token"],
        "name": project["name"],
        "completed_snippet_onboarding": ingested_event,
        "has_completed_onboarding_for": None,
        "ingested_event": ingested_event,
        "is_demo": bool(project["is_demo"]),
        "timezone": project["timezone"],
        "access_control": False,
    }


def project_detail(project: dict[str, Any], *, ingested_event: bool = False) -> dict[str, Any]:
    return {
        **project_basic(project, ingested_event=ingested_event),
        "test_account_filters": project["test_account_filters"],
        "week_start_day": project["week_start_day"],
        "created_at": project["created_at"],
        "updated_at": project["updated_at"],
    }
