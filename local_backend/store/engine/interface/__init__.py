"""The event engine's interface: what every engine implements, and nothing of any engine.

    reads.py     :class:`EventStore` and its request types: what calculations read (events, persons, groups)
    dialect.py   :class:`Dialect`: the SQL the filter compilers write for the store they read from
    writes.py    :class:`EventWriter`: appends, rewrites and stored property columns
    handle.py    :class:`EventEngine`: an open engine, the store and writer of each connection to its database
    person_profiles.py  the conditions that tell personless events (``$process_person_profile: false``) apart

Contracts, method by method: ``docs/storage.md``; how an engine is chosen: :mod:`..choice`.
"""

from __future__ import annotations

from .dialect import (
    HOGQL_SCALARS,
    Dialect,
    PersonTest,
    Sql,
)
from .handle import EventEngine
from .person_profiles import PERSON_PROFILE_KEY, personful_condition, personless_condition
from .reads import (
    COUNT,
    COUNT_OPERATORS,
    ActiveActors,
    ActiveIntervals,
    ActorColumns,
    CreatedColumns,
    EventListing,
    EventStore,
    FirstSeen,
    FlaggedRows,
    FlaggedScan,
    Fragment,
    IntervalColumns,
    Measure,
    PersonEventScan,
    PropertyValues,
    Span,
    SpanAggregate,
    StoredEvent,
    TopValues,
)
from .sql_run import SqlAnswer, SqlRun
from .writes import (
    EVENT_ROW_COLUMNS,
    EventRewrite,
    EventRow,
    EventWriter,
    RewriteJudge,
    Rewritten,
    StoredRow,
    TransactionWrites,
)

__all__ = [
    "EventStore",
    "Fragment",
    "Span",
    "Measure",
    "COUNT",
    "SpanAggregate",
    "FirstSeen",
    "ActiveActors",
    "ActorColumns",
    "ActiveIntervals",
    "IntervalColumns",
    "CreatedColumns",
    "COUNT_OPERATORS",
    "TopValues",
    "FlaggedScan",
    "FlaggedRows",
    "PersonEventScan",
    "EventListing",
    "StoredEvent",
    "PropertyValues",
    "SqlRun",
    "SqlAnswer",
    "Dialect",
    "PersonTest",
    "Sql",
    "HOGQL_SCALARS",
    "EVENT_ROW_COLUMNS",
    "EventRow",
    "TransactionWrites",
    "EventRewrite",
    "StoredRow",
    "Rewritten",
    "RewriteJudge",
    "EventWriter",
    "EventEngine",
    "PERSON_PROFILE_KEY",
    "personful_condition",
    "personless_condition",
]
