"""Person and event shapes of the persons, cohort members and events endpoints (PostHog's serializers)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["Person", "EventPerson", "Event", "EventPage", "PropertyValue", "person_body", "person_name"]


class Person(BaseModel):
    id: int
    uuid: str
    name: str = Field(description="Email, name or username property, else a distinct id")
    distinct_ids: list[str]
    properties: dict[str, Any]
    is_identified: bool
    created_at: str


class EventPerson(BaseModel):
    """The person embedded in an event: what the events list shows of them."""

    is_identified: bool
    distinct_ids: list[str]
    properties: dict[str, Any]


class Event(BaseModel):
    id: str = Field(description="The event's uuid")
    distinct_id: str
    properties: dict[str, Any]
    event: str
    timestamp: str
    person: EventPerson | None
    elements: list[Any] = Field(default_factory=list)
    elements_chain: str


class EventPage(BaseModel):
    """Events newest first; ``next`` asks for the events before the last one shown."""

    next: str | None
    results: list[Event]


class PropertyValue(BaseModel):
    """One value a property has taken (PostHog's ``events/values/`` items)."""

    name: str


def person_name(person: dict[str, Any]) -> str:
    """How PostHog names a person: email, then name, then username property, then a distinct id."""
    properties = person.get("properties") or {}
    for key in ("email", "name", "username"):
        value = properties.get(key)
        if isinstance(value, str) and value:
            return value
    distinct_ids = person.get("distinct_ids") or []
    return str(distinct_ids[-1]) if distinct_ids else str(person.get("uuid", ""))


def person_body(person: dict[str, Any]) -> dict[str, Any]:
    """A person from :func:`local_backend.store.person_lookup.persons_by_id` as the API returns it."""
    return Person(**person, name=person_name(person)).model_dump()
