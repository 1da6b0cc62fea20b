"""Random filter bodies against insights/trend/ and insights/funnel/: never a 500, always a 200 or a 400
envelope whose ``attr`` names a field of the filter.

The bodies mix valid shapes with what a hostile or careless client sends: nesting at random depths, text
holding NUL or a lone surrogate, integers far beyond 64 bits, lists and objects where scalars belong. Bounded
and derandomized, so the run is the same on every machine.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from local_backend.models.property_filters import OPERATORS, PROPERTY_TYPES
from tests.factories import add_events

T = "2026-01-12T10:00:00Z"

TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            "\x00",
            "a\x00b",
            "\ud800",
            "x\udfffy",
            "$pageview",
            "$browser",
            "signup",
            "Chrome",
            "1" * 400,
            "-7d",
            "2026-01-10",
            "all",
            "(((",
            "A+B",
            "properties.n > 1",
            "lower(event) = 'x'",
        ]
    ),
)
INTEGER = st.one_of(st.integers(-10, 10), st.integers(), st.sampled_from([2**63, -(2**63) - 1, 2**70, 10**30]))
SCALAR = st.one_of(st.none(), st.booleans(), INTEGER, st.floats(allow_nan=False), TEXT)
JSON = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=12
)


KEY = st.one_of(st.sampled_from(["$browser", "n", "$session_duration", "id", "tag_name"]), TEXT)
VALUE = st.one_of(SCALAR, st.lists(SCALAR, max_size=3))
CONDITION = st.fixed_dictionaries(
    {"key": KEY, "value": VALUE},
    optional={
        "operator": st.sampled_from(OPERATORS),
        "type": st.sampled_from(["event", "event", "person", *PROPERTY_TYPES]),
        "group_type_index": st.integers(-1, 5),
        "negation": st.booleans(),
    },
)
PROPERTIES = st.recursive(
    st.lists(CONDITION, max_size=3),
    lambda inner: (
        st.fixed_dictionaries(
            {"type": st.sampled_from(["AND", "OR"]), "values": st.lists(inner | CONDITION, max_size=3)}
        )
        | st.lists(inner | CONDITION, max_size=3)
    ),
    max_leaves=8,
)
ENTITY = st.fixed_dictionaries(
    {"id": st.one_of(st.sampled_from(["$pageview", "signup", None]), TEXT)},
    optional={
        "order": st.integers(-2, 3),
        "math": st.sampled_from(["total", "dau", "sum", "p90", "unique_session", "avg_count_per_actor"]),
        "math_property": KEY,
        "properties": PROPERTIES,
        "custom_name": TEXT,
    },
)
ACTION = st.fixed_dictionaries({"id": INTEGER, "type": st.just("actions")})
SHARED = {
    "events": st.lists(ENTITY, min_size=1, max_size=3),
    "actions": st.lists(ACTION, max_size=1),
    "properties": PROPERTIES,
    "date_from": st.one_of(st.sampled_from(["-7d", "-30d", "2026-01-10", "-1mStart", "all"]), TEXT),
    "date_to": st.one_of(st.sampled_from(["2026-01-15", "-1d"]), TEXT),
    "interval": st.sampled_from(["hour", "day", "week", "month", "minute"]),
    "breakdown": st.one_of(st.sampled_from(["$browser", "n"]), st.lists(INTEGER | TEXT, max_size=3), TEXT),
    "breakdown_type": st.sampled_from(["event", "person", "cohort", "session", "hogql"]),
    "breakdown_limit": INTEGER,
    "filter_test_accounts": st.booleans(),
}
TREND_FIELDS = {
    **SHARED,
    "display": st.sampled_from(["ActionsLineGraph", "ActionsTable", "BoldNumber", "ActionsPie"]),
    "compare": st.booleans(),
    "compare_to": st.one_of(st.sampled_from(["-1w", "-1m"]), TEXT),
    "formula": st.one_of(st.sampled_from(["A+B", "A/0", "A*2"]), TEXT),
}
FUNNEL_FIELDS = {
    **SHARED,
    "exclusions": st.lists(
        st.fixed_dictionaries(
            {"id": st.sampled_from(["signup", "$pageview"])},
            optional={"funnel_from_step": INTEGER, "funnel_to_step": INTEGER, "properties": PROPERTIES},
        ),
        max_size=2,
    ),
    "funnel_order_type": st.sampled_from(["ordered", "strict", "unordered"]),
    "funnel_viz_type": st.sampled_from(["steps", "trends", "time_to_convert"]),
    "funnel_window_interval": INTEGER,
    "funnel_window_interval_unit": st.sampled_from(["second", "minute", "hour", "day", "week", "month"]),
    "funnel_window_days": INTEGER,
    "funnel_from_step": INTEGER,
    "funnel_to_step": INTEGER,
    "bin_count": INTEGER,
    "breakdown_attribution_type": st.sampled_from(["first_touch", "last_touch", "all_events", "step"]),
    "breakdown_attribution_value": INTEGER,
}
FIELDS = {*TREND_FIELDS, *FUNNEL_FIELDS}


@st.composite
def filter_body(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Any]]) -> dict[str, Any]:
    """A body of well-typed fields holding hostile values, then up to two fields replaced by any JSON at all."""
    body = draw(
        st.fixed_dictionaries({"events": fields["events"]}, optional={k: v for k, v in fields.items() if k != "events"})
    )
    for name in draw(st.lists(st.sampled_from(sorted(fields)), max_size=2, unique=True)):
        body[name] = draw(JSON)
    return body


@pytest.fixture
def data(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "alice", T, {"$browser": "Chrome", "n": 3, "$session_id": "s1"}),
            ("signup", "alice", "2026-01-12T10:05:00Z", {"$browser": "Chrome", "n": 1, "$session_id": "s1"}),
            ("$pageview", "bob", "2026-01-13T09:00:00Z", {"$browser": "Firefox", "n": "x"}),
        ],
    )
    return world


def check(client, world, path: str, body: dict[str, Any]) -> None:
    answer = client.post(
        f"/api/projects/{world.project_id}/insights/{path}/",
        content=json.dumps(body),  # a lone surrogate travels as the \ud800 escape
        headers={"Content-Type": "application/json", **world.headers()},
    )
    assert answer.status_code in (200, 400), (answer.status_code, answer.text, body)
    if answer.status_code == 400:
        error = answer.json()
        assert set(error) == {"type", "code", "detail", "attr"}, error
        assert isinstance(error["attr"], str) and error["attr"].split("__")[0] in FIELDS, (error, body)


FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(body=filter_body(TREND_FIELDS))
def test_trend_filters_never_fail_the_server(client, data, body):
    check(client, data, "trend", body)


@FUZZ
@given(body=filter_body(FUNNEL_FIELDS))
def test_funnel_filters_never_fail_the_server(client, data, body):
    check(client, data, "funnel", body)
