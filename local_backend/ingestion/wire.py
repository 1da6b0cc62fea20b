"""One event in PostHog's wire format, checked and brought to the form ingestion stores.

An event is an object with ``event`` (the name), ``distinct_id`` (or ``properties.distinct_id``),
``properties``, and optionally ``timestamp``, ``offset``, ``sent_at``, ``uuid`` and top-level ``$set`` /
``$set_once`` / ``$unset`` (merged into the properties' own, top-level values winning, as PostHog does).
Anything that cannot be stored raises :class:`InvalidEvent` with a reason an analyst can act on.

The checks a file's events need too (bulk load reads no wire objects) are functions returning the reason or
None: :func:`surrogate_problem` for the name and distinct id, :func:`properties_problem` for the properties'
JSON text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..capture_rules import MAX_DISTINCT_ID_LENGTH, MAX_EVENT_NAME_LENGTH, SURROGATE_PROPERTIES
from ..limits import MAX_JSON_DEPTH
from ..models.fields import encodable, json_problem
from .timestamps import TimestampError, event_micros, parse_time

__all__ = [
    "InvalidEvent",
    "SentAtCache",
    "WireEvent",
    "read_event",
    "uuid_text",
    "surrogate_problem",
    "properties_problem",
    "MAX_DISTINCT_ID_LENGTH",
    "MAX_EVENT_NAME_LENGTH",
    "SURROGATE_PROPERTIES",
]

_PERSON_BAGS = ("$set", "$set_once", "$unset")
# The canonical form, as every SDK sends it: checked without building a UUID object.
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_UUID_DIGITS = re.compile(r"[0-9a-fA-F]{32}")


def uuid_text(given: str) -> str | None:
    """The canonical form of a uuid written as ``uuid.UUID`` reads one (``urn:`` and ``uuid:`` dropped, braces
    around it, dashes anywhere, either case), or None when it is not one. Stricter than ``uuid.UUID`` in one
    way: the rest must be 32 hexadecimal digits, where ``uuid.UUID`` also takes what ``int(text, 16)`` reads
    (``0x``, underscores between digits, a sign, spaces): no uuid is written so, and the chdb bulk load reads
    the same forms (:mod:`..loading.columnar`)."""
    if _CANONICAL_UUID.fullmatch(given):
        return given
    digits = given.replace("urn:", "").replace("uuid:", "").strip("{}").replace("-", "")
    if not _UUID_DIGITS.fullmatch(digits):
        return None
    digits = digits.lower()
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def surrogate_problem(what: str, text: str) -> str | None:
    """The reason ``text`` (the event name, the distinct id) cannot be stored as UTF-8, or None."""
    if text.isascii() or encodable(text):
        return None
    return f"{what} holds a lone UTF-16 surrogate, which is not valid Unicode"


def properties_problem(properties: Any, text: str) -> str | None:
    """The reason properties whose JSON text is ``text`` (not ASCII-escaped) cannot be stored, or None: text
    UTF-8 cannot encode, or nesting deeper than ``MAX_JSON_DEPTH`` that would fail every read of the event."""
    if not text.isascii() and not encodable(text):  # a lone surrogate ("\ud800" in the JSON)
        return SURROGATE_PROPERTIES
    # counting brackets (strings' too) is cheap and rules out deep nesting for almost every event
    if text.count("[") + text.count("{") >= MAX_JSON_DEPTH and json_problem(properties) is not None:
        return f"properties nest more than {MAX_JSON_DEPTH} levels deep"
    return None


class InvalidEvent(ValueError):
    """An event that is dropped and counted as rejected; the message is the reason."""


@dataclass(slots=True)
class WireEvent:
    """An event ready for the pipeline, persons and storage. ``uuid`` is None when the client sent none."""

    uuid: str | None
    event: str
    distinct_id: str
    timestamp: int  # UTC microseconds
    properties: dict[str, Any]


class SentAtCache:
    """``sent_at`` values parsed once per distinct text (a batch usually shares one)."""

    def __init__(self, default: Any = None) -> None:
        self._parsed: dict[Any, int | None] = {}
        self.default = default

    def get(self, value: Any) -> int | None:
        if value is None or value == "":
            value = self.default
            if value is None or value == "":
                return None
        key = value if isinstance(value, str | int | float) else repr(value)
        if key not in self._parsed:
            try:
                self._parsed[key] = parse_time(value, "sent_at")
            except TimestampError:
                self._parsed[key] = None  # an unreadable sent_at only loses the skew correction
        return self._parsed[key]


def read_event(raw: Any, sent_at: SentAtCache, received_at: int, *, historical: bool = False) -> WireEvent:
    """Check one wire event and compute its time; raises :class:`InvalidEvent`."""
    # `type(x) is dict` first: the ABC check is slow and almost every event is a plain dict
    if type(raw) is not dict and not isinstance(raw, Mapping):
        raise InvalidEvent("event must be a JSON object")
    properties = raw.get("properties")
    if properties is None:
        properties = {}
    elif type(properties) is not dict:
        if not isinstance(properties, Mapping):
            raise InvalidEvent("properties must be a JSON object")
        properties = dict(properties)
    name = raw.get("event")
    if not isinstance(name, str) or not name:
        raise InvalidEvent("no event name" if name is None or name == "" else "event name must be text")
    if len(name) > MAX_EVENT_NAME_LENGTH:
        raise InvalidEvent(f"event name is longer than {MAX_EVENT_NAME_LENGTH} characters")
    problem = surrogate_problem("event name", name)
    if problem:
        raise InvalidEvent(problem)
    distinct_id = raw.get("distinct_id")
    if distinct_id is None or distinct_id == "":
        distinct_id = properties.get("distinct_id")
    if not isinstance(distinct_id, str):
        if distinct_id is None:
            raise InvalidEvent("no distinct_id")
        if isinstance(distinct_id, bool) or not isinstance(distinct_id, int | float):
            raise InvalidEvent("distinct_id must be text or a number")
        distinct_id = str(distinct_id)
    if not distinct_id.strip():
        raise InvalidEvent("no distinct_id")
    problem = surrogate_problem("distinct_id", distinct_id)
    if problem:
        raise InvalidEvent(problem)
    if len(distinct_id) > MAX_DISTINCT_ID_LENGTH:
        distinct_id = distinct_id[:MAX_DISTINCT_ID_LENGTH]
    for bag in _PERSON_BAGS if ("$set" in raw or "$set_once" in raw or "$unset" in raw) else ():
        top = raw.get(bag)
        if top is not None:
            if properties is raw.get("properties"):
                properties = dict(properties)  # never change the caller's objects
            inner = properties.get(bag)
            if isinstance(top, Mapping) and isinstance(inner, Mapping):
                properties[bag] = {**inner, **top}
            else:
                properties[bag] = top
    sent = None if properties.get("$ignore_sent_at") else sent_at.get(raw.get("sent_at"))
    try:
        timestamp = event_micros(raw.get("timestamp"), raw.get("offset"), sent, received_at, historical=historical)
    except TimestampError as error:
        raise InvalidEvent(str(error)) from None
    given = raw.get("uuid")
    if given is None or given == "":
        event_uuid = None
    else:
        if not isinstance(given, str):
            raise InvalidEvent("uuid must be text")
        event_uuid = uuid_text(given)
        if event_uuid is None:
            raise InvalidEvent(f"uuid is not a valid UUID: {given[:64]!r}")
    return WireEvent(event_uuid, name, distinct_id, timestamp, properties)
