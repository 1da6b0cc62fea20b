"""``/api/projects/:id/insights/funnel/`` (GET and POST) and the people behind its numbers, ``persons/funnel/``.

Every step object carries ``converted_people_url`` and ``dropped_people_url`` (see
:func:`..queries.funnel_results.people_url`): the persons endpoint with the same filter and ``funnel_step``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..calculation_envelope import PhaseTimer, calculation_envelope
from ..errors import ValidationError
from ..filter_params import decode_json_text, parse_filter, read_filter_params
from ..limits import MAX_INT64
from ..models.funnels import CorrelationResponse, FunnelFilter, FunnelPeoplePage, FunnelResponse
from ..off_loop import CALCULATION_RESPONSES, compute_off_loop
from ..pagination import Page, page_params, paginated
from ..queries.funnel_correlation import correlation_actors, correlation_payload
from ..queries.funnel_results import funnel_result, step_actors
from ..queries.funnels import run_funnel
from ..query_params import enum_text, integer_text
from ..request_bodies import body_openapi
from ..storage import get_conn, get_settings, now_iso
from ..store.event_store import event_store
from ..store.person_lookup import persons_by_id

__all__ = ["router"]

router = APIRouter(tags=["insights"], responses=CALCULATION_RESPONSES)
INSIGHT_PATH = "/api/projects/{project_id}/insights/funnel"
PEOPLE_PATH = "/api/projects/{project_id}/persons/funnel"
CORRELATION_PATH = "/api/projects/{project_id}/insights/funnel/correlation"
CORRELATION_PEOPLE_PATH = "/api/projects/{project_id}/persons/funnel/correlation"


@router.get(INSIGHT_PATH, response_model=FunnelResponse, summary="Funnel, the filter in the query string")
@router.post(
    INSIGHT_PATH,
    response_model=FunnelResponse,
    summary="Funnel: how many reached each step, how long it took, and who dropped off",
    openapi_extra=body_openapi(FunnelFilter, form=False),
)
async def funnel_route(
    request: Request,
    access: ProjectAccess = Depends(project_access("insight:read", missing_status=403)),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    timer = PhaseTimer()
    filter = parse_filter(FunnelFilter, await read_filter_params(request))
    timer.mark("./filter")
    now = get_settings(request).clock.now()
    result = await compute_off_loop(
        request, conn, lambda: funnel_result(conn, access.project_id, run_funnel(conn, access.project, filter, now))
    )
    timer.mark("./query")
    return calculation_envelope(request, access, result, timer)


@router.get(PEOPLE_PATH, response_model=FunnelPeoplePage, summary="The persons who reached or dropped at a step")
async def funnel_people_route(
    request: Request,
    # within the funnel's steps, and never 0 or -1 (a 400 otherwise)
    funnel_step: integer_text(-MAX_INT64, MAX_INT64) | None = Query(
        None, description="k: reached step k (1-based); -k: dropped before step k"
    ),
    funnel_step_breakdown: str | None = Query(None, description="With a breakdown: the value (JSON) to list"),
    page: Page = Depends(page_params),
    access: ProjectAccess = Depends(project_access("person:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request)
    filter = parse_filter(FunnelFilter, params)
    count = len(filter.steps)
    step = _funnel_step(funnel_step, count)
    value = decode_json_text(funnel_step_breakdown, "funnel_step_breakdown") if funnel_step_breakdown else None
    now = get_settings(request).clock.now()

    def people() -> dict[str, Any]:
        run = run_funnel(conn, access.project, filter, now)
        actors = step_actors(run, step, value)
        if run.group_keys is not None and filter.aggregation_group_type_index is not None:
            keys = sorted(run.group_keys[number] for number in actors)
            return _groups_page(request, page, conn, access.project_id, filter.aggregation_group_type_index, keys)
        return _people_page(request, page, conn, access.project_id, actors)

    return await compute_off_loop(request, conn, people)


def _groups_page(
    request: Request, page: Page, conn: sqlite3.Connection, project_id: int, index: int, keys: list[str]
) -> dict[str, Any]:
    """Groups in the people list's place: key, type index, properties (empty for a group never described)."""
    window = keys[page.offset : page.offset + page.limit]
    stored = dict(event_store(conn).group_properties(project_id, index, window))
    people = [{"group_key": key, "group_type_index": index, "group_properties": stored.get(key, {})} for key in window]
    envelope = paginated(request, page, len(keys), [{"people": people, "count": len(people)}])
    return {**envelope, "count": len(keys)}


def _people_page(
    request: Request, page: Page, conn: sqlite3.Connection, project_id: int, actors: list[int]
) -> dict[str, Any]:
    window = actors[page.offset : page.offset + page.limit]
    persons = persons_by_id(conn, project_id, window)
    people = [persons[person_id] for person_id in window if person_id in persons]
    envelope = paginated(request, page, len(actors), [{"people": people, "count": len(people)}])
    return {**envelope, "count": len(actors)}


def _person_funnel(filter: FunnelFilter) -> None:
    if filter.aggregation_group_type_index is not None:
        raise ValidationError(
            "Correlation of group funnels is not supported.",
            attr="aggregation_group_type_index",
            code="unsupported",
        )


@router.get(CORRELATION_PATH, response_model=CorrelationResponse, summary="Funnel correlation, filter in the query")
@router.post(
    CORRELATION_PATH,
    response_model=CorrelationResponse,
    summary="Events or person properties most associated with converting or dropping off",
    openapi_extra=body_openapi(FunnelFilter, form=False),
)
async def funnel_correlation_route(
    request: Request,
    access: ProjectAccess = Depends(project_access("insight:read", missing_status=403)),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request)
    filter = parse_filter(FunnelFilter, params)
    _person_funnel(filter)
    now = get_settings(request).clock.now()
    result = await compute_off_loop(
        request,
        conn,
        lambda: correlation_payload(
            conn, access.project_id, run_funnel(conn, access.project, _steps_only(filter), now), params
        ),
    )
    return {
        "result": result,
        "last_refresh": now_iso(request),
        "is_cached": False,
    }


@router.get(
    CORRELATION_PEOPLE_PATH, response_model=FunnelPeoplePage, summary="The persons behind one correlation count"
)
async def funnel_correlation_people_route(
    request: Request,
    funnel_correlation_value: str = Query(..., description="The event name (or property::value) of the row"),
    funnel_correlation_person_converted: enum_text("true", "false", empty=False) | None = Query(
        "true", description="true: converted; false: dropped off"
    ),
    page: Page = Depends(page_params),
    access: ProjectAccess = Depends(project_access("person:read")),
    conn: sqlite3.Connection = Depends(get_conn),
) -> dict[str, Any]:
    params = await read_filter_params(request)
    filter = parse_filter(FunnelFilter, params)
    _person_funnel(filter)
    if funnel_correlation_person_converted.lower() not in ("true", "false"):
        raise ValidationError("Use true or false.", attr="funnel_correlation_person_converted")
    converted = funnel_correlation_person_converted.lower() == "true"
    now = get_settings(request).clock.now()

    def people() -> dict[str, Any]:
        run = run_funnel(conn, access.project, _steps_only(filter), now)
        actors = correlation_actors(conn, access.project_id, run, params, funnel_correlation_value, converted)
        return _people_page(request, page, conn, access.project_id, actors)

    return await compute_off_loop(request, conn, people)


def _steps_only(filter: FunnelFilter) -> FunnelFilter:
    """Correlation splits persons by conversion over the whole funnel: no breakdown, the steps view."""
    return filter.model_copy(update={"breakdown": None, "funnel_viz_type": "steps", "display": None})


def _funnel_step(text: str | None, steps: int) -> int:
    try:
        step = int(text) if text not in (None, "") else 1
    except ValueError:
        raise ValidationError("funnel_step must be an integer.", attr="funnel_step") from None
    if step == 0 or abs(step) > max(steps, 1) or step == -1:
        raise ValidationError(
            f"funnel_step must be 1..{steps} (reached) or -2..-{steps} (dropped before that step).", attr="funnel_step"
        )
    return step
