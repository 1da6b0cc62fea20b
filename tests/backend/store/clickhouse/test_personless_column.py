"""``events.personless`` (stored, or computed on read) says what the JSON condition says, text by text.

properties text                                   personless
{"$process_person_profile": false}                1
{"a": 1, "$process_person_profile": false}        1
{"$process_person_profile": true}                 0
{"$process_person_profile": "false"}              0   a string, not the boolean
{"$process_person_profile": null}                 0
{"$process_person_profile": 0}                    0
{}                                                0   missing
{"process_person_profile": false}                 0   another key
{"\\u0024process_person_profile": false}          1   the key written with an escape
{"note": "\\u00e9", "x": "$process_person_profile"} 0  an escape elsewhere, the key's text as a value
not JSON                                          0
"""

from __future__ import annotations

import pytest

from local_backend.store.engine.clickhouse.dialect import ClickHouseDialect
from local_backend.store.engine.clickhouse.params import string_literal
from local_backend.store.engine.clickhouse.stored_columns import personless_expression
from local_backend.store.engine.interface.person_profiles import personless_condition

CASES = [
    ('{"$process_person_profile": false}', 1),
    ('{"a": 1, "$process_person_profile": false}', 1),
    ('{"$process_person_profile": true}', 0),
    ('{"$process_person_profile": "false"}', 0),
    ('{"$process_person_profile": null}', 0),
    ('{"$process_person_profile": 0}', 0),
    ("{}", 0),
    ('{"process_person_profile": false}', 0),
    ('{"\\u0024process_person_profile": false}', 1),
    ('{"note": "\\u00e9", "x": "$process_person_profile"}', 0),
    ("not JSON", 0),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_personless_column_reads_as_the_json_condition(ch_client, text: str, expected: int) -> None:
    literal = string_literal(text)
    condition, params = personless_condition(ClickHouseDialect(ch_client.database))
    parsed = condition.replace("e.properties", "p")
    for param in params:
        parsed = parsed.replace("?", string_literal(param), 1)
    rows = ch_client.query_rows(
        f"SELECT {personless_expression('p')}, toUInt8(coalesce({parsed}, 0)) FROM (SELECT {literal} AS p)"
    )
    assert rows == [(expected, expected)]
