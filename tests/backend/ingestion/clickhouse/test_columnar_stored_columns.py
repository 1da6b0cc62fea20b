"""A chdb bulk load computes the stored property columns itself, from one parse of each event: the values must
be the ones the columns' own expressions give (what capture stores, and what a query computes for old parts)."""

from __future__ import annotations

from datetime import UTC, datetime

from local_backend.loading import load_file

from .test_clickhouse_load import spy_on_columnar_store

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
# the raw JSON of $browser / $session_id in each event, and what the hot column v_browser must hold
BROWSERS = [
    ('"Chrome"', "Chrome"),
    ('"ab\\u00e9\\n\\u2028x"', "ab\u00e9\n\u2028x"),
    ("1.0", "1.0"),  # a real keeps its point, as SQLite prints it
    ("1.50", "1.5"),
    ("1e20", "1.0e+20"),
    ("2.5e20", "2.5e+20"),  # a whole real from 2^64 on: ClickHouse's raw text is its digits in quotes
    ("-2.5e20", "-2.5e+20"),
    ('"250000000000000000000"', "250000000000000000000"),  # text of digits stays text
    ("0.0", "0.0"),
    ("12", "12"),
    ("123456789012345678901234", "123456789012345678901234"),  # past 64 bits: read as text (docs/clickhouse.md)
    ("true", "true"),
    ("false", "false"),
    ("null", None),
    ('""', ""),
    ('[1, "\\u2028", 2.50]', '[1,"\u2028",2.5]'),
    ('{"a": {"b": 1}}', '{"a":{"b":1}}'),
    (None, None),  # no $browser at all
    ("9223372036854775807", "9223372036854775807"),  # the largest integer SQLite holds
    ("9223372036854775808", "9.22337203685478e+18"),  # past it, SQLite reads a real
    ("18446744073709551615", "1.84467440737096e+19"),
]


def test_stored_columns_equal_their_own_expressions(monkeypatch, ch_conn, ch, tmp_path, world):
    lines = []
    for number, (raw, _) in enumerate(BROWSERS):
        fields = [f'"$browser": {raw}', f'"$session_id": {raw}'] if raw is not None else ['"$os": "Linux"']
        lines.append(
            f'{{"event": "e", "distinct_id": "u{number}", "timestamp": "2026-01-10T10:00:{number:02d}Z",'
            f' "properties": {{"n": {number}, {", ".join(fields)}}}}}'
        )
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(lines) + "\n")
    used = spy_on_columnar_store(monkeypatch)
    report = load_file(ch_conn, world.project_id, path, now=NOW)
    assert used and report.loaded == len(BROWSERS)
    db = f"`{ch.database}`"
    stored = ch.query_rows(
        "SELECT name, default_expression FROM system.columns WHERE database = {db:String} AND table = 'events'"
        " AND default_kind = 'MATERIALIZED' AND name != 'day'",
        {"db": ch.database},
    )
    assert {"v_browser", "v_os", "session_id"} <= {name for name, _ in stored}
    for name, expression in stored:
        differing = ch.query_rows(
            f"SELECT JSONExtractInt(properties, 'n'), {name}, {expression} FROM {db}.events"
            f" WHERE NOT ({name} <=> ({expression})) ORDER BY 1"
        )
        assert differing == [], name
    browsers = dict(ch.query_rows(f"SELECT JSONExtractInt(properties, 'n'), v_browser FROM {db}.events"))
    assert [browsers[n] for n in range(len(BROWSERS))] == [expected for _, expected in BROWSERS]
    # session_id as SQLite's generated text column holds it: as v_browser, but true and false as 1 and 0
    sessions = dict(ch.query_rows(f"SELECT JSONExtractInt(properties, 'n'), session_id FROM {db}.events"))
    assert [sessions[n] for n in range(len(BROWSERS))] == [
        {"true": "1", "false": "0"}.get(raw, expected) for raw, expected in BROWSERS
    ]
