"""``/api/projects/:id/insights/``: list, create, retrieve, update (soft delete included); DELETE is refused."""

from __future__ import annotations

import json
import sqlite3
from typing import Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..calculation_guard import CalculationGuard
from ..clock import format_instant
from ..csv_render import CSV_CONTENT, CSV_RESPONSES, csv_response
from ..errors import MethodNotAllowed, NotFound, ValidationError
from ..limits import MAX_INT64, MIN_INT64
from ..models.common import ErrorResponse, Paginated
from ..models.insights import Insight, InsightUpdate, InsightWrite, effective_filters, insight_body
from ..off_loop import CALCULATION_RESPONSES, guard_for, run_off_loop
from ..pagination import Page, page_params, paginated
from ..queries.analysis_inputs import parse_point
from ..query_params import enum_text, integer_text
from ..results.dashboard_filters import apply_dashboard_filters
from ..results.kinds import calculation_for, can_calculate
from ..results.modes import ExecutionMode, execution_mode
from ..results.query_nodes import translate_query
from ..results.service import serve_calculation
from ..storage import get_conn, get_settings, now_iso
from ..store.activity import log_item_change
from ..store.insights import (
    ORDERABLE,
    create_insight,
    dashboard_filters_of,
    existing_dashboard_ids,
    get_insight,
    insight_dashboard_ids,
    list_insights,
    set_insight_dashboards,
    update_insight,
)

__all__ = ["router", "parse_insight_id", "load_insight", "INSIGHT_SCOPE_NAME"]

router = APIRouter(tags=["insights"])
INSIGHT_SCOPE_NAME = "Insight"
READ = project_access("insight:read", missing_status=403, allow_sharing_token=True)
WRITE = project_access("insight:write", missing_status=403, allow_sharing_token=True)  # refuses tokens: not GET
# Changes to these move last_modified_at/by; favouriting or saving does not.
MATERIAL_FIELDS = ("name", "description", "filters", "query")
# Fields whose changes the activity log records.
LOGGED_FIELDS = (
    "name",
    "derived_name",
    "description",
    "filters",
    "query",
    "deleted",
    "favorited",
    "tags",
    "dashboards",
)
_TRUE = {"true", "1", "yes", "on"}
REFRESH_HELP = "force_cache (default: never calculates), blocking, async, lazy_async, force_blocking, force_async"
INSIGHT_KINDS = ("TRENDS", "FUNNELS", "RETENTION", "PATHS", "STICKINESS", "LIFECYCLE")

FORMAT_TEXT = enum_text("json", "csv", empty=False)
ORDER_HELP = f"One of {', '.join(ORDERABLE)}, '-' first for descending"
ORDER_TEXT = enum_text(*sorted(ORDERABLE), *sorted("-" + field for field in ORDERABLE), empty=False)


def parse_insight_id(value: str | int) -> int:
    try:
        insight_id = int(value)
    except ValueError:
        raise NotFound() from None
    if not 0 < insight_id < 2**63:
        raise NotFound()
    return insight_id


def load_insight(conn: sqlite3.Connection, access: ProjectAccess, value: str | int, **kwargs: Any) -> dict[str, Any]:
    insight_id = parse_insight_id(value)
    if access.shared_insight_id is not None and insight_id != access.shared_insight_id:
        raise NotFound()
    insight = get_insight(conn, access.project_id, insight_id, **kwargs)
    if insight is None:
        raise NotFound()
    return insight


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

    ``strict`` (retrieve) turns a request to calculate such a kind into a 400; a list just shows no result.
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


def _check_dashboards(conn: sqlite3.Connection, access: ProjectAccess, ids: list[int] | None) -> None:
    if ids:
        missing = sorted(set(ids) - existing_dashboard_ids(conn, access.project_id, ids))
        if missing:
            raise ValidationError(
                f'Invalid pk "{missing[0]}" - object does not exist.', attr="dashboards", code="does_not_exist"
            )


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


def _list_conditions(request: Request, access: ProjectAccess) -> list[tuple[str, list[Any]]]:
    params = request.query_params
    where: list[tuple[str, list[Any]]] = []
    if access.shared_insight_id is not None:
        where.append(("id = ?", [access.shared_insight_id]))
    if "short_id" in params:
        where.append(("short_id = ?", [params["short_id"]]))
    if "created_by" in params:
        user_id = params["created_by"].strip()
        if not (user_id.isascii() and user_id.isdigit() and int(user_id) <= MAX_INT64):
            raise ValidationError("created_by must be a user id.", attr="created_by")
        where.append(("created_by_id = ?", [int(user_id)]))
    if "user" in params:
        where.append(("created_by_id = ?", [access.user_id]))
    if "favorited" in params:
        where.append(("favorited = 1", []))
    if "saved" in params:
        if params["saved"].strip().lower() in _TRUE:
            where.append(
                ("(saved = 1 OR EXISTS (SELECT 1 FROM dashboard_tiles t WHERE t.insight_id = insights.id"
                 " AND t.deleted = 0))", [])
            )  # fmt: skip
        else:
            where.append(("saved = 0", []))
    if "dashboards" in params:
        for dashboard_id in _dashboard_ids(params["dashboards"]):
            where.append(
                ("EXISTS (SELECT 1 FROM dashboard_tiles t WHERE t.insight_id = insights.id AND t.dashboard_id = ?"
                 " AND t.deleted = 0)", [dashboard_id])
            )  # fmt: skip
    if "insight" in params:
        kind = params["insight"].strip().upper()
        if kind not in INSIGHT_KINDS:
            raise ValidationError(f"insight must be one of {', '.join(INSIGHT_KINDS)}.", attr="insight")
        where.append(("query IS NULL AND coalesce(json_extract(filters, '$.insight'), 'TRENDS') = ?", [kind]))
    for name, operator in (("date_from", ">"), ("date_to", "<")):
        if params.get(name):
            tz = ZoneInfo(access.project["timezone"])
            moment = parse_point(params[name], tz=tz, now=get_settings(request).clock.now(), attr=name)
            where.append((f"last_modified_at {operator} ?", [format_instant(moment)]))
    if params.get("search"):
        pattern = "%" + params["search"].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where.append(
            ("(name LIKE ? ESCAPE '\\' OR derived_name LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\'"
             " OR tags LIKE ? ESCAPE '\\')", [pattern] * 4)
        )  # fmt: skip
    return where


@router.get(
    "/api/projects/{project_id}/insights",
    response_model=Paginated[Insight],
    responses={**CSV_RESPONSES, **CALCULATION_RESPONSES},
    summary="List insights",
)
async def list_insights_route(
    request: Request,
    access: ProjectAccess = Depends(READ),
    page: Page = Depends(page_params),
    conn: sqlite3.Connection = Depends(get_conn),
    order: ORDER_TEXT | None = Query("order", description=ORDER_HELP),
    format: FORMAT_TEXT | None = Query(None, description="json (default) or csv"),
    refresh: str | None = Query(None, description=REFRESH_HELP),
) -> Any:
    as_csv = _wants_csv(format)
    if order.lstrip("-") not in ORDERABLE:
        raise ValidationError(f"Cannot order by '{order}'.", attr="order")
    where = _list_conditions(request, access)
    guard = guard_for(request)  # the results computed now stop when this client disconnects

    def answer() -> dict[str, Any]:
        rows, total = list_insights(
            conn, access.project_id, where=where, order=order, limit=page.limit, offset=page.offset
        )
        results = []
        for row in rows:
            guard.start_clock()  # each insight calculated has the whole time limit, as when retrieved alone
            results.append(
                insight_body(conn, row, _result_package(request, conn, access, row, refresh, strict=False, guard=guard))
            )
        return paginated(request, page, total, results)

    body = await run_off_loop(request, guard, answer)
    return csv_response(body) if as_csv else body


def _log(conn: sqlite3.Connection, access: ProjectAccess, insight: dict, activity: str, changes: list | None, now: str):
    log_item_change(
        conn,
        project_id=access.project_id,
        user_id=access.user_id,
        scope=INSIGHT_SCOPE_NAME,
        item_id=insight["id"],
        name=insight["name"] or insight["derived_name"],
        activity=activity,
        changes=changes,
        short_id=insight["short_id"],
        now=now,
    )


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
    access: ProjectAccess = Depends(WRITE),
    conn: sqlite3.Connection = Depends(get_conn),
    format: FORMAT_TEXT | None = Query(None, description="json (default) or csv"),
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
    insight = get_insight(conn, access.project_id, insight_id, include_deleted=True) or {}
    _log(conn, access, insight, "created", None, now)
    result = insight_body(conn, insight)
    return csv_response(result) if as_csv else result


@router.get(
    "/api/projects/{project_id}/insights/{insight_id:int}",
    response_model=Insight,
    responses={**CSV_RESPONSES, **CALCULATION_RESPONSES},
    summary="Retrieve an insight",
)
async def retrieve_insight(
    request: Request,
    insight_id: int,
    access: ProjectAccess = Depends(READ),
    conn: sqlite3.Connection = Depends(get_conn),
    format: FORMAT_TEXT | None = Query(None, description="json (default) or csv"),
    refresh: str | None = Query(None, description=REFRESH_HELP),
    from_dashboard: integer_text(1, MAX_INT64) | None = Query(
        None, description="Compute with this dashboard's date range and filters"
    ),
) -> Any:
    as_csv = _wants_csv(format)
    guard = guard_for(request)  # a result computed now stops when this client disconnects

    def answer() -> dict[str, Any]:
        insight = load_insight(conn, access, insight_id)
        dashboard = _dashboard_filters(conn, access, from_dashboard) if from_dashboard not in (None, "") else None
        package = _result_package(
            request, conn, access, insight, refresh, strict=True, dashboard_filters=dashboard, guard=guard
        )
        return insight_body(conn, insight, package)

    body = await run_off_loop(request, guard, answer)
    return csv_response(body) if as_csv else body


@router.patch(
    "/api/projects/{project_id}/insights/{insight_id:int}",
    response_model=Insight,
    responses=CSV_RESPONSES,
    summary="Update an insight",
)
def update_insight_route(
    request: Request,
    insight_id: int,
    body: InsightUpdate,
    access: ProjectAccess = Depends(WRITE),
    conn: sqlite3.Connection = Depends(get_conn),
    format: FORMAT_TEXT | None = Query(None, description="json (default) or csv"),
) -> Any:
    as_csv = _wants_csv(format)
    changes = body.model_dump(exclude_unset=True)
    # Only an explicit undelete may reach a soft-deleted insight.
    insight = load_insight(conn, access, insight_id, include_deleted=changes.get("deleted") is False)
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
    after_row = get_insight(conn, access.project_id, insight["id"], include_deleted=True) or {}
    after = {**after_row, "dashboards": insight_dashboard_ids(conn, insight["id"])}
    diff = [
        {"type": "Insight", "action": "changed", "field": field, "before": before[field], "after": after[field]}
        for field in LOGGED_FIELDS
        if before[field] != after[field]
    ]
    if diff:
        deleted_now = changes.get("deleted") is True and not insight["deleted"]
        _log(conn, access, after_row, "deleted" if deleted_now else "updated", diff, now)
    result = insight_body(conn, after_row)
    return csv_response(result) if as_csv else result


@router.delete(
    "/api/projects/{project_id}/insights/{insight_id:int}",
    status_code=405,
    response_model=ErrorResponse,
    responses={405: {"model": ErrorResponse, "description": "Always refused"}},
    summary='Refused: insights are soft-deleted with PATCH {"deleted": true}',
)
def delete_insight(insight_id: int, access: ProjectAccess = Depends(WRITE)) -> None:
    raise MethodNotAllowed("DELETE")
