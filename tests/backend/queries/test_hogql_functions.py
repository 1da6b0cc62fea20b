"""Every function of the HogQL subset, on every engine: a hogql breakdown shows each event's value of the
expression, so each case is a trend of one day broken down by it.

The values are worked out by hand from the documented rules (:mod:`local_backend.models.hogql`): ``round`` goes
half away from zero and answers a float (shown with its point, ``3.0``), ``lower``/``upper`` fold ASCII only,
``length`` counts characters, ``if`` takes its condition as true when it is a true comparison or a value that
reads as a non-zero number. A NULL value is the null bucket.
"""

from __future__ import annotations

from typing import Any

import pytest

from local_backend.errors import ValidationError
from local_backend.queries.trends import TrendsFilter, compute_trends
from tests.backend.queries.hogql_sweep.sweep import DAY, PROPERTIES
from tests.factories import add_events

NULL = "$$_posthog_breakdown_null_$$"


def values_of(conn, project, clock, expression: str) -> dict[Any, int]:
    add_events(conn, project["id"], [("e", who, f"{DAY}T10:00:00Z", props) for who, props in PROPERTIES.items()])
    filter = TrendsFilter(
        events=[{"id": "e"}], breakdown=expression, breakdown_type="hogql", date_from=DAY, date_to=DAY
    )
    return {
        series["breakdown_value"]: series["count"]
        for series in compute_trends(conn, project, filter, clock.now()).series
    }


CASES = [
    # text
    ("lower(properties.name)", {"mixed ä": 1, "plain": 1, NULL: 2}),
    ("upper(properties.name)", {"MIXED ä": 1, "PLAIN": 1, NULL: 2}),
    ("lower(properties.n)", {"5": 1, "12": 1, "abc": 1, "2.5": 1}),  # a number read as its text
    ("trim(properties.padded)", {"a b": 1, NULL: 3}),
    ("length(properties.name)", {"7": 1, "5": 1, NULL: 2}),
    ("length(12345)", {"5": 4}),
    ("concat(properties.name, '-', properties.nothing, '-', 7)", {"MiXed ä--7": 1, "plain--7": 1, "--7": 2}),
    ("toString(properties.n)", {"5": 1, "12": 1, "abc": 1, "2.5": 1}),
    # several values
    ("coalesce(properties.name, properties.n)", {"MiXed ä": 1, "plain": 1, "abc": 1, "2.5": 1}),
    ("coalesce(properties.nothing, 5)", {"5": 4}),  # text mixed with a number: the number as text
    ("ifNull(properties.name, 'none')", {"MiXed ä": 1, "plain": 1, "none": 2}),
    # numbers
    ("toFloat(properties.n)", {"5.0": 1, "12.0": 1, NULL: 1, "2.5": 1}),
    ("toInt(properties.n)", {"5": 1, "12": 1, NULL: 1, "2": 1}),
    ("toInt(-7.9)", {"-7": 4}),
    ("round(2.5)", {"3.0": 4}),
    ("round(-2.5)", {"-3.0": 4}),
    ("round(1234.5678, 2)", {"1234.57": 4}),
    ("round(properties.price, 1)", {"1.3": 1, "2.5": 1, NULL: 2}),  # 1.25 half away from zero; "2.5" read
    ("round(properties.price)", {"1.0": 1, "3.0": 1, NULL: 2}),
    ("round(toFloat(properties.n), 0)", {"5.0": 1, "12.0": 1, NULL: 1, "3.0": 1}),
    ("abs(-3)", {"3": 4}),
    ("abs(properties.delta)", {"2.5": 1, "4.0": 1, NULL: 2}),  # a value read as toFloat reads it
    # if
    ("if(1, 'a', 'b')", {"a": 4}),
    ("if(0, 'a', 'b')", {"b": 4}),
    ("if(null, 'a', 'b')", {"b": 4}),
    ("if(properties.paid, 'paid', 'free')", {"paid": 2, "free": 2}),  # true and 2; false and "yes" are not
    ("if(properties.n, 'set', 'unset')", {"set": 3, "unset": 1}),  # "abc" reads as no number
    ("if(toFloat(properties.n) > 10, 'big', 'small')", {"big": 1, "small": 3}),  # NULL > 10 is not true
    ("if(properties.name = 'plain', 1, 'other')", {"1": 1, "other": 3}),  # a number and text: as text
]
# a property beside a number reads as toFloat reads it (NULL unless a number); beside text it stays text
OPERATOR_CASES = [
    ("properties.n + 1", {"6.0": 1, "13.0": 1, NULL: 1, "3.5": 1}),
    ("properties.n - properties.price", {"3.75": 1, "9.5": 1, NULL: 2}),
    ("properties.n / 2", {"2.5": 1, "6.0": 1, NULL: 1, "1.25": 1}),
    ("-properties.delta", {"2.5": 1, "4.0": 1, NULL: 2}),
    ("properties.n > 3", {"1": 2, "0": 1, NULL: 1}),  # "12" reads as 12; "abc" is no number
    ("properties.price * 2 >= 5", {"0": 1, "1": 1, NULL: 2}),
    ("properties.n = 5", {"1": 1, "0": 2, NULL: 1}),
    ("properties.paid = 1", {"1": 1, "0": 2, NULL: 1}),  # true reads as 1, "yes" as no number
    ("properties.n = '5'", {"1": 1, "0": 3}),  # beside text: compared as text
    ("properties.big > properties.n", {"0": 1, NULL: 3}),  # two values: as text, '10' sorts before '5'
    ("properties.n in (5, 12)", {"1": 2, "0": 1, NULL: 1}),
    ("properties.n not in (5, 12)", {"0": 2, "1": 1, NULL: 1}),
    ("properties.n in ('5', 'abc')", {"1": 2, "0": 2}),
    ("properties.n like '1%'", {"1": 1, "0": 3}),
    ("5 like '5'", {"1": 4}),  # a number read as its text
    ("properties.paid and properties.n > 3", {"1": 1, "0": 2, NULL: 1}),  # 2 is true; "yes" unknown
    ("not properties.paid", {"0": 2, "1": 1, NULL: 1}),
    ("if(properties.n > 3, 'big', 'small')", {"big": 2, "small": 2}),
    ("if(properties.n * 2 > 9, properties.n + 0, 0.0)", {"5.0": 1, "12.0": 1, "0.0": 2}),
]


@pytest.mark.parametrize(("expression", "expected"), CASES, ids=[case[0] for case in CASES])
def test_a_function_gives_its_documented_value(conn, project, clock, engine, expression, expected) -> None:
    assert values_of(conn, project, clock, expression) == expected


@pytest.mark.parametrize(("expression", "expected"), OPERATOR_CASES, ids=[case[0] for case in OPERATOR_CASES])
def test_an_operator_reads_a_property_beside_a_number_as_a_number(
    conn, project, clock, engine, expression, expected
) -> None:
    assert values_of(conn, project, clock, expression) == expected


def test_every_documented_function_has_a_case() -> None:
    from local_backend.models.hogql import _FUNCTIONS

    called = {expression.split("(")[0].lower() for expression, _ in CASES}
    assert set(_FUNCTIONS) <= called


def test_a_hogql_filter_reads_a_value_as_a_condition(conn, project, clock, engine) -> None:
    add_events(conn, project["id"], [("e", who, f"{DAY}T10:00:00Z", props) for who, props in PROPERTIES.items()])
    properties = [{"key": "round(properties.price, 1) = 1.3", "type": "hogql"}]
    filter = TrendsFilter(events=[{"id": "e"}], properties=properties, date_from=DAY, date_to=DAY)
    [series] = compute_trends(conn, project, filter, clock.now()).series
    assert series["count"] == 1  # ann's 1.25


@pytest.mark.parametrize("expression", ["sqrt(4)", "toDate(timestamp)", "round(1, 2, 3)"])
def test_an_unsupported_function_or_arity_is_a_400_naming_it(conn, project, clock, engine, expression) -> None:
    with pytest.raises(ValidationError) as caught:
        values_of(conn, project, clock, expression)
    assert caught.value.status_code == 400 and caught.value.attr == "breakdown"
    assert expression.split("(")[0].lower() in caught.value.detail.lower()


@pytest.mark.parametrize(
    ("key", "count"),
    [
        ("properties.n > 3", 2),  # 5 and "12"; "abc" and 2.5 are not
        ("properties.amount * 2 >= 10", 2),  # 5 and "7.5"
        ("person.properties.age < 30", 1),  # 25; "40" is not, "old" reads as no number
        ("properties.paid", 2),  # true and 2
        ("properties.n = '5'", 1),  # beside text the value is its text
    ],
)
def test_the_trends_api_filters_on_a_property_compared_with_a_number(client, world, engine, key, count) -> None:
    people = {
        "ann": ({"n": 5, "amount": 5, "paid": True}, {"age": 25}),
        "ben": ({"n": "12", "amount": "7.5", "paid": 2}, {"age": "40"}),
        "cy": ({"n": "abc", "amount": "x", "paid": "yes"}, {"age": "old"}),
        "di": ({"n": 2.5, "amount": 4.9, "paid": False}, {}),
    }
    batch = [
        {"event": "e", "distinct_id": who, "timestamp": f"{DAY}T10:00:00Z", "properties": {**props, "$set": person}}
        for who, (props, person) in people.items()
    ]
    assert client.post("/batch/", json={"api_key": world.project_token, "batch": batch}).status_code == 200
    body = {"events": [{"id": "e"}], "date_from": DAY, "date_to": DAY, "properties": [{"key": key, "type": "hogql"}]}
    answer = client.post(f"/api/projects/{world.project_id}/insights/trend/", json=body, headers=world.headers())
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"][0]["count"] == count
