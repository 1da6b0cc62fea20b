"""The capture API's answer: PostHog's ``{"status": 1}`` plus what happened to the batch's events."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["CaptureResponse", "Rejection", "CAPTURE_REQUEST_BODY"]

# The SDKs' wire format is free-form: an event is any object (an invalid one is rejected on its own, beside the
# stored good ones), and the token may travel in the body, the first event, the form or the query string. What
# the route refuses outright (400) is a payload that is none of the three shapes below, or a non-list batch.
_EVENT: dict[str, Any] = {"description": "One event: event, distinct_id, properties, timestamp, uuid ..."}
CAPTURE_REQUEST_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "anyOf": [
                    {
                        "type": "object",
                        "title": "Batch",
                        "properties": {
                            "api_key": {"type": "string", "description": "The project API token (phc_...)"},
                            "batch": {"type": "array", "items": _EVENT},
                            "sent_at": {"type": "string", "description": "When the SDK sent the batch"},
                        },
                        "required": ["batch"],
                    },
                    {"type": "array", "title": "Events", "items": _EVENT},
                    {"type": "object", "title": "Event", "not": {"required": ["batch"]}},
                ]
            }
        }
    },
}


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
