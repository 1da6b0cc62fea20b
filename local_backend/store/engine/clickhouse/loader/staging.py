"""The staging table of a chdb bulk load: the file read once by ClickHouse, checked, and ready to copy.

:class:`Stage` fills a table beside ``events`` (``_load_<id>``) from the file in one ``INSERT ... SELECT``: each
row's number, name, distinct id, time in UTC microseconds, properties as the file's JSON text, uuid (given, or
derived from the content), the reason it cannot be an event (the row-by-row loader's checks, worded as it words
them: :mod:`.times`, :mod:`.properties`), and what the person rules, the group columns, the stored property
columns and the definitions need, all from one parse of the properties. It then sets aside the rows already
stored or repeated, and serves the load's batches (:mod:`local_backend.loading.columnar`): the rows the person
rules read, the group types in order of first sight, the property samples, and the copy into ``events`` joined
with the persons Python decided. :func:`.file_source.file_source` gives the ``file()`` table function it reads
a file through.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .....capture_rules import (
    FUTURE_LIMIT_MICROS,
    MAX_DISTINCT_ID_LENGTH,
    MAX_EVENT_NAME_LENGTH,
    PERSON_EVENTS,
    SURROGATE_PROPERTIES,
)
from .....limits import MAX_JSON_DEPTH
from ....hot_properties import HOT_PROPERTIES
from ....person_rules import PERSON_UUID_NAMESPACE
from ..client import ChdbClient, ClickHouseClient
from ..params import string_literal as _literal
from ..raw_values import hot_value_of_raw, python_float_text
from ..stored_columns import HOT_COLUMNS
from .abandoned_stages import STAGE_PREFIX
from .file_source import MAYBE_TYPED_EVENT, MAYBE_TYPED_ID
from .properties import lone_surrogate as has_lone_surrogate
from .properties import names_a_key_twice, not_finite, repeated_name, too_deep
from .times import EARLIEST_MICROS, LATEST_MICROS, local_micros, other_iso_form, stripped

__all__ = ["Stage", "stored_value"]

_HOT_KEYS = {column: key for key, column in HOT_PROPERTIES.items()}
# The events that might change persons; Python decides exactly. (``$groups`` alone does not: ClickHouse reads the
# group columns itself, see Stage.copy.)
_MAYBE_PERSON = (
    f"event IN ({', '.join(repr(name) for name in sorted(PERSON_EVENTS))})"
    " OR hasAny(keys, ['$set', '$set_once', '$unset'])"
)
# each usable entry of $groups (name, raw JSON value) with its key's text as GroupBook.columns makes it (str() of
# the value; a whole real keeps its point, which the raw text has lost, so a number is looked up again as a
# Double), or '' for a key that names no group (groups.is_group_key: null, empty, an object or an array). The
# raw values come from $groups' own raw text read again, where a whole real from 2^64 on has become an integer
# too large for 64 bits, whose raw text is its digits in quotes: such quoted digits are a string or a Double.
_GROUP_KEY_NUMBER = "JSONExtractFloat(properties, '$groups', kv.1)"
_GROUP_KEY_QUOTED_NUMBER = "(match(kv.2, '^\"-?[0-9]+\"$') AND JSONType(properties, '$groups', kv.1) = 'Double')"
_GROUP_KEYS = (
    "arrayFilter(x -> x.1 != '' AND x.2 != '', arrayMap(kv -> (kv.1, multiIf("
    f"startsWith(kv.2, '\"') AND NOT {_GROUP_KEY_QUOTED_NUMBER},"
    " JSONExtractString(concat('[', kv.2, ']'), 1),"
    " kv.2 IN ('', 'null') OR startsWith(kv.2, '{') OR startsWith(kv.2, '['), '',"
    " kv.2 = 'true', 'True', kv.2 = 'false', 'False',"
    " (startsWith(kv.2, '\"') OR match(kv.2, '^-?[0-9]')) AND JSONType(properties, '$groups', kv.1) = 'Double',"
    f" {python_float_text(_GROUP_KEY_NUMBER)}, kv.2)),"
    " group_pairs))"
)

# person_rules.person_uuid of the row's distinct id (the project id bound as {project}): uuid5 is SHA-1 of the
# namespace's bytes and the name, its first 16 bytes in hex with the version (5) and variant (10xx) bits set
_SHA1 = f"SHA1(concat(unhex('{PERSON_UUID_NAMESPACE.hex}'), toString({{project:Int64}}), ':', distinct_id))"
_HEX = f"lower(hex({_SHA1}))"
_PERSON_UUID = (
    f"concat(substring({_HEX}, 1, 8), '-', substring({_HEX}, 9, 4), '-5', substring({_HEX}, 14, 3), '-',"
    f" substring('89ab', bitAnd(bitShiftRight(reinterpretAsUInt8(substring({_SHA1}, 9, 1)), 4), 3) + 1, 1),"
    f" substring({_HEX}, 18, 3), '-', substring({_HEX}, 21, 12))"
)


def stored_value(column: str) -> str:
    """The value of a stored column of ``events`` from the staged names (``keys``) and raw values (``raws``)."""
    key = "$session_id" if column == "session_id" else _HOT_KEYS[column]
    raw = f"raws[indexOf(keys, {_literal(key)})]"
    booleans = ("'1'", "'0'") if column == "session_id" else None  # session_id holds SQLite's 1 and 0
    return hot_value_of_raw(raw, "properties", _literal(key), booleans=booleans)


@dataclass
class StagedCounts:
    """What a filled stage holds: rows read, rejected (with the first reasons, ``(row, reason)``) and set aside
    as already stored or repeated."""

    read: int
    rejected: int
    duplicates: int
    rejections: list[tuple[int, str]] = field(default_factory=list)


class Stage:
    """The staging table of one load, and the rows set aside as already stored or repeated."""

    def __init__(self, client: ClickHouseClient, project_id: int) -> None:
        self.client = client
        self.project_id = project_id
        name = f"{STAGE_PREFIX}{os.getpid()}_{uuid.uuid4().hex[:16]}"  # the process id: see abandoned_stages
        self.table = f"`{client.database}`.{name}"
        self.kept = f"`{client.database}`.{name}_kept"
        self.map = f"`{client.database}`.{name}_map"
        self.rows = 0
        self.stored: list[str] = []

    def fill(
        self,
        source: str,
        *,
        typed: bool,
        json_text: bool,
        received: int,
        stored: frozenset[str],
        report: Callable[[int, int], None] | None = None,
    ) -> None:
        """Read the file into the staging table; ``typed`` when the source gives the event and distinct id as
        ``Dynamic`` (JSON's types), ``json_text`` when it gives JSON's text of any value as a string (then a row
        whose text JSON may have typed is marked); ``stored`` names the columns of ``events`` to compute here, and
        ``report`` hears ``(bytes read, bytes to read)`` while the file is read."""
        db = f"`{self.client.database}`"
        self.stored = [column for column in (*HOT_COLUMNS, "session_id") if column in stored]
        values = "".join(f", {column} Nullable(String)" for column in self.stored)
        self.client.command(
            f"CREATE TABLE {self.table} (row UInt64, event String, distinct_id String, ts Int64, properties String,"
            f" uuid String, reason String, maybe_person UInt8, groups Map(String, String), group_type String,"
            f" shape UInt64, other_time_form UInt8, maybe_typed UInt8, repeated_name UInt8{values})"
            " ENGINE = MergeTree ORDER BY row"
        )
        # the table lives for one load: merging its parts is wasted work, and grows with the file (measured: a
        # 20M-event fill took 96 s with merges, 76 s without; 5M, 18.4 s and 15.6 s)
        self.client.command(f"SYSTEM STOP MERGES {self.table}")
        self.client.command(f"CREATE TABLE {self.kept} (row UInt64) ENGINE = MergeTree ORDER BY row")
        self.client.command(f"CREATE TABLE {self.map} (row UInt64, person_id Int64) ENGINE = Memory")
        latest = received + FUTURE_LIMIT_MICROS
        computed = "".join(f", {stored_value(column)} AS {column}" for column in self.stored)
        read = {
            "event": "if(dynamicType(source.event) = 'String', toString(source.event), '')",
            "event_not_text": "dynamicType(source.event) NOT IN ('None', 'String')",
            "given_did": "if(dynamicType(source.distinct_id) IN ('String', 'Int64', 'UInt64'),"
            " toString(source.distinct_id), '')",
            "given_not_text": "dynamicType(source.distinct_id) NOT IN ('None', 'String', 'Int64', 'UInt64')",
        } if typed else {
            "event": "ifNull(source.event, '')", "event_not_text": "0",
            "given_did": "ifNull(source.distinct_id, '')", "given_not_text": "0",
        }  # fmt: skip
        maybe_typed = (
            f"match(event, {_literal(MAYBE_TYPED_EVENT)}) OR match(given_did, {_literal(MAYBE_TYPED_ID)})"
            if json_text
            else "0"
        )
        run = self.client.command
        if report is not None and isinstance(self.client, ChdbClient):
            run = partial(self.client.command_reporting, report=report)
        run(f"""
            INSERT INTO {self.table}
            SELECT row, event, substringUTF8(did, 1, {MAX_DISTINCT_ID_LENGTH}) AS distinct_id,
                if(t > {latest}, {received}, ifNull(t, 0)) AS ts, properties,
                if(given != '', given, concat(
                    substring(millis, 1, 8), '-', substring(millis, 9, 4), '-7', substring(digest, 1, 3), '-8',
                    substring(digest, 4, 3), '-', substring(digest, 7, 12))) AS uuid,
                multiIf(
                    event = '',
                        if(event_not_text, 'event is not text', 'event is missing'),
                    -- one parse: a non-empty list of names proves a JSON object; an empty one may be {{}}, or
                    -- text ClickHouse cannot read, which Python may (see clickhouse_properties)
                    unreadable AND NOT (out_of_range OR lone_surrogate), 'properties is not valid JSON',
                    empty(keys) AND NOT unreadable AND NOT startsWith(trimLeft(properties), '{{'),
                        'properties is not a JSON object',
                    did = '', if(did_not_text, 'distinct_id is not text', 'distinct_id is missing'),
                    stamp = '', 'timestamp is missing',
                    t IS NULL, concat('timestamp ', {_literal("'")}, substringUTF8(stamp, 1, 40), {_literal("'")},
                        if(local_t IS NULL, ' is not an ISO 8601 date-time', ' is out of range')),
                    raw_uuid != '' AND given = '', concat('uuid ', {_literal("'")}, substringUTF8(raw_uuid, 1, 40),
                        {_literal("'")}, ' is not a UUID'),
                    lengthUTF8(event) > {MAX_EVENT_NAME_LENGTH},
                        'event name is longer than {MAX_EVENT_NAME_LENGTH} characters',
                    trimBoth(did) = '', 'no distinct_id',
                    out_of_range, 'properties are not valid JSON: Out of range float values are not JSON compliant',
                    lone_surrogate, {_literal(SURROGATE_PROPERTIES)},
                    {too_deep("raws")}, 'properties nest more than {MAX_JSON_DEPTH} levels deep',
                    '') AS reason,
                {_MAYBE_PERSON} AS maybe_person,
                mapFromArrays(arrayMap(x -> x.1, g), arrayMap(x -> x.2, g)) AS groups,
                -- the group type a $groupidentify names, if text and its $group_key names a group, as
                -- groups.is_group_key has it (see group_types)
                if(event = '$groupidentify' AND startsWith(raws[indexOf(keys, '$group_type')], '"')
                        AND raws[indexOf(keys, '$group_key')] NOT IN ('', 'null', '""')
                        AND NOT startsWith(raws[indexOf(keys, '$group_key')], '{{')
                        AND NOT startsWith(raws[indexOf(keys, '$group_key')], '['),
                    JSONExtractString(concat('[', raws[indexOf(keys, '$group_type')], ']'), 1), '') AS group_type,
                -- the names, and which of them hold a value with a type (see property_samples)
                cityHash64(keys, arrayMap(x -> x = 'null' OR startsWith(x, '{{') OR startsWith(x, '['), raws))
                    AS shape, other_time_form, {maybe_typed} AS maybe_typed,
                {repeated_name("keys", "raws", "group_pairs")} AS repeated_name{computed}
            FROM (
                SELECT *, arrayMap(x -> x.1, kv) AS keys, arrayMap(x -> x.2, kv) AS raws,
                    JSONExtractKeysAndValuesRaw(raws[indexOf(keys, '$groups')]) AS group_pairs, {_GROUP_KEYS} AS g,
                    empty(kv) AND NOT isValidJSON(properties) AS unreadable,
                    unreadable AND {not_finite("properties")} AS out_of_range,
                    unreadable AND {has_lone_surrogate("properties")} AS lone_surrogate
                -- one layer per step: ClickHouse analyses an alias again wherever it is named, so an alias
                -- named in the layer that makes it multiplies the statement (the timestamp's reading alone grew
                -- it to 7 MB of query tree and 2 s of analysis for any file); a subquery's column is named for free
                FROM (
                    SELECT *,
                        -- 72 bits of content hash (CityHash: a quarter of SipHash's cost over the properties)
                        concat(lower(hex(cityHash64(event, did, t, properties))), lower(hex(cityHash64(t, did, event))))
                            AS digest,
                        leftPad(lower(hex(bitAnd(toUInt64(intDiv(ifNull(t, 0), 1000)), 281474976710655))), 12, '0')
                            AS millis
                    FROM (
                        SELECT *, if(local_t BETWEEN {EARLIEST_MICROS} AND {LATEST_MICROS}, local_t, NULL) AS t
                        FROM (
                            SELECT *,
                                multiIf(given_did != '', given_did,
                                    did_type = 'String', JSONExtractString(properties, 'distinct_id'),
                                    did_type IN ('Int64', 'UInt64'), JSONExtractRaw(properties, 'distinct_id'), '')
                                    AS did,
                                given_not_text OR did_type NOT IN ('', 'Null', 'String', 'Int64', 'UInt64')
                                    AS did_not_text,
                                -- read as the row-by-row loader reads it (see clickhouse_times)
                                {local_micros("stamp_text")} AS local_t,
                                {other_iso_form("stamp_text")} AS other_time_form,
                                if(match(uuid_hex, '^[0-9a-fA-F]{{32}}$'), lower(concat(substring(uuid_hex, 1, 8), '-',
                                    substring(uuid_hex, 9, 4), '-', substring(uuid_hex, 13, 4), '-',
                                    substring(uuid_hex, 17, 4), '-', substring(uuid_hex, 21, 12))), '') AS given
                            FROM (
                                SELECT *,
                                    if(given_did != '' OR given_not_text, '', JSONType(properties, 'distinct_id'))
                                        AS did_type,
                                    {stripped("stamp")} AS stamp_text,
                                    -- as Python's uuid.UUID reads it: urn: and uuid: dropped, braces trimmed,
                                    -- dashes anywhere
                                    replaceAll(trimBoth(replaceAll(replaceAll(raw_uuid, 'urn:', ''), 'uuid:', ''),
                                        '{{}}'), '-', '') AS uuid_hex
                                FROM (
                                    SELECT rowNumberInAllBlocks() + 1 AS row, {read["event"]} AS event,
                                        {read["event_not_text"]} AS event_not_text,
                                        ifNull(timestamp, '') AS stamp,
                                        if(ifNull(properties, '') = '', '{{}}', assumeNotNull(properties))
                                            AS properties,
                                        ifNull(uuid, '') AS raw_uuid,
                                        JSONExtractKeysAndValuesRaw(properties) AS kv,
                                        -- as the row-by-row loader: text or an integer; when null or empty,
                                        -- properties.distinct_id
                                        {read["given_did"]} AS given_did, {read["given_not_text"]} AS given_not_text
                                    FROM {source} AS source))))))
            SETTINGS input_format_skip_unknown_fields = 0, max_insert_threads = 2,
                input_format_try_infer_dates = 0, input_format_try_infer_datetimes = 0,
                short_circuit_function_evaluation = 'force_enable'
        """)  # every value pasted above is ours; the file's path is quoted by _literal
        self.client.command(
            f"INSERT INTO {self.kept} SELECT row FROM {self.table} WHERE reason = '' AND uuid NOT IN"
            f" (SELECT uuid FROM {db}.events WHERE project_id = {{project:Int64}}) ORDER BY row LIMIT 1 BY uuid",
            {"project": self.project_id},
        )
        self.rows = int(self.client.query_rows(f"SELECT count() FROM {self.table}")[0][0])

    def may_hold_typed_values(self) -> bool:
        """Whether a row's event or distinct id, read as text, may have been a value JSON typed (see fill)."""
        return bool(self.client.query_rows(f"SELECT count() FROM {self.table} WHERE maybe_typed")[0][0])

    def has_other_time_forms(self) -> bool:
        """Whether a row's timestamp is in an ISO 8601 form the fill does not read (see clickhouse_times)."""
        return bool(self.client.query_rows(f"SELECT count() FROM {self.table} WHERE other_time_form")[0][0])

    def has_repeated_names(self) -> bool:
        """Whether the properties of an event to store name a key twice in one object (see
        :func:`~.properties.repeated_name`)."""
        sure, maybe = self.client.query_rows(
            f"SELECT countIf(repeated_name = 2), countIf(repeated_name = 1) FROM {self.table} WHERE reason = ''"
        )[0]
        if sure or not maybe:
            return bool(sure)
        deep = self.client.query_rows(f"SELECT properties FROM {self.table} WHERE reason = '' AND repeated_name = 1")
        return any(names_a_key_twice(text) for (text,) in deep)

    def counts(self) -> StagedCounts:
        """The rows read, rejected and set aside as duplicates, with the first rejections' reasons."""
        (rejected, valid), kept = (
            self.client.query_rows(f"SELECT countIf(reason != ''), countIf(reason = '') FROM {self.table}")[0],
            int(self.client.query_rows(f"SELECT count() FROM {self.kept}")[0][0]),
        )
        rejections = [
            (int(row), str(reason))
            for row, reason in self.client.query_rows(
                f"SELECT row, reason FROM {self.table} WHERE reason != '' ORDER BY row LIMIT 20"
            )
        ]
        return StagedCounts(read=self.rows, rejected=int(rejected), duplicates=int(valid) - kept, rejections=rejections)

    def batch(self, first: int, last: int) -> Any:
        """The kept rows numbered ``first``..``last`` in file order: row, distinct id, time, name, uuid, flag, and
        the uuid a person created for the distinct id would have
        (:func:`local_backend.store.person_rules.person_uuid`; made here, in ClickHouse's threads, rather than one
        at a time in Python)."""
        return self.client.query_arrow(
            f"SELECT row, distinct_id, ts, event, uuid, maybe_person, {_PERSON_UUID} AS person_uuid FROM {self.table}"
            f" WHERE row BETWEEN {{first:UInt64}} AND {{last:UInt64}} AND row IN"
            f" (SELECT row FROM {self.kept} WHERE row BETWEEN {{first:UInt64}} AND {{last:UInt64}}) ORDER BY row",
            {"first": first, "last": last, "project": self.project_id},
        )

    def properties(self, first: int, last: int) -> dict[int, str]:
        """The properties of the rows numbered ``first``..``last`` that may change persons, by row."""
        found = self.client.query_rows(
            f"SELECT row, properties FROM {self.table}"
            " WHERE row BETWEEN {first:UInt64} AND {last:UInt64} AND maybe_person != 0",
            {"first": first, "last": last},
        )
        return {int(row): text for row, text in found}

    def property_samples(self, first: int, last: int) -> list[tuple[str, str, str]]:
        """Each property name of the batch's kept events, its first value that has a type and its first value
        (raw JSON), read from the first event of each shape (events mostly share a few): the first event with a
        given set of names, each marked by whether its value has a type, holds every name's first typed value.

        ClickHouse gives an integer beyond 64 bits as its digits in quotes, as it gives text of digits: such a
        value is read again from its event's properties, in Python, which tells them apart."""
        typed = "NOT (startsWith(kv.2, '{') OR startsWith(kv.2, '[') OR kv.2 = 'null')"
        found = self.client.query_rows(
            f"SELECT kv.1 AS key, argMinIf(kv.2, row, {typed}) AS typed, argMin(kv.2, row) AS first,"
            f" argMinIf(row, row, {typed}) AS typed_row"
            f" FROM (SELECT row, properties FROM {self.table} WHERE row IN (SELECT min(s.row) FROM {self.table} AS s"
            f" WHERE s.row BETWEEN {{first:UInt64}} AND {{last:UInt64}} AND s.row IN"
            f" (SELECT row FROM {self.kept} WHERE row BETWEEN {{first:UInt64}} AND {{last:UInt64}}) GROUP BY s.shape))"
            f" ARRAY JOIN JSONExtractKeysAndValuesRaw(properties) AS kv GROUP BY key",
            {"first": first, "last": last},
        )
        quoted = {int(row) for _, value, _, row in found if _QUOTED_LONG_DIGITS.fullmatch(value)}
        if not quoted:
            return [(key, value, raw) for key, value, raw, _ in found]
        texts = dict(self.client.query_rows(
            f"SELECT row, properties FROM {self.table} WHERE row IN {{rows:Array(UInt64)}}", {"rows": sorted(quoted)}
        ))  # fmt: skip
        return [
            (key, _json_of(key, texts[int(row)]) if _QUOTED_LONG_DIGITS.fullmatch(value) else value, raw)
            for key, value, raw, row in found
        ]

    def group_types(self, first: int, last: int) -> list[str]:
        """The group type names the batch's kept events name, in order of first sight (as ingestion meets them)."""
        kept = (
            f"row BETWEEN {{first:UInt64}} AND {{last:UInt64}}"
            f" AND row IN (SELECT row FROM {self.kept} WHERE row BETWEEN {{first:UInt64}} AND {{last:UInt64}})"
        )
        found = self.client.query_rows(
            f"SELECT name FROM (SELECT name, row, position FROM {self.table}"
            f" ARRAY JOIN mapKeys(groups) AS name, arrayEnumerate(mapKeys(groups)) AS position"
            f" WHERE {kept} AND notEmpty(groups)"
            # a $groupidentify's own type comes before the types of its $groups, as in person_and_groups
            f" UNION ALL SELECT group_type AS name, row, toUInt32(0) AS position FROM {self.table}"
            f" WHERE {kept} AND group_type != '')"
            " GROUP BY name ORDER BY min((row, position))",
            {"first": first, "last": last},
        )
        return [str(row[0]) for row in found]

    def set_persons(self, mapping: Any) -> None:
        """The person of each row of the next :meth:`copy`: ``mapping`` is an Arrow table of row and person id."""
        self.client.command(f"TRUNCATE TABLE {self.map}")
        self.client.insert_arrow(self.map, mapping)

    def copy(self, groups: dict[str, int], first: int, last: int, created_at: int) -> None:
        """The batch's kept rows into ``events``, with the persons of :meth:`set_persons` and the group columns
        of ``groups`` (type name -> index) read from the keys the fill took out of ``$groups``."""
        db = f"`{self.client.database}`"
        named = {index: name for name, index in groups.items()}
        columns = ", ".join(f"if(mapContains(groups, {{g{i}:String}}), groups[{{g{i}:String}}], NULL)"
                            if i in named else "NULL" for i in range(5))  # fmt: skip
        stored = "".join(f", {column}" for column in self.stored)
        self.client.command(
            f"INSERT INTO {db}.events (project_id, uuid, event, distinct_id, person_id, timestamp, created_at,"
            f" properties, elements_chain, group_0, group_1, group_2, group_3, group_4{stored})"
            f" SELECT {{project:Int64}}, s.uuid, s.event, s.distinct_id, m.person_id, s.ts, {{created:Int64}},"
            f" s.properties, '', {columns}{stored}"
            f" FROM (SELECT * FROM {self.table} WHERE row BETWEEN {{first:UInt64}} AND {{last:UInt64}}) AS s"
            f" INNER JOIN {self.map} AS m ON s.row = m.row"
            # the stored columns computed by fill() from one parse, rather than by their own expressions
            " SETTINGS insert_allow_materialized_columns = 1",
            {"project": self.project_id, "created": created_at, "first": first, "last": last,
             **{f"g{i}": name for i, name in named.items()}},
        )  # fmt: skip

    @property
    def tables(self) -> tuple[str, str, str]:
        """The staging table, its kept rows and its person map."""
        return self.table, self.kept, self.map

    def drop(self) -> None:
        for table in (self.table, self.kept, self.map):
            self.client.command(f"DROP TABLE IF EXISTS {table}")


# the raw text ClickHouse gives a JSON integer beyond 64 bits (19 digits at least), and text of as many digits
_QUOTED_LONG_DIGITS = re.compile(r'"-?[0-9]{19,}"')


def _json_of(key: str, properties: str) -> str:
    """The JSON text of one property as Python reads the event's properties (the last of a repeated name)."""
    return json.dumps(json.loads(properties)[key])
