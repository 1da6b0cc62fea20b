"""``/api/projects/:id/insights/trend/`` (GET and POST): trends, stickiness and lifecycle from the stored events.

``shown_as: "Stickiness"`` (or ``insight: "STICKINESS"``) answers stickiness, ``shown_as: "Lifecycle"`` (or
``insight: "LIFECYCLE"``) lifecycle, as PostHog's endpoint does (:mod:`..queries.trend_kinds`); anything else a
trend.

Every point links to its people (``persons_urls``; ``persons`` for an aggregated display), served by
:mod:`.trend_people`.

``format=csv`` answers PostHog's trend CSV: a ``series`` column then one column per bucket label, one row per
series (its custom name or label), as an attachment. ``offset`` pages through breakdown values: ``next`` is
this endpoint with the same filter (as JSON text in the query string) and the following offset.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import ValidationError
from ..models.trends import TrendsResponse
from ..queries.breakdowns import MAX_OFFSET
from ..queries.dates import DateRange
from ..queries.lifecycle import LifecycleFilter, compute_lifecycle
from ..queries.stickiness import StickinessFilter, compute_stickiness
from ..queries.trend_kinds import LIFECYCLE, STICKINESS, trend_request_kind
from ..queries.trends import TrendsFilter, compute_trends
from ..web.calculation_envelope import calculate, calculation_envelope, link_to, read_calculation
from ..web.filter_request import read_filter_params
from ..web.off_loop import CALCULATION_RESPONSES
from ..web.pagination import parse_int_param
from . import trend_people
from .calculation_routes import calculation_route
from .common import Conn, InsightReader

__all__ = ["router", "trend_csv"]

router = APIRouter(tags=["insights"], responses=CALCULATION_RESPONSES)


def _next_url(project_id: int, params: dict[str, Any], offset: int) -> str:
    query = {key: value if isinstance(value, str) else json.dumps(value) for key, value in params.items()}
    query["offset"] = str(offset)
    return link_to(router, "trend_route", project_id)(query)


def trend_csv(series: list[dict[str, Any]], filename: str) -> Response:
    """PostHog's trend CSV: ``series,<label>...``, one row per series."""
    out = io.StringIO()
    writer = csv.writer(out)
    aggregated = any("aggregated_value" in item for item in series)
    header = ["series", *(["aggregated_value"] if aggregated else (series[0]["labels"] if series else []))]
    writer.writerow(header)
    for item in series:
        name = (item.get("action") or {}).get("custom_name") or item["label"]
        writer.writerow([name, *([item["aggregated_value"]] if aggregated else item["data"])])
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@calculation_route(
    router,
    "/api/projects/{project_id}/insights/trend",
    response_model=TrendsResponse,
    filter_model=TrendsFilter,
    title="Trend",
    summary="Trend: events, users or a property aggregated per hour, day, week or month",
    response_model_exclude_unset=True,
)
async def trend_route(request: Request, access: InsightReader, conn: Conn) -> Any:
    output = request.query_params.get("format")
    if output not in (None, "json", "csv"):
        raise ValidationError("format must be 'json' or 'csv'.", attr="format")
    offset = parse_int_param(
        request.query_params.get("offset"), name="offset", default=0, minimum=0, maximum=MAX_OFFSET
    )
    kind = trend_request_kind(await read_filter_params(request))
    if kind == LIFECYCLE:
        lifecycle = await read_calculation(request, LifecycleFilter)
        link = link_to(trend_people.router, "lifecycle_people_route", access.project_id)
        computed = await calculate(
            request,
            conn,
            lifecycle,
            lambda: compute_lifecycle(conn, access.project, lifecycle.filter, lifecycle.now, link),
        )
        if output == "csv":
            return trend_csv(computed.series, f"lifecycle ({_span(computed.date_range)}).csv")
        return calculation_envelope(request, access, computed.series, lifecycle.timer, next=None)
    model = StickinessFilter if kind == STICKINESS else TrendsFilter
    calc = await read_calculation(request, model)
    compute = compute_stickiness if kind == STICKINESS else compute_trends
    handler = "stickiness_people_route" if kind == STICKINESS else "trend_people_route"
    link = link_to(trend_people.router, handler, access.project_id)
    result = await calculate(
        request,
        conn,
        calc,
        lambda: compute(conn, access.project, calc.filter, calc.now, offset=offset, people_link=link),
    )
    if output == "csv":
        name = "stickiness" if kind == STICKINESS else "trends"
        return trend_csv(result.series, f"{name} ({_span(result.date_range)}).csv")
    more = offset + calc.filter.breakdown_limit
    next_url = _next_url(access.project_id, calc.params, more) if result.has_more else None
    return calculation_envelope(request, access, result.series, calc.timer, next=next_url)


def _span(date_range: DateRange) -> str:
    return f"{date_range.date_from.date()} {date_range.date_to.date()}"
