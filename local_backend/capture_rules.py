"""Rules of what an event may be, shared by ingestion and by an engine that checks events itself.

Ingestion applies them event by event (:mod:`local_backend.ingestion.wire`, :mod:`~local_backend.ingestion.
timestamps`); a chdb bulk load applies the same rules in ClickHouse's SQL, a column at a time
(:mod:`local_backend.store.engine.clickhouse.loader.staging`), so both read them here.
"""

from __future__ import annotations

__all__ = [
    "FUTURE_LIMIT_MICROS",
    "MAX_DISTINCT_ID_LENGTH",
    "MAX_EVENT_NAME_LENGTH",
    "PERSON_EVENTS",
    "SURROGATE_PROPERTIES",
]

MAX_DISTINCT_ID_LENGTH = 200  # longer ids are cut, as PostHog does
MAX_EVENT_NAME_LENGTH = 400

# A timestamp more than this far ahead of the time the event was received is a broken clock: capped there.
FUTURE_LIMIT_MICROS = 23 * 3600 * 1_000_000

# Events that change persons or groups beyond "this distinct id has a person".
PERSON_EVENTS = frozenset({"$identify", "$create_alias", "$merge_dangerously", "$groupidentify"})

SURROGATE_PROPERTIES = "properties hold text with a lone UTF-16 surrogate, which is not valid Unicode"
