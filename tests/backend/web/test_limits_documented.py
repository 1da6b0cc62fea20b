"""Every bound in ``local_backend/limits.py`` is stated in docs/trends.md's Limits table, with its value.

A new limit fails here until it has a row: each name maps to the start of the row that documents it.
"""

from __future__ import annotations

from pathlib import Path

from local_backend import limits

DOCS = Path(__file__).resolve().parents[3] / "docs" / "trends.md"

# limit -> the first cell of its row in the table
ROWS = {
    "MAX_INT64": "ids (action ids",
    "MIN_INT64": "ids (action ids",
    "MAX_PROPERTY_KEY_LENGTH": "property key",
    "MAX_PROPERTY_VALUE_LENGTH": "one value of a condition",
    "MAX_ICONTAINS_LENGTH": "`icontains`",
    "MAX_EXACT_VALUES": "values of one `exact`",
    "MAX_CONDITIONS_PER_GROUP": "conditions of one property filter",
    "MAX_CONDITIONS_PER_REQUEST": "conditions of a whole request",
    "MAX_REGEX_CONDITIONS_PER_REQUEST": "`regex` / `not_regex` conditions",
    "MAX_PROPERTY_GROUP_DEPTH": "property groups inside groups",
    "MAX_PATTERN_LENGTH": "regex",
    "MAX_PATTERN_NESTING": "regex",
    "MAX_PATTERN_PROGRAM_SIZE": "regex",
    "MAX_EXPRESSION_LENGTH": "HogQL expression",
    "MAX_EXPRESSION_DEPTH": "HogQL expression",
    "MAX_EXPRESSION_TERMS": "HogQL expression",
    "MAX_ENTITIES": "series",
    "MAX_TIMESTAMP_LENGTH": "dates",
    "MAX_JSON_DEPTH": "JSON bodies",
    "MAX_NAME_LIST_ITEMS": "name lists of property definitions",
    "MAX_FILTER_PARAM_NESTING": "property filters in a query string",
}


def limits_table() -> dict[str, str]:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("### Limits") :]
    section = section[: section.index("\n\n", section.index("|---"))]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| what")]
    return {row.split("|")[1].strip(): row for row in rows}


def stated(value: int) -> str:
    return "64 bits" if abs(value) >= 2**62 else str(value)


def test_every_limit_has_a_row_stating_its_value():
    assert set(ROWS) == set(limits.__all__), "map each new limit to its row in docs/trends.md"
    table = limits_table()
    for name, start in ROWS.items():
        row = next((row for first, row in table.items() if first.startswith(start)), None)
        assert row is not None, f"no row starting {start!r} for {name}"
        assert stated(getattr(limits, name)) in row, f"{name} = {getattr(limits, name)} is not in {row!r}"
