"""The capture API's answer: PostHog's ``{"status": 1}`` plus what happened to the batch's events."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["CaptureResponse", "Rejection"]


class Rejection(BaseModel):
    index: int = Field(description="Position of the event in the request's batch.")
    reason: str = Field(examples=["no distinct_id"])


class CaptureResponse(BaseModel):
    """Counts of the request's events; they always add up to the number of events sent."""

    status: int = Field(1, description="1 when the batch was stored (PostHog's SDKs read this).")
    accepted: int = Field(description="Events stored now.")
    duplicates: int = Field(description="Events whose uuid was already stored (a resent batch).")
    rejected: int = Field(description="Invalid events (no name, no distinct id, bad timestamp ...), not stored.")
    dropped: int = Field(description="Events a plugin of the project dropped.")
    rejections: list[Rejection] = Field(description="Why events were rejected, for the first 100.")
