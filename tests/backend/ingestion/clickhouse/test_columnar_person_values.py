"""A chdb bulk load gives the person rules the values Python reads of each event's properties (ClickHouse's raw
JSON text writes some numbers again: 1.0 as 1, 1e5 as 100000, a long integer as a string), and a person's
properties come out as the row-by-row load stores them.

distinct id  $set (as written in the file)                       person's properties (as stored)
u1           {"f": 1.0, "g": 2.50}                               {"f":1.0,"g":2.5}     reals keep their point
u2           {"e": 1e5, "m": -2E-3}                              {"e":100000.0,"m":-0.002}
u3           {"big": 12345678901234567890123}                    the integer, not a string of its digits
u4           {"id": 18446744073709551615, "neg": -0}             {"id":18446744073709551615,"neg":0}
u5           strings with escapes, true, null, an array          the same values (non-ASCII escaped)
u6           {"v": "1.5", "w": "1e5"} (text that reads numeric)  the same text
u7           {"n": 3}, beside "price": 9.99 outside $set         {"n":3}
"""

from __future__ import annotations

from datetime import UTC, datetime

from local_backend.loading import load_file

from .test_clickhouse_load import spy_on_columnar_store

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
SETS = {
    "u1": ('{"f": 1.0, "g": 2.50}', '{"f":1.0,"g":2.5}'),
    "u2": ('{"e": 1e5, "m": -2E-3}', '{"e":100000.0,"m":-0.002}'),
    "u3": ('{"big": 12345678901234567890123}', '{"big":12345678901234567890123}'),
    "u4": ('{"id": 18446744073709551615, "neg": -0}', '{"id":18446744073709551615,"neg":0}'),
    "u5": (
        '{"s": "a\\nb\\u0000c\\"d", "k\\u00e9y": "v\u00e9\\ud83d\\ude00", "t": true, "z": null,'
        ' "l": [1, "2.5", {"q": 3}]}',
        '{"s":"a\\nb\\u0000c\\"d","k\\u00e9y":"v\\u00e9\\ud83d\\ude00","t":true,"z":null,"l":[1,"2.5",{"q":3}]}',
    ),
    "u6": ('{"v": "1.5", "w": "1e5"}', '{"v":"1.5","w":"1e5"}'),
    "u7": ('{"n": 3}', '{"n":3}'),
}


def test_person_properties_keep_the_values_python_reads(monkeypatch, ch_conn, tmp_path, world):
    lines = []
    for number, (distinct_id, (written, _)) in enumerate(SETS.items()):
        price = ', "price": 9.99' if distinct_id == "u7" else ""
        lines.append(
            f'{{"event": "signup", "distinct_id": "{distinct_id}", "timestamp": "2026-01-10T10:00:0{number}Z",'
            f' "properties": {{"$browser": "Chrome"{price}, "$set": {written}}}}}'
        )
    path = tmp_path / "people.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    used = spy_on_columnar_store(monkeypatch)
    report = load_file(ch_conn, world.project_id, path, now=NOW)
    assert used and report.loaded == len(SETS) and report.rejected == 0
    stored = dict(
        ch_conn.execute(
            "SELECT d.distinct_id, p.properties FROM person_distinct_ids AS d JOIN persons AS p ON p.id = d.person_id"
        )
    )
    assert stored == {distinct_id: expected for distinct_id, (_, expected) in SETS.items()}
