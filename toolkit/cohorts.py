"""Cohorts: the project's list (`cohorts`) and static cohorts made from people (`create_cohort`).

A static cohort is made as PostHog's own screens make one, so the same requests work on PostHog and on the
local backend:

- from persons (a people frame, or person uuids): create the cohort empty (``POST .../cohorts/`` with
  ``is_static: true``), then ``PATCH .../cohorts/:id/add_persons_to_static_cohort/`` with ``person_ids``;
- from distinct ids: create it with a one-column CSV file of the ids (a multipart ``csv`` field), which both
  servers read as distinct ids.

The answer is read back (``GET .../cohorts/:id/``) after the members are added, since PostHog's add answers
no body. When the persons cannot be added (an unknown uuid), the empty cohort is soft-deleted again, so a
failed call leaves nothing behind.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any, Literal

import pandas as pd

from .errors import ToolkitError
from .frames._columns import typed_frame
from .transport import Transport

__all__ = ["COHORT_COLUMNS", "CohortsMixin", "cohort_frame", "member_ids"]

COHORT_COLUMNS: dict[str, str] = {
    "id": "int",
    "name": "string",
    "description": "string",
    "is_static": "bool",
    "count": "int",
    "filters": "object",
    "is_calculating": "bool",
    "deleted": "bool",
    "created_at": "datetime",
    "last_calculation": "datetime",
}

IdKind = Literal["person_id", "distinct_id"]


def cohort_frame(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """Cohorts as a frame with `COHORT_COLUMNS` (``count`` is NA while a server still computes it).

    Examples
    --------
    >>> frame = cohort_frame([{"id": 3, "name": "Beta", "is_static": True, "count": 2}])
    >>> str(frame.loc[0, "name"]), int(frame.loc[0, "count"])
    ('Beta', 2)
    """
    return typed_frame(records, COHORT_COLUMNS)


def member_ids(people: Any, id_kind: IdKind) -> tuple[IdKind, list[str]]:
    """The ids a cohort is made of, and their kind: a people frame (``client.people``, ``client.persons``)
    gives its ``id`` column (person uuids); a Series, list or other iterable gives its items as ``id_kind``.

    Examples
    --------
    >>> member_ids(["u1", "u2", "u1"], "distinct_id")
    ('distinct_id', ['u1', 'u2'])
    >>> member_ids(pd.DataFrame({"id": ["0190-a"], "distinct_ids": [["u1"]]}), "distinct_id")
    ('person_id', ['0190-a'])
    """
    if isinstance(people, pd.DataFrame):
        if "id" not in people.columns:
            raise ValueError("a people frame needs its id column (the person uuids), as client.people gives it")
        values, id_kind = people["id"].tolist(), "person_id"
    elif isinstance(people, str | bytes) or not isinstance(people, Iterable):
        raise TypeError(f"people must be a people frame or a list of ids, not {type(people).__name__}")
    else:
        values = list(people)
    if id_kind not in ("person_id", "distinct_id"):
        raise ValueError(f"id_kind must be 'person_id' or 'distinct_id', not {id_kind!r}")
    ids = [str(value) for value in values if value is not None and not pd.isna(value) and str(value).strip()]
    return id_kind, list(dict.fromkeys(ids))


def _csv_of(ids: list[str]) -> bytes:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerows([value] for value in ids)
    return text.getvalue().encode()


class CohortsMixin(Transport):
    """The cohort calls of `toolkit.Client`."""

    def cohorts(self, *, search: str | None = None, limit: int | None = None) -> pd.DataFrame:
        """The project's cohorts (deleted ones left out), newest first.

        Returns
        -------
        pandas.DataFrame
            `COHORT_COLUMNS`: ``id``, ``count`` (Int64); ``name``, ``description`` (string); ``is_static``,
            ``is_calculating``, ``deleted`` (boolean); ``filters`` (object); ``created_at``,
            ``last_calculation`` (datetime64[ns, UTC]).

        Examples
        --------
        >>> client.cohorts()[["id", "name", "count"]]  # doctest: +SKIP
        """
        return cohort_frame(self.paginate(self.project_path("cohorts/"), {"search": search}, limit=limit))

    def cohort(self, id: int) -> pd.DataFrame:
        """One cohort as a one-row frame (`COHORT_COLUMNS`).

        Examples
        --------
        >>> client.cohort(3).loc[0, "count"]  # doctest: +SKIP
        """
        return cohort_frame([self.request("GET", self.project_path(f"cohorts/{int(id)}/"))])

    def create_cohort(
        self,
        name: str,
        people: Any,
        *,
        description: str | None = None,
        id_kind: IdKind = "person_id",
    ) -> pd.DataFrame:
        """Make a static cohort of ``people``: a people frame (from `people`, `funnel_people`, `persons`), or
        a list of person uuids, or (with ``id_kind="distinct_id"``) of distinct ids.

        Returns
        -------
        pandas.DataFrame
            The new cohort as one row (`COHORT_COLUMNS`); ``count`` is how many persons it holds, NA while
            PostHog is still adding them.

        Raises
        ------
        ValueError
            For a blank name or a frame without its ``id`` column; `TypeError` for something that is not a
            list of ids; `toolkit.ValidationError` when the server refuses an id.

        Examples
        --------
        >>> buyers = client.people(client.trend(events="purchase").loc[3])  # doctest: +SKIP
        >>> client.create_cohort("Bought on the 4th", buyers)[["id", "count"]]  # doctest: +SKIP
        >>> client.create_cohort("Beta list", ["user-1", "user-2"], id_kind="distinct_id")  # doctest: +SKIP
        """
        if not isinstance(name, str) or not name.strip():
            raise ValueError("a cohort needs a name")
        kind, ids = member_ids(people, id_kind)
        fields = {"name": name.strip(), "is_static": True}
        if description is not None:
            fields["description"] = description
        if kind == "distinct_id" and ids:
            form = {key: "true" if value is True else str(value) for key, value in fields.items()}
            files = {"csv": ("people.csv", _csv_of(ids), "text/csv")}
            made = self.request("POST", self.project_path("cohorts/"), form=form, files=files)
            return cohort_frame([made])
        made = self.request("POST", self.project_path("cohorts/"), json=fields)
        if not ids:
            return cohort_frame([made])
        path = self.project_path(f"cohorts/{int(made['id'])}/")
        try:
            self.request("PATCH", path + "add_persons_to_static_cohort/", json={"person_ids": ids})
        except ToolkitError:
            # an empty cohort named as asked would look like a result: hide it, say why it failed
            self.request("PATCH", path, json={"deleted": True})
            raise
        return cohort_frame([self.request("GET", path)])
