"""Warnings for names a project never saw: a misspelt event or property answers zeros, not an error.

A calculation whose event, property or step the project has no definition of gives a plausible chart of
zeros (PostHog answers the same); so does a sum or an average over a property that was never numeric. The
client warns about each such name with `InsightWarning`, from the project's event and property
definitions (``event_definitions/``, ``property_definitions/``: PostHog has both), which `Definitions` keeps
for `DEFINITIONS_TTL` seconds: one request per kind of definition at most, and only for the kinds a
request uses.

What is not known is not warned about: a list of definitions that is empty (a project whose server keeps
none), longer than one page of `DEFINITIONS_LIMIT`, or that could not be read (an old server, a key without
the scope).

Examples
--------
>>> known = KnownNames(events={"signup"}, properties={"event": {"plan": False, "amount": True}})
>>> unseen_names({"events": [{"id": "sign_up", "type": "events"}], "breakdown": "plan"}, known)
["event 'sign_up' was never seen in this project: its counts are zeros (check the spelling)"]
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .entities import entity_dict
from .errors import ToolkitError

__all__ = [
    "DEFINITIONS_LIMIT",
    "DEFINITIONS_TTL",
    "PROPERTY_MATHS",
    "Definitions",
    "InsightWarning",
    "KnownNames",
    "needed_kinds",
    "unseen_names",
    "warn_unseen_names",
]

DEFINITIONS_TTL = 60.0
"""Seconds the project's definitions are kept by a client before they are asked for again."""
DEFINITIONS_LIMIT = 1000
"""Definitions read in one request; a project with more is not checked (a missing name may be on page 2)."""
PROPERTY_MATHS = frozenset({"sum", "avg", "min", "max", "median", "p75", "p90", "p95", "p99"})
"""Maths that aggregate a numeric property (``math_property``)."""
# computed by PostHog for every project rather than sent, so never among the event property definitions
_SESSION_PROPERTIES = frozenset({"$session_duration"})
_CHECKED_PROPERTY_TYPES = ("event", "person")


class InsightWarning(UserWarning):
    """A calculation ran but its answer may not be what was meant (a name the project never saw, ...).

    Examples
    --------
    >>> import warnings
    >>> warnings.simplefilter("error", InsightWarning)  # doctest: +SKIP
    """


@dataclass
class KnownNames:
    """What a project's definitions say: event names, and per property type each key with whether it is
    numeric. None for what is not known (then nothing of that kind is warned about)."""

    events: set[str] | None = None
    properties: dict[str, dict[str, bool] | None] = field(default_factory=dict)


def _filters(value: Any) -> Iterator[dict[str, Any]]:
    """Every property filter of a list or an AND/OR group, nested groups included."""
    if isinstance(value, dict):
        if "key" in value:
            yield value
        else:
            yield from _filters(value.get("values"))
    elif isinstance(value, list):
        for item in value:
            yield from _filters(item)


def _entities(body: dict[str, Any]) -> list[dict[str, Any]]:
    entities = [*(body.get("events") or []), *(body.get("actions") or []), *(body.get("exclusions") or [])]
    entities += [body[name] for name in ("target_entity", "returning_entity") if isinstance(body.get(name), dict)]
    return [entity_dict(item) for item in entities]


def _used_properties(body: dict[str, Any]) -> list[tuple[str, str]]:
    """``(type, key)`` of the event and person properties a legacy body filters or breaks down by."""
    filters = list(_filters(body.get("properties")))
    for entity in _entities(body):
        filters += list(_filters(entity.get("properties")))
    used = [(str(item.get("type") or "event"), str(item["key"])) for item in filters]
    kind = body.get("breakdown_type") or "event"
    breakdowns = body.get("breakdown")
    for key in breakdowns if isinstance(breakdowns, list) else [breakdowns]:
        if isinstance(key, str) and key:
            used.append((kind, key))
    return [(kind, key) for kind, key in used if kind in _CHECKED_PROPERTY_TYPES]


def _property_maths(body: dict[str, Any]) -> list[tuple[str, str]]:
    """``(math, key)`` of the series that aggregate an event property."""
    maths = []
    for entity in _entities(body):
        key, math = entity.get("math_property"), entity.get("math")
        if math in PROPERTY_MATHS and isinstance(key, str) and key and key not in _SESSION_PROPERTIES:
            if entity.get("math_property_type") in (None, "event_properties"):
                maths.append((str(math), key))
    return maths


def needed_kinds(body: dict[str, Any]) -> set[str]:
    """The definitions a check of ``body`` reads: ``events`` and/or the property types it uses."""
    kinds = {"events"} if any(_named_event(item) for item in _entities(body)) else set()
    kinds |= {kind for kind, _ in _used_properties(body)}
    if _property_maths(body):
        kinds.add("event")
    return kinds


def _named_event(entity: dict[str, Any]) -> str | None:
    name = entity.get("id")
    return name if entity.get("type") != "actions" and isinstance(name, str) and name else None


def unseen_names(body: dict[str, Any], known: KnownNames) -> list[str]:
    """One message per name of a legacy request body the project never saw, or per property math over a
    property that was never numeric; nothing for what ``known`` does not know."""
    messages: list[str] = []
    if known.events is not None:
        for entity in _entities(body):
            name = _named_event(entity)
            if name is not None and name not in known.events:
                messages.append(
                    f"event {name!r} was never seen in this project: its counts are zeros (check the spelling)"
                )
    for kind, key in _used_properties(body):
        keys = known.properties.get(kind)
        if keys is not None and key not in keys:
            messages.append(
                f"{kind} property {key!r} was never seen in this project: no event matches it or has it "
                "(check the spelling)"
            )
    event_keys = known.properties.get("event")
    for math, key in _property_maths(body):
        if event_keys is None:
            continue
        if key not in event_keys:
            messages.append(f"event property {key!r} was never seen in this project: {math} of it reads no numbers")
        elif not event_keys[key]:
            messages.append(f"event property {key!r} is never numeric in this project: {math} of it reads no numbers")
    return list(dict.fromkeys(messages))


def warn_unseen_names(body: dict[str, Any], known: KnownNames, *, stacklevel: int = 2) -> None:
    """Warn (`InsightWarning`) once per message of `unseen_names`."""
    for message in unseen_names(body, known):
        warnings.warn(message, InsightWarning, stacklevel=stacklevel + 1)


Page = Callable[[str, dict[str, Any]], Any]


class Definitions:
    """A project's event and property definitions as `KnownNames`, read when needed and kept a short time.

    Parameters
    ----------
    get : callable
        ``get(path, params)`` answering a list endpoint's first page (``{"results": [...], "next": ...}``).
    events_path, properties_path : str
        The project's ``event_definitions/`` and ``property_definitions/`` paths.
    ttl : float
        Seconds a kind of definition is kept.
    """

    def __init__(self, get: Page, *, events_path: str, properties_path: str, ttl: float = DEFINITIONS_TTL) -> None:
        self._get = get
        self._paths = {"events": events_path, "properties": properties_path}
        self._ttl = ttl
        self._kept: dict[str, tuple[float, Any]] = {}

    def forget(self) -> None:
        """Drop what is kept (events were just loaded: new names are no longer unseen)."""
        self._kept.clear()

    def known(self, kinds: set[str]) -> KnownNames:
        """What the definitions say of ``kinds`` (``events``, ``event``, ``person``)."""
        names = KnownNames()
        if "events" in kinds:
            rows = self._read("events")
            names.events = None if rows is None else {str(row.get("name")) for row in rows}
        for kind in sorted(kinds & set(_CHECKED_PROPERTY_TYPES)):
            rows = self._read(kind)
            names.properties[kind] = (
                None if rows is None else {str(row.get("name")): bool(row.get("is_numerical")) for row in rows}
            )
        return names

    def _read(self, kind: str) -> list[dict[str, Any]] | None:
        kept = self._kept.get(kind)
        if kept is not None and time.monotonic() - kept[0] < self._ttl:
            return kept[1]
        rows = self._fetch(kind)
        self._kept[kind] = (time.monotonic(), rows)
        return rows

    def _fetch(self, kind: str) -> list[dict[str, Any]] | None:
        """One page of definitions, or None when it is not the whole list (or cannot be read)."""
        params: dict[str, Any] = {"limit": DEFINITIONS_LIMIT}
        if kind != "events":
            params["type"] = kind
        try:
            page = self._get(self._paths["events" if kind == "events" else "properties"], params)
        except ToolkitError:
            return None
        rows = page.get("results") if isinstance(page, dict) else page
        if not isinstance(rows, list) or not rows or (isinstance(page, dict) and page.get("next")):
            return None
        if len(rows) >= DEFINITIONS_LIMIT:
            return None
        return [row for row in rows if isinstance(row, dict)]
