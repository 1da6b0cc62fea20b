"""``/api/projects/:id/insights/``: list, create, retrieve, update (soft delete included); DELETE is refused."""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Query, Request

from ...auth import ProjectAccess, project_access
from ...clock import format_instant
from ...errors import APIError, NotFound, ValidationError
from ...guard import CalculationGuard
from ...limits import MAX_INT64, MIN_INT64
from ...models.common import Paginated
from ...models.insights import Insight, InsightUpdate, InsightWrite, effective_filters, insight_body
from ...queries.analysis_inputs import parse_point
from ...results.dashboard_filters import apply_dashboard_filters
from ...results.modes import ExecutionMode, execution_mode
from ...results.query_nodes import translate_query
from ...results.service import serve_calculation
from ...store.dashboards import dashboard_filters_of, existing_dashboard_ids
from ...store.insights import (
    ORDERABLE,
    InsightListFilter,
    create_insight,
    get_insight,
    insight_dashboard_ids,
    list_insights,
    set_insight_dashboards,
    update_insight,
    with_related,
)
from ...web.csv_render import CSV_CONTENT, CSV_RESPONSES, csv_response
from ...web.deps import get_settings, now_iso
from ...web.off_loop import CALCULATION_RESPONSES, guard_for, run_off_loop
from ...web.pagination import paginated
from ...web.query_params import enum_text, integer_text
from ..common import Conn, LoggedResource, PageQuery, does_not_exist, found, path_id
from ..insight_kinds import calculation_for, can_calculate

__all__ = ["router", "load_insight", "INSIGHTS"]

router = APIRouter(tags=["insights"])
Reader = Annotated[ProjectAccess, Depends(project_access("insight:read", missing_status=403, allow_sharing_token=True))]
# refuses sharing tokens, which only ever open GET
Writer = Annotated[
    ProjectAccess, Depends(project_access("insight:write", missing_status=403, allow_sharing_token=True))
]
# Changes to these move last_modified_at/by; favouriting or saving does not.
MATERIAL_FIELDS = ("name", "description", "filters", "query")
INSIGHTS = LoggedResource(
    scope="Insight",
    logged_fields=(
        "name",
        "derived_name",
        "description",
        "filters",
        "query",
        "deleted",
        "favorited",
        "tags",
        "dashboards",
    ),
    get=get_insight,
)
_TRUE = {"true", "1", "yes", "on"}
REFRESH_HELP = "force_cache (default: never calculates), blocking, async, lazy_async, force_blocking, force_async"
INSIGHT_KINDS = ("TRENDS", "FUNNELS", "RETENTION", "PATHS", "STICKINESS", "LIFECYCLE")

FORMAT_TEXT = enum_text("json", "csv", empty=False)
Format = Annotated[FORMAT_TEXT | None, Query(description="json (default) or csv")]
ORDER_HELP = f"One of {', '.join(ORDERABLE)}, '-' first for descending"
ORDER_TEXT = enum_text(*sorted(ORDERABLE), *sorted("-" + field for field in ORDERABLE), empty=False)


def load_insight(conn: sqlite3.Connection, access: ProjectAccess, value: str | int, **kwargs: Any) -> dict[str, Any]:
    """The project's insight (live ones unless ``include_deleted``), or 404; a sharing token opens only its own."""
    insight_id = path_id(value)
    if access.shared_insight_id is not None and insight_id != access.shared_insight_id:
        raise NotFound()
    return found(get_insight(conn, access.project_id, insight_id, **kwargs))


def _logged_name(insight: dict[str, Any]) -> str | None:
    """The name the activity log shows: the given one, else the derived one."""
    return insight["name"] or insight["derived_name"]


def _result_package(
    request: Request,
    conn: sqlite3.Connection,
    access: ProjectAccess,
    insight: dict[str, Any],
    refresh: str | None,
    *,
    strict: bool,
    dashboard_filters: dict[str, Any] | None = None,
    guard: CalculationGuard | None = None,
) -> dict[str, Any] | None:
    """The insight's result by ``refresh`` mode, or None for kinds this backend cannot calculate.

    ``strict`` (retrieve) turns a request to calculate such a kind, or a filter that cannot be calculated, into
    a 400; a list just shows no result for that insight.
    ``dashboard_filters`` are those of the dashboard the insight is shown on (``from_dashboard``).
    """
    mode = execution_mode(refresh)
    try:
        kind, legacy = translate_query(insight["query"]) if insight["query"] else (None, effective_filters(insight))
    except ValidationError:
        kind, legacy = None, {}
    kind = kind or str(legacy.get("insight", "TRENDS")).upper()
    if dashboard_filters:
        legacy = apply_dashboard_filters(legacy, dashboard_filters)
    if not can_calculate(kind):
        if strict and mode is not ExecutionMode.CACHE_ONLY_NEVER_CALCULATE:
            calculation_for(kind, access.project, legacy, get_settings(request).clock.now())  # raises the 400
        return None
    now = get_settings(request).clock.now()
    try:
        return serve_calculation(
            conn,
            request.app.state.query_runner,
            calculation_for(kind, access.project, legacy, now),
            mode=mode,
            project_id=access.project_id,
            user_id=access.user_id,
            now=now,
            insight_id=insight["id"],
            guard=guard,
        )
    except APIError as error:
        if strict or error.status_code != 400:
            raise
        return None  # a saved draft whose filter cannot be calculated yet: the list shows it without a result


def _dashboard_filters(conn: sqlite3.Connection, access: ProjectAccess, value: str) -> dict[str, Any]:
    """The filters of dashboard ``value`` of the project; a 400 on ``from_dashboard`` when there is none."""
    try:
        dashboard_id = int(value) if value.isascii() else None
    except ValueError:
        dashboard_id = None
    if dashboard_id is None or not MIN_INT64 <= dashboard_id <= MAX_INT64:  # beyond 64 bits SQLite cannot bind it
        raise ValidationError("from_dashboard must be a dashboard id.", attr="from_dashboard")
    filters = dashboard_filters_of(conn, access.project_id, dashboard_id)
    if filters is None:
        raise ValidationError(f"Dashboard {dashboard_id} does not exist.", attr="from_dashboard", code="does_not_exist")
    return filters


def _wants_csv(format: str | None) -> bool:
    if format not in (None, "json", "csv"):
        raise ValidationError("format must be 'json' or 'csv'.", attr="format")
    return format == "csv"


def _answer(body: dict[str, Any], as_csv: bool) -> Any:
    return csv_response(body) if as_csv else body


def _check_dashboards(conn: sqlite3.Connection, access: ProjectAccess, ids: list[int] | None) -> None:
    if ids:
        missing = sorted(set(ids) - existing_dashboard_ids(conn, access.project_id, ids))
        if missing:
            raise does_not_exist(missing[0], attr="dashboards")


def _dashboard_ids(text: str) -> list[int]:
    try:
        ids = json.loads(text)
    except ValueError:
        ids = None
    if not isinstance(ids, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) and MIN_INT64 <= i <= MAX_INT64 for i in ids
    ):
        raise ValidationError("dashboards must be a JSON list of dashboard ids, e.g. [1,2].", attr="dashboards")
    return ids


def _list_filter(request: Request, access: ProjectAccess) -> InsightListFilter:
    """The list's query parameters as a filter; a 400 naming the parameter that does not parse."""
    params = request.query_params
    created_by: list[int] = []
    if "created_by" in params:
        user_id = params["created_by"].strip()
        if not (user_id.isascii() and user_id.isdigit() and int(user_id) <= MAX_INT64):
            raise ValidationError("created_by must be a user id.", attr="created_by")
        created_by.append(int(user_id))
    if "user" in params:
        created_by.append(access.user_id)
    kind = None
    if "insight" in params:
        kind = params["insight"].strip().upper()
        if kind not in INSIGHT_KINDS:
            raise ValidationError(f"insight must be one of {', '.join(INSIGHT_KINDS)}.", attr="insight")
    moments = {}
    for name in ("date_from", "date_to"):
        if params.get(name):
            tz = ZoneInfo(access.project["timezone"])
            moment = parse_point(params[name], tz=tz, now=get_settings(request).clock.now(), attr=name)
            moments[name] = format_instant(moment)
    return InsightListFilter(
        only_id=access.shared_insight_id,
        short_id=params.get("short_id"),
        created_by=tuple(created_by),
        favorited="favorited" in params,
        saved=params["saved"].strip().lower() in _TRUE if "saved" in params else None,
        dashboards=tuple(_dashboard_ids(params["dashboards"])) if "dashboards" in params else (),
        kind=kind,
        modified_after=moments.get("date_from"),
        modified_before=moments.get("date_to"),
        search=params.get("search") or None,
    )


@router.get(
    "/api/projects/{project_id}/insights",
    response_model=Paginated[Insight],
    responses={**CSV_RESPONSES, **CALCULATION_RESPONSES},
    summary="List insights",
)
async def list_insights_route(
    request: Request,
    access: Reader,
    page: PageQuery,
    conn: Conn,
    order: ORDER_TEXT | None = Query("order", description=ORDER_HELP),
    format: Format = None,
    refresh: str | None = Query(None, description=REFRESH_HELP),
) -> Any:
    as_csv = _wants_csv(format)
    if order.lstrip("-") not in ORDERABLE:
        raise ValidationError(f"Cannot order by '{order}'.", attr="order")
    list_filter = _list_filter(request, access)
    guard = guard_for(request)  # the results computed now stop when this client disconnects

    def answer() -> dict[str, Any]:
        rows, total = list_insights(
            conn, access.project_id, list_filter, order=order, limit=page.limit, offset=page.offset
        )
        results = []
        for row in rows:
            guard.start_clock()  # each insight calculated has the whole time limit, as when retrieved alone
            package = _result_package(request, conn, access, row, refresh, strict=False, guard=guard)
            results.append(insight_body(with_related(conn, row), package))
        return paginated(request, page, total, results)

    return _answer(await run_off_loop(request, guard, answer), as_csv)


@router.post(
    "/api/projects/{project_id}/insights",
    response_model=Insight,
    status_code=201,
    responses={200: {"description": "The created insight, with format=csv", "content": CSV_CONTENT}},
    summary="Create an insight",
)
def create_insight_route(
    request: Request,
    body: InsightWrite,
    access: Writer,
    conn: Conn,
    format: Format = None,
) -> Any:
    as_csv = _wants_csv(format)
    values = body.model_dump(exclude_unset=True)
    dashboards = values.pop("dashboards", None)
    _check_dashboards(conn, access, dashboards)
    for field in ("filters", "tags", "deleted", "favorited", "saved"):
        if field in values and values[field] is None:
            values.pop(field)
    now = now_iso(request)
    insight_id = create_insight(conn, project_id=access.project_id, user_id=access.user_id, values=values, now=now)
    if dashboards:
        set_insight_dashboards(conn, insight_id, dashboards)
    insight = found(get_insight(conn, access.project_id, insight_id, include_deleted=True))
    INSIGHTS.log_created(conn, access, insight, now=now, name=_logged_name(insight))
    return _answer(insight_body(with_related(conn, insight)), as_csv)


@router.get(
    "/api/projects/{project_id}/insights/{id:int}",
    response_model=Insight,
    responses={**CSV_RESPONSES, **CALCULATION_RESPONSES},
    summary="Retrieve an insight",
)
async def retrieve_insight(
    request: Request,
    id: int,
    access: Reader,
    conn: Conn,
    format: Format = None,
    refresh: str | None = Query(None, description=REFRESH_HELP),
    from_dashboard: integer_text(1, MAX_INT64) | None = Query(
        None, description="Compute with this dashboard's date range and filters"
    ),
) -> Any:
    as_csv = _wants_csv(format)
    guard = guard_for(request)  # a result computed now stops when this client disconnects

    def answer() -> dict[str, Any]:
        insight = load_insight(conn, access, id)
        dashboard = _dashboard_filters(conn, access, from_dashboard) if from_dashboard not in (None, "") else None
        package = _result_package(
            request, conn, access, insight, refresh, strict=True, dashboard_filters=dashboard, guard=guard
        )
        return insight_body(with_related(conn, insight), package)

    return _answer(await run_off_loop(request, guard, answer), as_csv)


@router.patch(
    "/api/projects/{project_id}/insights/{id:int}",
    response_model=Insight,
    responses=CSV_RESPONSES,
    summary="Update an insight",
)
def update_insight_route(
    request: Request,
    id: int,
    body: InsightUpdate,
    access: Writer,
    conn: Conn,
    format: Format = None,
) -> Any:
    as_csv = _wants_csv(format)
    changes = body.model_dump(exclude_unset=True)
    # Only an explicit undelete may reach a soft-deleted insight.
    insight = load_insight(conn, access, id, include_deleted=changes.get("deleted") is False)
    for field in ("filters", "tags", "deleted", "favorited", "saved"):
        if field in changes and changes[field] is None:
            raise ValidationError("This field may not be null.", attr=field, code="null")
    dashboards = changes.pop("dashboards", None)
    _check_dashboards(conn, access, dashboards)
    before = {**insight, "dashboards": insight_dashboard_ids(conn, insight["id"])}
    now = now_iso(request)
    material = any(field in changes and changes[field] != insight[field] for field in MATERIAL_FIELDS)
    update_insight(conn, insight["id"], changes, user_id=access.user_id, now=now, material=material)
    if dashboards is not None:
        set_insight_dashboards(conn, insight["id"], dashboards)
    after_row = found(get_insight(conn, access.project_id, insight["id"], include_deleted=True))
    after = {**after_row, "dashboards": insight_dashboard_ids(conn, insight["id"])}
    INSIGHTS.log_updated(conn, access, before, after, now=now, name=_logged_name(after_row))
    return _answer(insight_body(with_related(conn, after_row)), as_csv)
