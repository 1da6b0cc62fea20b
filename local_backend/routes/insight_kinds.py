"""Which insight kinds this backend can calculate, and the calculation for one of them.

A kind maps to a function ``(connection, project, legacy filter dict, now) -> {"result", "timezone"}``. Saved
insights (``refresh``) and the query endpoint both come through here, so they share one engine per kind.
Funnel, retention, trend, stickiness and lifecycle results link to people lists; their URLs come from the
paths of the routes that serve those lists (:func:`_people_link`, :func:`..web.calculation_envelope.link_to`),
as they do when the calculation routes answer, which is why this module lives beside those routes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..errors import ValidationError
from ..queries.funnels import PeopleLink, funnel_payload
from ..queries.lifecycle import lifecycle_payload
from ..queries.paths import paths_payload
from ..queries.retention import retention_payload
from ..queries.stickiness import stickiness_payload
from ..queries.trend_kinds import TREND_ENDPOINT_KINDS, TRENDS, trend_request_kind
from ..queries.trends import trends_payload
from ..queries.unsupported_fields import refuse_unsupported_fields
from ..results.runner import Calculation
from ..results.service import cache_key_for
from ..web.calculation_envelope import link_to
from . import funnels, retention, trend_people

__all__ = ["ENGINES", "can_calculate", "calculation_for"]

Engine = Callable[[sqlite3.Connection, dict[str, Any], dict[str, Any], datetime], dict[str, Any]]


def _people_link(kind: str, project_id: int) -> PeopleLink:
    if kind == "FUNNELS":
        return link_to(funnels.router, "funnel_people_route", project_id)
    return link_to(retention.router, "retention_people_route", project_id)


def _funnel(conn: sqlite3.Connection, project: dict[str, Any], data: dict[str, Any], now: datetime) -> dict[str, Any]:
    return funnel_payload(conn, project, data, now, _people_link("FUNNELS", int(project["id"])))


def _retention(
    conn: sqlite3.Connection, project: dict[str, Any], data: dict[str, Any], now: datetime
) -> dict[str, Any]:
    return retention_payload(conn, project, data, now, _people_link("RETENTION", int(project["id"])))


def _trends(conn: sqlite3.Connection, project: dict[str, Any], data: dict[str, Any], now: datetime) -> dict[str, Any]:
    link = link_to(trend_people.router, "trend_people_route", int(project["id"]))
    return trends_payload(conn, project, data, now, link)


def _stickiness(
    conn: sqlite3.Connection, project: dict[str, Any], data: dict[str, Any], now: datetime
) -> dict[str, Any]:
    link = link_to(trend_people.router, "stickiness_people_route", int(project["id"]))
    return stickiness_payload(conn, project, data, now, link)


def _lifecycle(
    conn: sqlite3.Connection, project: dict[str, Any], data: dict[str, Any], now: datetime
) -> dict[str, Any]:
    link = link_to(trend_people.router, "lifecycle_people_route", int(project["id"]))
    return lifecycle_payload(conn, project, data, now, link)


ENGINES: dict[str, Engine] = {
    "RETENTION": _retention,
    "PATHS": paths_payload,
    "FUNNELS": _funnel,
    "TRENDS": _trends,
    "STICKINESS": _stickiness,
    "LIFECYCLE": _lifecycle,
}
# Keys that change how a result is fetched, not what it is.
_NOT_IN_CACHE_KEY = ("refresh", "client_query_id", "personal_api_key", "format")


def can_calculate(kind: str) -> bool:
    return kind in ENGINES


def calculation_for(kind: str, project: dict[str, Any], legacy: dict[str, Any], now: datetime) -> Calculation:
    """The cacheable calculation of a legacy filter of ``kind``; a 400 for kinds without an engine here, and for
    fields that change the answer and are not calculated here yet. A TRENDS filter whose ``shown_as`` says
    Stickiness or Lifecycle is calculated as that kind, as the trend endpoint calculates it."""
    if kind == TRENDS:
        kind = trend_request_kind(legacy)
    if kind not in ENGINES:
        available = ", ".join(sorted(ENGINES))
        raise ValidationError(
            f"This backend cannot calculate {kind} insights yet; it calculates {available}.",
            attr="insight",
            code="unsupported",
        )
    refuse_unsupported_fields(kind, legacy)
    engine = ENGINES[kind]
    normalized = {k: v for k, v in legacy.items() if k not in _NOT_IN_CACHE_KEY}
    interval = str(normalized.get("period", "Day")).lower() if kind == "RETENTION" else None
    if kind in TREND_ENDPOINT_KINDS:
        interval = str(normalized.get("interval") or "day").lower()

    def compute(conn: sqlite3.Connection) -> dict[str, Any]:
        return engine(conn, project, normalized, now)

    return Calculation(
        cache_key=cache_key_for(int(project["id"]), kind, normalized, project.get("timezone") or "UTC"),
        interval=interval,
        date_to=None,
        compute=compute,
    )
