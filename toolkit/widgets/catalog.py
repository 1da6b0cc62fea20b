"""`Catalog`: what the pickers offer (event names, actions, property keys), fetched once per builder.

A backend without the definition endpoints (or a key without their scope) does not stop a builder: the
pickers then offer what the builder was given, and `Catalog.problems` says what could not be loaded.
"""

from __future__ import annotations

from typing import Any

from ..entities import Entity, entity_dict
from ..errors import ToolkitError

__all__ = ["PICKER_LIMIT", "SESSION_PROPERTIES", "Catalog", "entity_key", "entity_label"]

PICKER_LIMIT = 1000
"""At most this many event names, actions or property keys are fetched for a picker."""
SESSION_PROPERTIES = ["$session_duration"]
"""The session properties every PostHog project has (computed, not sent): offered when the API lists none."""

EntityKey = str | int
"""A picker's value: an event name (str) or an action id (int), as `TrendRequest` takes them."""


def entity_key(entity: Entity) -> EntityKey:
    """The picker value of a series or step: its event name, or its action id.

    Examples
    --------
    >>> entity_key({"id": 4, "type": "actions"}), entity_key("signup")
    (4, 'signup')
    """
    value = entity_dict(entity)
    if value.get("type") == "actions":
        return int(value["id"])
    return str(value["id"])


def entity_label(key: EntityKey, actions: dict[int, str] | None = None) -> str:
    """How a picker shows an event name or an action id."""
    if isinstance(key, int):
        name = (actions or {}).get(key)
        return f"{name} (action {key})" if name else f"Action {key}"
    return key


class Catalog:
    """The project's event names, actions and property keys for the builders' pickers.

    Parameters
    ----------
    client : toolkit.Client
        Asked once for ``event_definitions()`` and ``actions()``, and once per property type for
        ``property_definitions(type=...)``.

    Attributes
    ----------
    problems : list of str
        What could not be loaded (for example ``event definitions: 404 not_found: ...``).
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.problems: list[str] = []
        self._events: list[str] | None = None
        self._actions: dict[int, str] | None = None
        self._properties: dict[str, list[tuple[str, bool]]] = {}
        self._unknown: set[str] = set()
        self._values: dict[str, list[str]] = {}
        self._test_filters: list[dict[str, Any]] | None = None

    def _load(self, what: str, fetch: Any) -> Any:
        try:
            return fetch()
        except ToolkitError as error:
            self.problems.append(f"{what}: {error}")
            return None

    @property
    def events(self) -> list[str]:
        """Event names, in the order the API listed them."""
        if self._events is None:
            frame = self._load("event definitions", lambda: self.client.event_definitions(limit=PICKER_LIMIT))
            if frame is None:
                self._unknown.add("events")
            self._events = [] if frame is None else [str(name) for name in frame["name"].dropna()]
        return self._events

    def seen_events(self) -> set[str] | None:
        """Every event name the project has seen, or None when that is not known (not loaded, or more than
        a picker holds)."""
        events = self.events
        if "events" in self._unknown or not events or len(events) >= PICKER_LIMIT:
            return None
        return set(events)

    def seen_properties(self, type: str) -> set[str] | None:
        """Every property key of ``type`` the project has seen, or None when that is not known."""
        names = self.properties(type)
        if type in self._unknown or type == "session" or not names or len(names) >= PICKER_LIMIT:
            return None
        return set(names)

    @property
    def actions(self) -> dict[int, str]:
        """Action names by id (deleted actions left out)."""
        if self._actions is None:
            frame = self._load("actions", lambda: self.client.actions(limit=PICKER_LIMIT))
            self._actions = {}
            if frame is not None:
                live = frame[~frame["deleted"].fillna(False).astype(bool)]
                names = live["name"].astype(object).where(live["name"].notna(), "")
                self._actions = {int(key): str(name) for key, name in zip(live["id"], names, strict=True)}
        return self._actions

    def entity_options(self, *extra: EntityKey) -> list[tuple[str, EntityKey]]:
        """``(label, value)`` pairs for an event picker: events, then actions, then ``extra`` values not listed."""
        options: list[tuple[str, EntityKey]] = [(name, name) for name in self.events]
        options += [(entity_label(key, self.actions), key) for key in self.actions]
        known = {value for _, value in options}
        for key in extra:
            if key not in known:
                options.append((entity_label(key, self.actions), key))
                known.add(key)
        return options

    def _property_rows(self, type: str) -> list[tuple[str, bool]]:
        if type not in self._properties:
            fetch = lambda: self.client.property_definitions(type=type, limit=PICKER_LIMIT)  # noqa: E731
            if type == "session":
                # many servers keep no session definitions: not a problem worth a message, see SESSION_PROPERTIES
                try:
                    frame = fetch()
                except ToolkitError:
                    frame = None
            else:
                frame = self._load(f"{type} properties", fetch)
                if frame is None:
                    self._unknown.add(type)
            rows: list[tuple[str, bool]] = []
            if frame is not None:
                numeric = frame["is_numerical"].fillna(False).astype(bool)
                rows = [(str(name), bool(flag)) for name, flag in zip(frame["name"], numeric, strict=True)]
            if type == "session" and not rows:
                rows = [(name, True) for name in SESSION_PROPERTIES]
            self._properties[type] = rows
        return self._properties[type]

    def values(self, key: str) -> list[str]:
        """Values event property ``key`` has taken (suggestions; empty when the API has none to give).

        Asked once per key, and only for keys the project has seen (a key being typed is not looked up).
        """
        known = self.seen_properties("event")
        if known is not None and key not in known:
            return []
        if key not in self._values:
            try:
                self._values[key] = self.client.property_values(key)
            except ToolkitError:  # suggestions are a convenience: no message when a server has none
                self._values[key] = []
        return self._values[key]

    def test_account_filters(self) -> list[dict[str, Any]]:
        """The project's test-account filters (empty when it defines none, or when the project cannot be read:
        the builders' toggle then starts off)."""
        if self._test_filters is None:
            try:
                project = self.client.project()
            except ToolkitError:
                project = {}
            filters = project.get("test_account_filters") if isinstance(project, dict) else None
            self._test_filters = list(filters) if isinstance(filters, list) else []
        return self._test_filters

    def knows_properties(self, type: str = "event") -> bool:
        """Whether the property keys of ``type`` could be loaded (else pickers and checks have no list)."""
        self._property_rows(type)
        return type not in self._unknown

    def properties(self, type: str = "event") -> list[str]:
        """Property keys of a type (``event``, ``person``, ``session``, ``group``)."""
        return [name for name, _ in self._property_rows(type)]

    def numeric_properties(self) -> list[str]:
        """Numeric event property keys, then numeric session properties, for the property maths (sum, average,
        percentiles): what PostHog's property math picker offers."""
        rows = [*self._property_rows("event"), *self._property_rows("session")]
        return list(dict.fromkeys(name for name, numeric in rows if numeric))
