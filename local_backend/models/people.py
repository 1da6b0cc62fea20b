"""The people behind a trend point, a stickiness bucket, a lifecycle interval or a path: the legacy actors page.

PostHog's ``persons/trends/``, ``persons/stickiness/``, ``persons/lifecycle/`` and ``persons/paths/`` answer
``{results: [{people, count}], count, next, previous}``, as ``persons/funnel/`` does: one item holding a page
of persons (or groups, when the number counts groups), ``next`` the URL of the following page.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["ActorsGroup", "ActorsPage", "PeopleUrl"]


class ActorsGroup(BaseModel):
    people: list[dict[str, Any]] = Field(description="Persons (or groups, when the number counts groups) of this page")
    count: int = Field(description="How many are on this page")


class ActorsPage(BaseModel):
    results: list[ActorsGroup] = Field(description="One item, as PostHog's people lists answer")
    count: int = Field(description="How many actors the number counts in all")
    next: str | None
    previous: str | None


class PeopleUrl(BaseModel):
    """One point's people link: the parameters naming the point (``filter``) and the URL that lists them."""

    filter: dict[str, Any]
    url: str
