"""``/api/projects/:id/persons/``: list persons (search, distinct id, person property filters) and retrieve one.

The retention people list, ``persons/retention/``, lives with retention.
"""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ..auth import ProjectAccess, project_access
from ..models.common import Paginated
from ..models.persons import Person, person_body
from ..queries.cohort_members import cohort_member_condition
from ..queries.person_filters import person_properties_condition
from ..queries.person_list import (
    Condition,
    distinct_id_condition,
    find_person,
    list_persons,
    person_search_condition,
)
from ..store.cohorts import get_cohort
from ..store.ids import parse_id
from ..web.pagination import paginated
from ..web.query_params import parse_filter_param
from .common import Conn, PageQuery, does_not_exist, found

__all__ = ["router", "properties_param_condition"]

router = APIRouter(tags=["persons"])
Reader = Annotated[ProjectAccess, Depends(project_access("person:read"))]


def properties_param_condition(conn: sqlite3.Connection, project_id: int, text: str | None) -> Condition:
    """The ``properties`` query parameter (JSON: a list of person filters, or a group) as a condition."""
    properties = parse_filter_param(text, name="properties")
    if properties is None:
        return "1", []
    return person_properties_condition(conn, project_id, properties, "properties")


def _cohort_condition(conn: sqlite3.Connection, access: ProjectAccess, value: str) -> Condition:
    access.caller.require_scope("cohort:read")
    cohort = get_cohort(conn, access.project_id, cohort_id) if (cohort_id := parse_id(value)) is not None else None
    if cohort is None or cohort["deleted"]:
        raise does_not_exist(value, attr="cohort")
    return cohort_member_condition(conn, cohort)


@router.get(
    "/api/projects/{project_id}/persons", response_model=Paginated[Person], summary="List persons, newest first"
)
def list_persons_route(
    request: Request,
    access: Reader,
    page: PageQuery,
    conn: Conn,
    search: str | None = Query(None, description="Every term must occur in a distinct id or the email property"),
    distinct_id: str | None = Query(None, description="Only the person with this distinct id"),
    properties: str | None = Query(None, description='JSON person filters, e.g. [{"key":"plan","value":"pro"}]'),
    cohort: str | None = Query(None, description="Only members of this cohort (needs cohort:read too)"),
) -> dict[str, Any]:
    where = [person_search_condition(search), properties_param_condition(conn, access.project_id, properties)]
    if cohort is not None:
        where.append(_cohort_condition(conn, access, cohort))
    if distinct_id is not None:
        where.append(distinct_id_condition(access.project_id, distinct_id))
    persons, total = list_persons(conn, access.project_id, where=where, limit=page.limit, offset=page.offset)
    return paginated(request, page, total, [person_body(person) for person in persons])


@router.get(
    "/api/projects/{project_id}/persons/{person_id}", response_model=Person, summary="Retrieve a person by id or uuid"
)
def retrieve_person(person_id: str, access: Reader, conn: Conn) -> dict[str, Any]:
    person = found(find_person(conn, access.project_id, person_id))
    return person_body(person)
