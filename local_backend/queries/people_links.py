"""The query parameters of a people link: a calculation's filter as text, its dates pinned to instants.

Every number a calculation shows that counts actors links to them: a funnel step, a retention cell, a trend point,
a stickiness bucket, a lifecycle interval. A calculation never builds a URL: it computes the link's parameters
here and hands them to the :data:`PeopleLink` its route gave it (the route owns the path). The filter travels
as PostHog sends it in a GET: lists and objects as JSON text, the rest as they are; its range is pinned to the
instants it resolved to (``explicit_date``), so the link keeps naming the same people tomorrow.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from pydantic import BaseModel

__all__ = ["PeopleLink", "filter_params", "pinned_dates", "local_text", "present"]

# The URL of a people list from its query parameters; routes make it from their own path.
PeopleLink = Callable[[dict[str, Any]], str]


def local_text(moment: datetime) -> str:
    """An instant as the project's wall-clock time (the date grammar reads a naive time in the project timezone).

    >>> from datetime import timezone
    >>> local_text(datetime(2026, 1, 5, 23, 59, 59, 999_999, tzinfo=timezone.utc))
    '2026-01-05T23:59:59.999999'
    """
    return moment.replace(tzinfo=None).isoformat()


def pinned_dates(start: datetime, end: datetime) -> dict[str, str]:
    """``date_from``/``date_to`` as the inclusive instants ``start`` and ``end``, read as given."""
    return {"date_from": local_text(start), "date_to": local_text(end), "explicit_date": "true"}


def filter_params(filter: BaseModel, *, leave_out: Iterable[str] = ()) -> dict[str, Any]:
    """``filter`` as query parameters (lists and objects as JSON text), without its dates and ``leave_out``."""
    skipped = {"date_from", "date_to", "explicit_date", *leave_out}
    data = filter.model_dump(exclude_none=True, exclude_defaults=True)
    return {
        key: json.dumps(value) if isinstance(value, list | dict) else value
        for key, value in data.items()
        if key not in skipped
    }


def present(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` without the None values (an event series over all events has no ``entity_id``), which a query
    string would carry as the text ``None``."""
    return {key: value for key, value in params.items() if value is not None}
