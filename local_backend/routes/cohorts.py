"""``/api/projects/:id/cohorts/``: list, create, retrieve, update (soft delete included), members, activity.

``PATCH .../cohorts/:id/add_persons_to_static_cohort/`` adds persons by uuid to a static cohort, as PostHog's
endpoint of that name does: all of them or, when one names nobody in the project, none.

Bodies are JSON, or multipart with a ``csv`` file of ids (and ``filters`` as JSON text). DELETE is refused
with 405 as PostHog does; ``PATCH {"deleted": true}`` hides a cohort from the list.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from starlette.datastructures import FormData, UploadFile

from ..auth import ProjectAccess, project_access
from ..errors import ParseError, ValidationError
from ..models.cohorts import (
    Cohort,
    CohortCreate,
    CohortUpdate,
    CohortWrite,
    IdType,
    StaticCohortPersons,
    cohort_body,
    parse_cohort_csv,
    validate_cohort_filters,
)
from ..models.common import Paginated
from ..models.fields import NON_BLANK
from ..models.persons import Person, person_body
from ..queries.cohort_members import cohort_count_or_none, cohort_member_condition
from ..queries.person_list import list_persons
from ..store import cohorts as store
from ..store.accounts import get_user
from ..web.deps import now_iso
from ..web.pagination import paginated
from ..web.request_bodies import body_openapi, parse_model, read_body
from .common import Conn, LoggedResource, PageQuery
from .resource_routes import declare_list, declare_retrieve, declare_soft_deleted_item

__all__ = ["router", "COHORTS"]

router = APIRouter(tags=["cohorts"])
Reader = Annotated[ProjectAccess, Depends(project_access("cohort:read"))]
Writer = Annotated[ProjectAccess, Depends(project_access("cohort:write"))]
COHORTS = LoggedResource(
    scope="Cohort", logged_fields=("name", "description", "filters", "deleted"), get=store.get_cohort
)
FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


def _cohort_openapi(model: type[CohortWrite], *, required: bool) -> dict[str, Any]:
    """The body documented both ways: JSON, or multipart with the ids as a CSV file."""
    extra = body_openapi(model, form=False, required=required)
    form_fields = {
        "name": {"type": "string", "maxLength": 400, "pattern": NON_BLANK},
        "description": {"type": "string", "maxLength": 4000},
        "is_static": {"type": "boolean"},
        "filters": {"type": "string", "description": "A JSON object, as text; empty: not given"},
        "csv": {"type": "string", "format": "binary", "description": "Ids of persons to add (static cohorts)"},
    }
    form: dict[str, Any] = {"type": "object", "properties": form_fields}
    if model is CohortCreate:
        form["required"] = ["name"]
    extra["requestBody"]["content"]["multipart/form-data"] = {"schema": form}
    return extra


COHORT_BODY_OPENAPI = _cohort_openapi(CohortCreate, required=True)
COHORT_UPDATE_OPENAPI = _cohort_openapi(CohortUpdate, required=False)  # an empty update changes nothing


def _body(conn: sqlite3.Connection, cohort: dict[str, Any], unknown: list[str] | None = None) -> dict[str, Any]:
    created_by = get_user(conn, cohort["created_by_id"])
    return cohort_body(cohort, created_by=created_by, count=cohort_count_or_none(conn, cohort), unknown_ids=unknown)


async def _read_cohort_body(request: Request) -> tuple[CohortWrite, bytes | None]:
    """The body as a CohortWrite, and the bytes of an uploaded ``csv`` file if there is one."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in FORM_TYPES:
        return parse_model(CohortWrite, await read_body(request)), None
    try:
        form = await request.form()
    except Exception:  # a body that does not parse as the declared form
        raise ParseError("Multipart form parse error.") from None
    try:
        data, upload = await _form_fields(form)
    finally:
        await form.close()
    return parse_model(CohortWrite, data), upload


async def _form_fields(form: FormData) -> tuple[dict[str, Any], bytes | None]:
    data: dict[str, Any] = {}
    upload: bytes | None = None
    for key, value in form.multi_items():
        if isinstance(value, UploadFile):
            if key != "csv":
                raise ValidationError("Only a file named csv can be uploaded here.", attr=key)
            upload = await value.read()
        elif key == "filters":
            if not value.strip():
                continue  # a form sends every field: an empty one leaves the rules as they are
            try:
                data[key] = json.loads(value)
            except (ValueError, RecursionError):
                raise ValidationError("Enter valid JSON.", attr=key) from None
        elif key == "distinct_ids":
            data.setdefault(key, []).append(value)
        else:
            data[key] = value
    return data, upload


def _members_given(body: CohortWrite, upload: bytes | None) -> tuple[IdType, list[str]] | None:
    if upload is not None and body.distinct_ids is not None:
        raise ValidationError("Send either a csv file or distinct_ids, not both.", attr="csv")
    if upload is not None:
        return parse_cohort_csv(upload)
    ids = [value for value in body.distinct_ids or [] if value]
    return ("distinct_id", ids) if ids else None


declare_list(
    router,
    "/api/projects/{project_id}/cohorts",
    reader=Reader,
    model=Cohort,
    rows=store.list_cohorts,
    body=_body,
    summary="List cohorts (deleted ones hidden), newest first",
)


@router.post(
    "/api/projects/{project_id}/cohorts",
    response_model=Cohort,
    status_code=201,
    summary="Create a static cohort (distinct_ids or a csv file) or a property-based one (filters)",
    openapi_extra=COHORT_BODY_OPENAPI,
)
async def create_cohort_route(request: Request, access: Writer, conn: Conn) -> dict[str, Any]:
    body, upload = await _read_cohort_body(request)
    if body.name is None or not body.name.strip():
        raise ValidationError("This field is required.", attr="name", code="required")
    given = _members_given(body, upload)
    is_static = bool(body.is_static)
    if given is not None and not is_static:
        raise ValidationError("Only a static cohort (is_static: true) takes a list of persons.", attr="is_static")
    filters = (body.filters or {}) if is_static else validate_cohort_filters(body.filters)
    members, unknown = store.resolve_person_ids(conn, access.project_id, *given) if given else (set(), None)
    now = now_iso(request)
    values = {"name": body.name, "description": body.description, "is_static": is_static, "filters": filters}
    cohort_id = store.create_cohort(
        conn, project_id=access.project_id, user_id=access.user_id, values=values, members=members, now=now
    )
    cohort = COHORTS.load(conn, access, cohort_id)
    COHORTS.log_created(conn, access, cohort, now=cohort["updated_at"])
    return _body(conn, cohort, unknown)


@router.patch(
    "/api/projects/{project_id}/cohorts/{id}",
    response_model=Cohort,
    summary="Update a cohort; deleted: true hides it; distinct_ids or a csv file add members to a static one",
    openapi_extra=COHORT_UPDATE_OPENAPI,
)
async def update_cohort_route(request: Request, id: str, access: Writer, conn: Conn) -> dict[str, Any]:
    cohort = COHORTS.load(conn, access, id)
    body, upload = await _read_cohort_body(request)
    changes = body.model_dump(exclude_unset=True)
    changes.pop("distinct_ids", None)
    for field in ("name", "filters", "deleted", "is_static"):
        if field in changes and changes[field] is None:
            raise ValidationError("This field may not be null.", attr=field, code="null")
    if changes.get("name", "x").strip() == "":
        raise ValidationError("This field may not be blank.", attr="name", code="blank")
    if changes.pop("is_static", cohort["is_static"]) != cohort["is_static"]:
        raise ValidationError("A cohort cannot change between static and property-based.", attr="is_static")
    if changes.get("description", "") is None:
        changes["description"] = ""
    if "filters" in changes and not cohort["is_static"]:
        validate_cohort_filters(changes["filters"])
    given = _members_given(body, upload)
    if given is not None and not cohort["is_static"]:
        raise ValidationError("Only a static cohort takes a list of persons.", attr="csv" if upload else "distinct_ids")
    members, unknown = store.resolve_person_ids(conn, access.project_id, *given) if given else (None, None)
    store.update_cohort(conn, cohort["id"], changes, members=members, now=now_iso(request))
    after = COHORTS.load(conn, access, id)
    people = [{"type": COHORTS.scope, "action": "changed", "field": "people", "before": None, "after": None}]
    COHORTS.log_updated(conn, access, cohort, after, now=after["updated_at"], extra=people if given is not None else ())
    return _body(conn, after, unknown)


@router.patch(
    "/api/projects/{project_id}/cohorts/{id}/add_persons_to_static_cohort",
    response_model=Cohort,
    summary="Add persons (by uuid) to a static cohort; an unknown uuid is a 400 and adds no one",
)
def add_persons_route(
    request: Request, id: str, body: StaticCohortPersons, access: Writer, conn: Conn
) -> dict[str, Any]:
    cohort = COHORTS.load(conn, access, id)
    if not cohort["is_static"]:
        raise ValidationError("Only a static cohort takes a list of persons.", attr="person_ids")
    uuids = [str(value) for value in body.person_ids]
    members, unknown = store.resolve_person_ids(conn, access.project_id, "person_id", uuids)
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise ValidationError(f"No person in this project has the uuid {shown}.", attr="person_ids")
    if members:
        store.update_cohort(conn, cohort["id"], {}, members=members, now=now_iso(request))
        after = COHORTS.load(conn, access, id)
        people = [{"type": COHORTS.scope, "action": "changed", "field": "people", "before": None, "after": None}]
        COHORTS.log_updated(conn, access, cohort, after, now=after["updated_at"], extra=people)
        cohort = after
    return _body(conn, cohort)


@router.get(
    "/api/projects/{project_id}/cohorts/{id}/persons",
    response_model=Paginated[Person],
    summary="The persons in a cohort now (needs cohort:read and person:read)",
)
def cohort_persons(request: Request, id: str, access: Reader, page: PageQuery, conn: Conn) -> dict[str, Any]:
    access.caller.require_scope("person:read")
    cohort = COHORTS.load(conn, access, id)
    persons, total = list_persons(
        conn,
        access.project_id,
        where=[cohort_member_condition(conn, cohort)],
        limit=page.limit,
        offset=page.offset,
    )
    return paginated(request, page, total, [person_body(person) for person in persons])


declare_retrieve(
    router,
    "/api/projects/{project_id}/cohorts/{id}",
    reader=Reader,
    model=Cohort,
    load=COHORTS.load,
    body=_body,
    summary="Retrieve a cohort (deleted ones too)",
)
declare_soft_deleted_item(router, "/api/projects/{project_id}/cohorts/{id}", COHORTS, noun="cohort", writer=Writer)
