"""Property columns stored in the events table, as PostHog stores its ``mat_*`` columns.

The hot properties (``v_browser``, ...) and every materialized event property (``mat_...``) become
``MATERIALIZED`` columns of ``events``: ClickHouse computes each from ``properties`` as a row is inserted, and
:meth:`MATERIALIZE COLUMN <add_property_column>` fills the rows stored before. The expression gives the value a
query would otherwise compute per row (:meth:`.ClickHouseDialect.hot_value`), computed from the value's raw text
(:func:`.raw_values.hot_value_of_raw`): the typed read parses the properties once per type it tests, and a
``MATERIALIZED`` expression is evaluated whole, every branch for every row. A part written before the column
existed answers with the same expression on read.
:func:`drop_property_column` takes a materialized property's column away again (never a hot one).

On a cluster (``client.cluster``) every statement runs ``ON CLUSTER``: the column is added to ``events_local``
(each shard stores it), then to the ``Distributed`` table ``events`` in front, so reads can name it; only the
shards' tables are filled. Unlike PostHog, whose ``events`` table takes no inserts (it writes through another
``Distributed`` table), the ``Distributed`` column is ``MATERIALIZED`` with the same expression rather than
plain: an insert through ``events`` sends a shard every column but the ``MATERIALIZED`` ones, and a shard
refuses a value for its own ``MATERIALIZED`` column. A read through ``events`` still gets the shard's stored
value (the shards run the query). A drop goes the other way: ``events`` first, so no read names a column the
shards have lost.

Reads (:mod:`.rows`) take the stored column when the tables have it (:func:`stored_columns`) and compute the
value otherwise.
"""

from __future__ import annotations

import weakref

from ...hot_properties import HOT_PROPERTIES
from ..interface.person_profiles import PERSON_PROFILE_KEY
from .client import ClickHouseClient
from .dialect import ClickHouseDialect
from .params import string_literal
from .raw_values import hot_value_of_raw

__all__ = [
    "HOT_COLUMNS",
    "PERSONLESS_COLUMN",
    "personless_expression",
    "SESSION_ID_EXPRESSION",
    "add_hot_columns",
    "add_property_column",
    "drop_property_column",
    "event_tables",
    "property_expression",
    "stored_columns",
    "stored_hot_columns",
]

HOT_COLUMNS = tuple(HOT_PROPERTIES.values())
#: The prefix of a materialized property's column (:func:`local_backend.store.materialized.column_name`).
MATERIALIZED_PREFIX = "mat_"


def property_expression(key: str) -> str:
    """The value of property ``key`` of an event's ``properties`` as a hot column holds it (the dialect's
    ``hot_value``), from the value's raw text, with the key written into the text as a quoted literal (a
    column's expression cannot take parameters); keys holding a quote, a backslash or a control character are
    refused, as materialized property names are (:func:`local_backend.store.materialized.check_key`)."""
    if any(char in key for char in "'\\") or any(ord(char) < 32 for char in key):
        raise ValueError(f"property key {key!r} cannot be written into a column's expression")
    literal = string_literal(key)  # a backtick is text inside quotes
    return hot_value_of_raw(f"JSONExtractRaw(properties, {literal})", "properties", literal)


#: ``events.session_id``: ``$session_id`` as SQLite's generated text column holds it (``json_extract``: text as
#: it is, numbers as SQLite prints them, true and false as 1 and 0, arrays and objects as JSON, NULL for null),
#: which is :meth:`.ClickHouseDialect.extract`'s value; computed from the value's raw text, which parses the
#: properties once for most events where ``extract`` parses them for each type it tests (measured on 1M demo
#: events inserted: 2.7-3.5 s of CPU, against 5.2-5.4 s)
SESSION_ID_EXPRESSION = hot_value_of_raw(
    "JSONExtractRaw(properties, '$session_id')", "properties", "'$session_id'", booleans=("'1'", "'0'")
)


#: ``events.personless``: 1 for an event sent with ``$process_person_profile: false`` (which PostHog's lifecycle
#: leaves out), else 0, as :func:`~..interface.person_profiles.personless_condition` answers. Tables made with it
#: store it (:data:`.schema.TABLES`), so a lifecycle reads one byte per event instead of every event's properties
#: (measured at 1M events: 0.06 s against 0.2-0.4 s for the statement); reads of a table made before compute it.
PERSONLESS_COLUMN = "personless"


def personless_expression(column: str) -> str:
    """:data:`PERSONLESS_COLUMN`'s value computed from ``column`` (the properties text), with the key written in as
    a literal (a column's expression takes no parameters). Properties holding neither the key's text nor a
    ``\\u`` escape (which an escaped key would need) cannot hold the key and are not parsed."""
    kind, params = ClickHouseDialect("").json_type(column, PERSON_PROFILE_KEY)
    literal = string_literal(PERSON_PROFILE_KEY)
    typed = kind.replace("?", literal)
    key_text, escape = string_literal(PERSON_PROFILE_KEY.lstrip("$")), string_literal("\\u")
    return (
        f"if(position({column}, {key_text}) = 0 AND position({column}, {escape}) = 0, toUInt8(0),"
        f" toUInt8(coalesce(({typed}) = 'false', 0)))"
    )


def _cluster(client: ClickHouseClient) -> str | None:
    return getattr(client, "cluster", None) or None


def event_tables(client: ClickHouseClient) -> list[str]:
    """The tables events live in: ``events``; on a cluster, ``events`` and the shards' ``events_local``."""
    return ["events", "events_local"] if _cluster(client) else ["events"]


def stored_columns(client: ClickHouseClient) -> frozenset[str]:
    """The names of the ``MATERIALIZED`` columns of the events table; on a cluster, those of both
    ``events_local`` and the ``Distributed`` table ``events``."""
    tables = event_tables(client)
    rows = client.query_rows(
        "SELECT name FROM system.columns WHERE database = {db:String} AND table IN {tables:Array(String)}"
        " AND default_kind = 'MATERIALIZED' GROUP BY name HAVING count() = {count:UInt8}",
        {"db": client.database, "tables": tables, "count": len(tables)},
    )
    return frozenset(str(name) for (name,) in rows)


_all_hot_stored: weakref.WeakSet[ClickHouseClient] = weakref.WeakSet()


def stored_hot_columns(client: ClickHouseClient) -> frozenset[str]:
    """The hot columns the events table stores. Asked of ClickHouse until every one is there, then known for the
    client's life: they are added as the tables are made (:func:`add_hot_columns`) and never dropped, so a HogQL
    query does not pay a look-up each."""
    if client in _all_hot_stored:
        return frozenset(HOT_COLUMNS)
    stored = stored_columns(client) & frozenset(HOT_COLUMNS)
    if len(stored) == len(HOT_COLUMNS):
        _all_hot_stored.add(client)
    return stored


def add_property_column(client: ClickHouseClient, column: str, key: str) -> bool:
    """Store property ``key`` in column ``column`` of the events table, filling the rows already stored;
    False when it is there already."""
    if column in stored_columns(client):
        return False
    db, cluster = f"`{client.database}`", _cluster(client)
    definition = f"ADD COLUMN IF NOT EXISTS {column} Nullable(String) MATERIALIZED {property_expression(key)}"
    if cluster is None:
        client.command(f"ALTER TABLE {db}.events {definition}")
        client.command(f"ALTER TABLE {db}.events MATERIALIZE COLUMN {column} SETTINGS mutations_sync = 1")
        return True
    on_cluster = f"ON CLUSTER `{cluster}`"
    client.command(f"ALTER TABLE {db}.events_local {on_cluster} {definition}")
    client.command(f"ALTER TABLE {db}.events {on_cluster} {definition}")
    # 2: wait until every replica of every shard has filled it, as one server waits for itself
    client.command(
        f"ALTER TABLE {db}.events_local {on_cluster} MATERIALIZE COLUMN {column} SETTINGS mutations_sync = 2"
    )
    return True


def drop_property_column(client: ClickHouseClient, column: str) -> None:
    """Drop a materialized property's column ``column`` from the events table (nothing when it is not there);
    a hot property's column, or any column that is not a materialized property's, is refused."""
    if column in HOT_COLUMNS or not column.startswith(MATERIALIZED_PREFIX):
        raise ValueError(f"{column!r} is not a materialized property's column")
    db, cluster = f"`{client.database}`", _cluster(client)
    if cluster is None:
        client.command(f"ALTER TABLE {db}.events DROP COLUMN IF EXISTS {column}")
        return
    on_cluster = f"ON CLUSTER `{cluster}`"
    client.command(f"ALTER TABLE {db}.events {on_cluster} DROP COLUMN IF EXISTS {column}")
    client.command(f"ALTER TABLE {db}.events_local {on_cluster} DROP COLUMN IF EXISTS {column}")


def add_hot_columns(client: ClickHouseClient) -> None:
    """Store every hot property (idempotent). The missing columns come in one ``ALTER`` per table and are filled
    only when events are stored already: a new database's tables are made in a fifth of the time that a column
    at a time takes (each ``ALTER`` rewrites the table's metadata, each fill is a mutation)."""
    present = stored_columns(client)
    missing = [(key, column) for key, column in HOT_PROPERTIES.items() if column not in present]
    if not missing:
        return
    db, cluster = f"`{client.database}`", _cluster(client)
    columns = ", ".join(
        f"ADD COLUMN IF NOT EXISTS {column} Nullable(String) MATERIALIZED {property_expression(key)}"
        for key, column in missing
    )
    stored = f"{db}.events" if cluster is None else f"{db}.events_local ON CLUSTER `{cluster}`"
    if cluster is not None:  # the shards' tables first, as add_property_column
        client.command(f"ALTER TABLE {stored} {columns}")
    client.command(f"ALTER TABLE {db}.events {'' if cluster is None else f'ON CLUSTER `{cluster}` '}{columns}")
    if client.query_rows(f"SELECT count() FROM {db}.events")[0][0]:
        wait = 1 if cluster is None else 2  # 2: every replica of every shard, as add_property_column
        for _, column in missing:
            client.command(f"ALTER TABLE {stored} MATERIALIZE COLUMN {column} SETTINGS mutations_sync = {wait}")
