"""One record of a file or DataFrame -> one PostHog wire-format event.

A record is a mapping of column -> value. ``event``, ``distinct_id`` and ``timestamp`` are required; ``uuid``
and ``properties`` (a JSON object, as text or already decoded) are optional; every other column is a property
of the event. Empty cells (``None``, ``""``, NaN, NaT) are absent, not empty properties.

Without a ``uuid`` the event gets one derived from its content (name, distinct id, instant, properties), so
loading the same rows again, from the same file or the same data in another format, stores nothing twice.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any, NamedTuple

from ..ingestion.wire import uuid_text
from ..json_text import compact_encoder

__all__ = [
    "REQUIRED_COLUMNS",
    "RESERVED_COLUMNS",
    "EventParts",
    "RecordError",
    "event_parts",
    "stored_form",
    "wire_event",
    "content_uuid",
    "typed_cell",
    "missing_columns",
]

REQUIRED_COLUMNS = ("event", "distinct_id", "timestamp")
RESERVED_COLUMNS = frozenset({*REQUIRED_COLUMNS, "uuid", "properties"})
# Mixed into every content hash; fixed, so a content-derived uuid is the same on every machine and version.
_NAMESPACE_BYTES = uuid.UUID("6f1b2c4e-5d3a-4b8e-9c7f-0a1e2d3c4b5a").bytes
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)
_canonical_json = compact_encoder(sort_keys=True, allow_nan=True)
# The same text, refusing NaN and Infinity (not JSON: SQLite's JSON functions would fail on the stored row).
_strict_json = compact_encoder(sort_keys=True, allow_nan=False)
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


class RecordError(ValueError):
    """A record that cannot become an event; the message says why, for the load report."""


def missing_columns(columns: Any) -> list[str]:
    """The required columns absent from ``columns``, in their usual order."""
    present = set(columns)
    return [name for name in REQUIRED_COLUMNS if name not in present]


def _is_empty(value: Any) -> bool:
    if value is None or type(value).__name__ == "NAType":  # pandas.NA refuses to be compared
        return True
    if isinstance(value, str):
        return value == ""
    if isinstance(value, float | datetime):
        return bool(value != value)  # NaN and NaT are not equal to themselves
    return False


def typed_cell(text: str) -> Any:
    """A CSV cell as the value it spells: JSON numbers and ``true``/``false`` are typed, the rest is text.

    Only JSON's number grammar counts, so ``00501`` (a zip code) or ``1e`` stay text.
    """
    if text in ("true", "false"):
        return text == "true"
    if text and (text[0].isdigit() or text[0] == "-") and _JSON_NUMBER.fullmatch(text):
        return float(text) if any(c in text for c in ".eE") else int(text)
    return text


def _instant(value: Any) -> datetime:
    """The UTC instant a timestamp cell names."""
    if isinstance(value, datetime):  # also pandas.Timestamp
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise RecordError(f"timestamp {value[:40]!r} is not an ISO 8601 date-time") from None
    else:
        raise RecordError(f"timestamp {value!r} is not an ISO 8601 date-time")
    if moment.tzinfo is not None and moment.utcoffset():
        try:
            moment = moment.astimezone(UTC)
        except OverflowError:  # before year 1 or after 9999 once the offset is applied
            raise RecordError(f"timestamp {str(value)[:40]!r} is out of range") from None
    return moment.replace(tzinfo=UTC)


def _properties(value: Any) -> dict[str, Any]:
    if _is_empty(value):
        return {}
    if isinstance(value, str | bytes):
        try:
            parsed = json.loads(value)
        except ValueError:
            raise RecordError("properties is not valid JSON") from None
        except RecursionError:
            raise RecordError("properties is not valid JSON: nested too deeply") from None
        if not isinstance(parsed, dict):
            raise RecordError("properties is not a JSON object")
        return parsed  # freshly made: no copy needed
    if not isinstance(value, Mapping):
        raise RecordError("properties is not a JSON object")
    return dict(value)  # the caller's object: flat columns must not be added to it


def _plain(value: Any) -> Any:
    """Values JSON can hold: dates as ISO text, numpy scalars as Python ones."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if hasattr(value, "item") and not isinstance(value, str | bytes | list | dict):
        return value.item()
    return value


def _hashable(properties: Mapping[str, Any]) -> Mapping[str, Any]:
    """``properties`` with whole floats as the integers they equal (``29`` from a CSV, ``29.0`` from a DataFrame)."""
    if float in map(type, properties.values()):  # checked in C: most events have no float at all
        return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in properties.items()}
    return properties


def _uuid_from(event: str, distinct_id: str, moment: datetime, properties_json: str) -> str:
    """The content uuid given the canonical JSON of the (hashable) properties."""
    head = _canonical_json([event, distinct_id, datetime.isoformat(moment)])
    # the canonical JSON of the list [event, distinct id, instant, properties], built from its two parts
    text = f"{head[:-1]},{properties_json}]"
    digest = hashlib.sha1(_NAMESPACE_BYTES + text.encode()).hexdigest()
    millis = f"{((moment - _EPOCH) // _MILLISECOND) & 0xFFFFFFFFFFFF:012x}"
    variant = "89ab"[int(digest[3], 16) & 3]
    return f"{millis[:8]}-{millis[8:]}-7{digest[:3]}-{variant}{digest[4:7]}-{digest[7:19]}"


def content_uuid(event: str, distinct_id: str, moment: datetime, properties: Mapping[str, Any]) -> str:
    """The uuid of an event that came without one: the same content always gives the same uuid.

    The layout is a version 7 UUID: the event's Unix milliseconds first, so a file in time order appends to the
    uuid index instead of scattering over it; the other 74 bits come from a SHA-1 of the content (name,
    distinct id, instant, properties with sorted keys) instead of from chance. A whole float counts as the
    integer it equals, so ``29`` from a CSV and ``29.0`` from a DataFrame column with gaps (pandas makes such
    columns float) are the same event.
    """
    return _uuid_from(event, distinct_id, moment, _canonical_json(_hashable(properties)))


def stored_form(event: EventParts) -> tuple[str, str]:
    """The event's uuid (given or derived from its content) and its properties as the JSON text stored.

    The stored text is the canonical one (sorted keys, compact), so the content hash reuses it. Raises
    ``ValueError`` for properties JSON cannot hold (NaN, Infinity).
    """
    text = _strict_json(event.properties)
    if event.uuid is not None:
        return event.uuid, text
    hashable = _hashable(event.properties)
    hashed = text if hashable is event.properties else _strict_json(hashable)
    return _uuid_from(event.event, event.distinct_id, event.moment, hashed), text


class EventParts(NamedTuple):
    """A record read as an event: name, distinct id (as given), UTC instant, properties, uuid if given."""

    event: str
    distinct_id: str
    moment: datetime
    properties: dict[str, Any]
    uuid: str | None


def event_parts(record: Mapping[str, Any]) -> EventParts:
    """Read ``record`` as an event; raises :class:`RecordError` with the reason it cannot be one."""
    name = record.get("event")
    if type(name) is not str or not name:  # one test for the common case, then the reasons
        if _is_empty(name) or not isinstance(name, str):
            raise RecordError("event is missing" if _is_empty(name) else "event is not text")
    properties = _properties(record.get("properties"))
    distinct = record.get("distinct_id")
    if type(distinct) is not str or not distinct:
        if _is_empty(distinct):
            distinct = properties.get("distinct_id")
        if _is_empty(distinct) or isinstance(distinct, bool) or not isinstance(distinct, str | int):
            raise RecordError("distinct_id is missing" if _is_empty(distinct) else "distinct_id is not text")
        distinct = str(distinct)
    stamp = record.get("timestamp")
    if _is_empty(stamp):
        raise RecordError("timestamp is missing")
    moment = _instant(stamp)
    for column in record.keys() - RESERVED_COLUMNS:  # flat property columns; usually none or a few
        value = record[column]
        if not _is_empty(value):
            properties[column] = _plain(value)
    raw_uuid = record.get("uuid")
    event_uuid = None
    if raw_uuid is not None and not _is_empty(raw_uuid):
        event_uuid = uuid_text(str(raw_uuid))
        if event_uuid is None:
            raise RecordError(f"uuid {str(raw_uuid)[:40]!r} is not a UUID")
    return EventParts(name, distinct, moment, properties, event_uuid)


def wire_event(record: Mapping[str, Any]) -> dict[str, Any]:
    """The wire-format event for ``record``; raises :class:`RecordError` with the reason it cannot be one.

    Text that cannot be hashed for the content uuid (a lone UTF-16 surrogate) or properties too deep to encode
    are reasons too; ingestion makes every other check.
    """
    parts = event_parts(record)
    try:
        event_uuid = parts.uuid or content_uuid(parts.event, parts.distinct_id, parts.moment, parts.properties)
    except UnicodeEncodeError:
        raise RecordError("the event holds text with a lone UTF-16 surrogate, which is not valid Unicode") from None
    except RecursionError:
        raise RecordError("properties are not valid JSON: nested too deeply or circular") from None
    return {
        "event": parts.event,
        "distinct_id": parts.distinct_id,
        "timestamp": datetime.isoformat(parts.moment),  # one spelling per instant (and far cheaper than strftime)
        "uuid": event_uuid,
        "properties": parts.properties,
    }
