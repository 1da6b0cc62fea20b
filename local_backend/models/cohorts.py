"""Cohort shapes: a static list of persons, or person-property rules evaluated when the cohort is used.

Static members arrive as ``distinct_ids`` in JSON or as a CSV file in the ``csv`` field of a multipart body,
read as PostHog reads it: one column of distinct ids (a header of ``person_id`` or ``email`` instead names
that kind of id), or several columns with a header naming a ``person_id``, ``distinct_id`` or ``email``
column (in that order of preference).
"""

from __future__ import annotations

import csv
import io
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ValidationError
from .common import UserBasic, user_basic
from .fields import Flag, JSONObject, non_blank, non_blank_not_null, not_null
from .property_filters import validate_person_filters

__all__ = [
    "cohort_body",
    "IdType",
    "CohortWrite",
    "CohortCreate",
    "CohortUpdate",
    "Cohort",
    "parse_cohort_csv",
    "validate_cohort_filters",
    "MAX_MEMBERS_PER_REQUEST",
    "StaticCohortPersons",
]

IdType = Literal["distinct_id", "person_id", "email"]
MAX_MEMBERS_PER_REQUEST = 1_000_000
_HEADERS: dict[IdType, tuple[str, ...]] = {
    "person_id": ("person_id", "person id", "personid", "person_uuid"),
    "distinct_id": ("distinct_id", "distinct id", "distinctid"),
    "email": ("email", "e-mail", "email address", "email_address"),
}


class CohortWrite(BaseModel):
    """Create and update body. Unknown and read-only fields (count, groups, ...) are ignored."""

    model_config = ConfigDict(extra="ignore")

    name: str | None = Field(None, max_length=400)
    description: str | None = Field(None, max_length=4000)
    is_static: Flag | None = None
    filters: JSONObject | None = Field(
        None, description='Person property rules: {"properties": {"type": "AND"|"OR", "values": [...]}}'
    )
    deleted: Flag | None = None
    distinct_ids: list[str] | None = Field(
        None, max_length=MAX_MEMBERS_PER_REQUEST, description="Static cohorts: distinct ids of persons to add"
    )


class StaticCohortPersons(BaseModel):
    """``PATCH .../add_persons_to_static_cohort/``: persons to add by uuid, as PostHog takes them."""

    model_config = ConfigDict(extra="ignore")

    person_ids: list[UUID] = Field(
        default_factory=list, max_length=MAX_MEMBERS_PER_REQUEST, description="Uuids of the persons to add"
    )


class CohortCreate(CohortWrite):
    """The create body as the schema states it (read as :class:`CohortWrite`): a name is required."""

    name: str = Field(max_length=400, json_schema_extra=non_blank)


class CohortUpdate(CohortWrite):
    """The update body as the schema states it (read as :class:`CohortWrite`): fields may be left out, not
    set to null."""

    name: str | None = Field(None, max_length=400, json_schema_extra=non_blank_not_null)
    is_static: Flag | None = Field(None, json_schema_extra=not_null)
    filters: JSONObject | None = Field(
        None,
        description='Person property rules: {"properties": {"type": "AND"|"OR", "values": [...]}}',
        json_schema_extra=not_null,
    )
    deleted: Flag | None = Field(None, json_schema_extra=not_null)


class Cohort(BaseModel):
    id: int
    name: str
    description: str
    groups: list[Any] = Field(default_factory=list)
    deleted: bool
    filters: dict[str, Any]
    query: dict[str, Any] | None = None
    is_calculating: bool = False
    created_by: UserBasic | None
    created_at: str
    last_calculation: str | None
    errors_calculating: int = 0
    count: int | None = Field(description="How many persons are in the cohort now")
    is_static: bool
    unknown_ids: list[str] | None = Field(
        None, description="On a write that added members: the ids that matched no person (else null)"
    )


def validate_cohort_filters(filters: dict[str, Any] | None) -> dict[str, Any]:
    """The rules of a property-based cohort, checked: a non-empty group of person property filters."""
    if not isinstance(filters, dict) or not isinstance(filters.get("properties"), dict):
        raise ValidationError(
            'A cohort needs filters: {"properties": {"type": "AND", "values": [...]}}.', attr="filters"
        )
    group = filters["properties"]
    if not group.get("values"):
        raise ValidationError("A cohort needs at least one condition.", attr="filters__properties__values")
    validate_person_filters(group, "filters__properties")
    return filters


def _id_type_of(header: str) -> IdType | None:
    cleaned = header.strip().lower()
    for id_type, names in _HEADERS.items():
        if cleaned in names:
            return id_type
    return None


def parse_cohort_csv(data: bytes) -> tuple[IdType, list[str]]:
    """The kind of ids a CSV upload holds and the ids themselves (blank cells skipped)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationError("The CSV file must be UTF-8 text.", attr="csv") from None
    try:
        rows = [row for row in csv.reader(io.StringIO(text)) if any(cell.strip() for cell in row)]
    except csv.Error as exc:
        raise ValidationError(f"The CSV file could not be read: {exc}.", attr="csv") from None
    if not rows:
        raise ValidationError("The CSV file is empty.", attr="csv")
    first = rows[0]
    filled = [cell for cell in first if cell.strip()]
    id_type: IdType
    if len(filled) <= 1:
        named = _id_type_of(first[0]) if first else None
        id_type = named or "distinct_id"
        column, body = 0, rows[1:] if named else rows
    else:
        found = [(kind, index) for kind in _HEADERS for index, cell in enumerate(first) if _id_type_of(cell) == kind]
        if not found:
            raise ValidationError(
                "The CSV file needs a person_id, distinct_id or email column; its columns are "
                + ", ".join(cell.strip() for cell in filled)
                + ".",
                attr="csv",
            )
        id_type, column = found[0]
        body = rows[1:]
    ids = [row[column].strip() for row in body if len(row) > column and row[column].strip()]
    if not ids:
        raise ValidationError("The CSV file lists no ids.", attr="csv")
    if len(ids) > MAX_MEMBERS_PER_REQUEST:
        raise ValidationError(f"A CSV file may list at most {MAX_MEMBERS_PER_REQUEST} ids.", attr="csv")
    return id_type, ids


def cohort_body(
    cohort: dict[str, Any],
    *,
    created_by: dict[str, Any] | None,
    count: int | None,
    unknown_ids: list[str] | None = None,
) -> dict[str, Any]:
    """The body of a stored cohort: ``created_by`` is its creator's user row, ``count`` its members now (None when
    its rules cannot be evaluated), ``unknown_ids`` the ids of a just-uploaded list that matched nobody."""
    return Cohort(
        id=cohort["id"],
        name=cohort["name"],
        description=cohort["description"],
        deleted=cohort["deleted"],
        filters=cohort["filters"],
        created_by=user_basic(created_by),
        created_at=cohort["created_at"],
        last_calculation=cohort["last_calculation"] if cohort["is_static"] else None,
        count=count,
        is_static=cohort["is_static"],
        unknown_ids=unknown_ids,
    ).model_dump()
