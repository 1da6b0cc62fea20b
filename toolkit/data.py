"""Projects, persons, events and the definitions that describe them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from .entities import DateLike, date_text
from .frames import events_frame, persons_frame, projects_frame
from .frames._columns import typed_frame
from .transport import Transport

__all__ = ["ACTION_COLUMNS", "DEFINITION_COLUMNS", "PROPERTY_DEFINITION_COLUMNS", "PROPERTY_TYPES", "DataMixin"]

ACTION_COLUMNS: dict[str, str] = {
    "id": "int",
    "name": "string",
    "description": "string",
    "steps": "object",
    "deleted": "bool",
    "created_at": "datetime",
}

DEFINITION_COLUMNS: dict[str, str] = {
    "id": "string",
    "name": "string",
    "description": "string",
    "property_type": "string",
    "is_numerical": "bool",
    "volume_30_day": "int",
    "last_seen_at": "datetime",
}

PROPERTY_DEFINITION_COLUMNS: dict[str, str] = {**DEFINITION_COLUMNS, "is_seen_on_filtered_events": "bool"}

PROPERTY_TYPES = ("event", "person", "group", "session")
"""The ``type`` values of PostHog's ``/property_definitions/``."""


class DataMixin(Transport):
    """Projects, persons, events and definitions of `toolkit.Client`."""

    def projects(self, *, limit: int | None = None) -> pd.DataFrame:
        """The projects the key can see.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PROJECT_COLUMNS`.

        Examples
        --------
        >>> client.projects()[["id", "name"]]  # doctest: +SKIP
        """
        return projects_frame(self.paginate("/api/projects/", limit=limit))

    def project(self) -> dict[str, Any]:
        """The client's project as a dict (``@current`` resolves to the key owner's current project).

        Examples
        --------
        >>> client.project()["timezone"]  # doctest: +SKIP
        'UTC'
        """
        return self.request("GET", self.project_path())

    def persons(
        self,
        *,
        search: str | None = None,
        distinct_id: str | None = None,
        properties: list[dict[str, Any]] | None = None,
        limit: int | None = None,
    ) -> pd.DataFrame:
        """Persons of the project (``/api/projects/:id/persons/``, where the backend offers it).

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PERSON_COLUMNS`.

        Examples
        --------
        >>> client.persons(search="@example.com", limit=20)  # doctest: +SKIP
        """
        params = {
            "search": search,
            "distinct_id": distinct_id,
            "properties": json.dumps(properties) if properties is not None else None,
        }
        return persons_frame(self.paginate(self.project_path("persons/"), params, limit=limit))

    def events(
        self,
        *,
        event: str | None = None,
        distinct_id: str | None = None,
        after: DateLike | None = None,
        before: DateLike | None = None,
        properties: list[dict[str, Any]] | None = None,
        limit: int | None = 1000,
    ) -> pd.DataFrame:
        """Raw events, newest first (``/api/projects/:id/events/``, where the backend offers it).

        Parameters
        ----------
        event, distinct_id : str, optional
        after, before : str, date, datetime or pandas.Timestamp, optional
            Times bounding the events (ISO text or relative like ``-7d``; a naive time is read in the project's
            timezone, an aware one converted to it, as for calculations).
        properties : list, optional
            Property filters.
        limit : int, optional
            At most this many (1000 by default; ``None`` for all).

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.EVENT_COLUMNS`.

        Examples
        --------
        >>> client.events(event="purchase", after="2026-01-01", limit=100)  # doctest: +SKIP
        """
        params = {
            "event": event,
            "distinct_id": distinct_id,
            "after": date_text(after, "after"),
            "before": date_text(before, "before"),
            "properties": json.dumps(properties) if properties is not None else None,
        }
        return events_frame(self.paginate(self.project_path("events/"), params, limit=limit))

    def event_definitions(self, *, search: str | None = None, limit: int | None = None) -> pd.DataFrame:
        """The event names seen in the project (for pickers).

        Returns
        -------
        pandas.DataFrame
            `DEFINITION_COLUMNS`: ``id``, ``name``, ``description``, ``property_type`` (string),
            ``is_numerical`` (boolean), ``volume_30_day`` (Int64), ``last_seen_at`` (datetime64[ns, UTC]).

        Examples
        --------
        >>> client.event_definitions()["name"].tolist()  # doctest: +SKIP
        ['$pageview', 'signup']
        """
        items = self.paginate(self.project_path("event_definitions/"), {"search": search}, limit=limit)
        return typed_frame(items, DEFINITION_COLUMNS)

    def property_definitions(
        self,
        *,
        type: str = "event",
        search: str | None = None,
        event_names: Sequence[str] | None = None,
        filter_by_event_names: bool | None = None,
        is_numerical: bool | None = None,
        group_type_index: int | None = None,
        limit: int | None = None,
    ) -> pd.DataFrame:
        """The property keys seen in the project (PostHog's ``/property_definitions/`` list).

        Parameters
        ----------
        type : str
            ``event``, ``person``, ``group`` (with ``group_type_index``) or ``session``.
        search : str, optional
            Only keys whose name contains this.
        event_names : sequence of str, optional
            Fills ``is_seen_on_filtered_events`` (was the property seen on one of these events?).
        filter_by_event_names : bool, optional
            With ``event_names``: only the properties seen on those events.
        is_numerical : bool, optional
            Only numeric (True) or only non-numeric (False) properties.
        group_type_index : int, optional
            The group type, required with ``type="group"``.
        limit : int, optional

        Returns
        -------
        pandas.DataFrame
            `PROPERTY_DEFINITION_COLUMNS`: `DEFINITION_COLUMNS` plus ``is_seen_on_filtered_events``
            (boolean, NA unless ``event_names`` was given).

        Raises
        ------
        ValueError
            For an unknown ``type``, or ``type="group"`` without ``group_type_index``.

        Examples
        --------
        >>> client.property_definitions(type="person")["name"].tolist()  # doctest: +SKIP
        ['email', 'plan']
        >>> client.property_definitions(event_names=["purchase"], filter_by_event_names=True,  # doctest: +SKIP
        ...                             is_numerical=True)["name"].tolist()
        ['amount']
        """
        if type not in PROPERTY_TYPES:
            raise ValueError(f"type must be one of {', '.join(PROPERTY_TYPES)}; got {type!r}")
        if (type == "group") != (group_type_index is not None):
            raise ValueError("group_type_index goes with type='group', and type='group' needs it")

        def flag(value: bool | None) -> str | None:
            return None if value is None else ("true" if value else "false")

        params = {
            "type": type,
            "search": search,
            "event_names": json.dumps(list(event_names)) if event_names is not None else None,
            "filter_by_event_names": flag(filter_by_event_names),
            "is_numerical": flag(is_numerical),
            "group_type_index": group_type_index,
        }
        return typed_frame(
            self.paginate(self.project_path("property_definitions/"), params, limit=limit), PROPERTY_DEFINITION_COLUMNS
        )

    def property_values(
        self, key: str, *, search: str | None = None, event_names: Sequence[str] | None = None
    ) -> list[str]:
        """Values the event property ``key`` has taken lately, most frequent first (PostHog's ``events/values/``).

        Parameters
        ----------
        key : str
            The event property.
        search : str, optional
            Only values containing this (case-insensitive).
        event_names : sequence of str, optional
            Only values seen on these events.

        Returns
        -------
        list of str
            A short list (PostHog's suggestions: about ten), as text.

        Examples
        --------
        >>> client.property_values("$browser")  # doctest: +SKIP
        ['Chrome', 'Safari', 'Firefox']
        """
        params = {"key": key, "value": search, "event_name": list(event_names) if event_names else None}
        body = self.request("GET", self.project_path("events/values/"), params=params) or []
        return [str(item["name"]) for item in body if isinstance(item, dict) and item.get("name") is not None]

    def actions(self, *, limit: int | None = None) -> pd.DataFrame:
        """The project's actions (named groups of events, usable as series and steps by id).

        Returns
        -------
        pandas.DataFrame
            `ACTION_COLUMNS`: ``id`` (Int64), ``name``, ``description`` (string), ``steps`` (object),
            ``deleted`` (boolean), ``created_at`` (datetime64[ns, UTC]).

        Examples
        --------
        >>> client.actions()[["id", "name"]]  # doctest: +SKIP
        """
        return typed_frame(self.paginate(self.project_path("actions/"), limit=limit), ACTION_COLUMNS)
