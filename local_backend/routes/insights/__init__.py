"""``/api/projects/:id/insights/``: saved insights, one router over three modules.

- :mod:`.crud`: list (with its filters and ``refresh``), create, retrieve (with its result), update; DELETE is
  refused (soft delete is ``PATCH {"deleted": true}``).
- :mod:`.actions`: ``viewed``, ``my_last_viewed``, ``cancel``, and the activity of one or all insights.
- :mod:`.sharing`: ``insights/:id/sharing/``, the sharing configuration.

Insight ids match digits only (``{id:int}``), so the fixed paths (``activity``, ``cancel``, and the
calculation paths ``trend``, ``funnel``, ...) never reach the routes of one insight.
"""

from __future__ import annotations

from fastapi import APIRouter

from . import actions, crud, sharing
from .crud import INSIGHTS, load_insight

__all__ = ["router", "load_insight", "INSIGHTS"]

router = APIRouter()
for _part in (actions, crud, sharing):
    router.include_router(_part.router)
