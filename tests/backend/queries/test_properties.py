"""Property filters and actions compiled to SQL, run over hand-written events.

Each event's distinct id names the event, so the expected matches can be read straight off the event list.
"""

from __future__ import annotations

import json

import pytest

from local_backend.errors import ValidationError
from local_backend.queries.actions import UnknownAction, action_condition
from local_backend.queries.base_filter import BaseFilter, compiler_for, global_condition
from local_backend.queries.filter_parsing import parse_filter
from local_backend.store.projects import get_project
from tests.backend.compiled_filters import matches
from tests.factories import add_events

T = "2026-01-10T10:00:00Z"


@pytest.fixture
def events(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "chrome", T, {"$browser": "Chrome", "n": 95, "flag": True, "price": "12.5"}),
            ("$pageview", "firefox", T, {"$browser": "Firefox", "n": 7, "flag": False, "price": "x"}),
            ("$pageview", "missing", T, {}),
            ("$pageview", "nulled", T, {"$browser": None, "n": None}),
            ("$pageview", "upper", T, {"$browser": "CHROMIUM", "n": "12", "when": "2026-01-05T08:00:00Z"}),
            ("$pageview", "dated", T, {"when": "2026-01-06"}),
        ],
    )
    return world.project_id


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"key": "$browser", "value": "Chrome"}, ["chrome"]),
        ({"key": "$browser", "value": ["Chrome", "Firefox"]}, ["chrome", "firefox"]),
        ({"key": "n", "value": 95}, ["chrome"]),
        ({"key": "n", "value": "95"}, ["chrome"]),
        ({"key": "flag", "value": ["true"]}, ["chrome"]),
        ({"key": "flag", "value": False}, ["firefox"]),
        ({"key": "$browser", "value": "null"}, ["nulled"]),
        (
            {"key": "$browser", "value": "Chrome", "operator": "is_not"},
            ["dated", "firefox", "missing", "nulled", "upper"],
        ),
        ({"key": "$browser", "value": "chrom", "operator": "icontains"}, ["chrome", "upper"]),
        ({"key": "$browser", "value": "chrom", "operator": "not_icontains"}, ["dated", "firefox", "missing", "nulled"]),
        ({"key": "$browser", "value": "^Chr", "operator": "regex"}, ["chrome"]),
        ({"key": "$browser", "value": "(?i)^chr", "operator": "regex"}, ["chrome", "upper"]),
        (
            {"key": "$browser", "value": "^Chr", "operator": "not_regex"},
            ["dated", "firefox", "missing", "nulled", "upper"],
        ),
        ({"key": "n", "value": 10, "operator": "gt"}, ["chrome", "upper"]),
        ({"key": "n", "value": "12", "operator": "gte"}, ["chrome", "upper"]),
        ({"key": "n", "value": 12, "operator": "lt"}, ["firefox"]),
        ({"key": "n", "value": 7, "operator": "lte"}, ["firefox"]),
        ({"key": "price", "value": 10, "operator": "gt"}, ["chrome"]),
        ({"key": "$browser", "operator": "is_set"}, ["chrome", "firefox", "nulled", "upper"]),
        ({"key": "$browser", "operator": "is_not_set"}, ["dated", "missing", "nulled"]),
        ({"key": "when", "value": "2026-01-05", "operator": "is_date_exact"}, ["upper"]),
        ({"key": "when", "value": "2026-01-06", "operator": "is_date_before"}, ["upper"]),
        ({"key": "when", "value": "2026-01-05", "operator": "is_date_after"}, ["dated"]),
        ({"key": "when", "value": "2026-01-05T07:00:00Z", "operator": "is_date_after"}, ["dated", "upper"]),
        ({"key": "$browser", "value": "Chrome", "operator": "is_not", "negation": True}, ["chrome"]),
    ],
)
def test_event_property_operators(conn, events, prop, expected):
    assert matches(conn, events, [prop]) == expected


def test_groups_nest_and_or(conn, events):
    group = {
        "type": "OR",
        "values": [
            {"type": "AND", "values": [{"key": "$browser", "value": "Chrome"}, {"key": "n", "value": 95}]},
            {"type": "AND", "values": [{"key": "n", "value": 7, "operator": "lte"}]},
        ],
    }
    assert matches(conn, events, group) == ["chrome", "firefox"]


def test_old_dict_form_reads_the_operator_suffix(conn, events):
    assert matches(conn, events, {"$browser__icontains": "fire"}) == ["firefox"]
    assert matches(conn, events, {"$browser": "Chrome"}) == ["chrome"]


def test_keys_are_bound_never_pasted(conn, events):
    hostile = "x') OR 1=1 --"
    assert matches(conn, events, [{"key": hostile, "value": "a"}]) == []
    assert matches(conn, events, [{"key": 'we"ird', "operator": "is_set"}]) == []
    assert matches(conn, events, [{"key": "$browser", "value": "'; DROP TABLE events; --"}]) == []
    assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 6


def test_a_key_with_a_quote_is_still_readable(conn, world):
    add_events(conn, world.project_id, [("e", "quoted", T, {'say "hi"': "yes"}), ("e", "other", T, {})])
    assert matches(conn, world.project_id, [{"key": 'say "hi"', "value": "yes"}]) == ["quoted"]


@pytest.mark.parametrize(
    ("prop", "attr"),
    [
        ({"key": "a", "value": "(unclosed", "operator": "regex"}, "properties__0__value"),
        ({"key": "a", "value": "(a)\\1", "operator": "regex"}, "properties__0__value"),
        ({"key": "a", "value": "x" * 1001, "operator": "regex"}, "properties__0__value"),
        ({"key": "a", "value": "ten", "operator": "gt"}, "properties__0__value"),
        ({"key": "a", "value": "someday", "operator": "is_date_before"}, "properties__0__value"),
        ({"key": "a", "operator": "between"}, "properties__0__operator"),
        ({"key": 12, "value": "a"}, "properties__0__key"),
        ({"key": "a", "type": "planet"}, "properties__0__type"),
        ({"key": "a", "type": "group"}, "properties__0__group_type_index"),
        ({"key": "color", "type": "element"}, "properties__0__key"),
        ({"key": "nosuchfn(x)", "type": "hogql"}, "properties__0__key"),
        # what the schema calls invalid is refused, whatever the type: no default read into a wrong value
        ({"key": "a", "group_type_index": {}}, "properties__0__group_type_index"),
        ({"key": "a", "group_type_index": 5}, "properties__0__group_type_index"),
        ({"key": "a", "type": "group", "group_type_index": True}, "properties__0__group_type_index"),
        ({"key": "a", "type": ""}, "properties__0__type"),
        ({"key": "a", "type": 0}, "properties__0__type"),
        ({"key": "a", "operator": ""}, "properties__0__operator"),
        ({"key": "a", "operator": False}, "properties__0__operator"),
        ({"type": "cohort", "value": 1}, "properties__0__key"),
        ({"type": {}, "values": []}, "properties__0__type"),
        ({"type": "and", "values": []}, "properties__0__type"),
        ([{"key": "a"}], "properties__0"),
    ],
)
def test_bad_conditions_are_400s_naming_the_condition(prop, attr):
    with pytest.raises(ValidationError) as raised:
        parse_filter(BaseFilter, {"properties": [prop]})
    assert raised.value.attr == attr


@pytest.mark.parametrize("name", [{}, ["a"], 3])
def test_a_series_name_is_text(name):
    with pytest.raises(ValidationError) as raised:
        parse_filter(BaseFilter, {"events": [{"id": "a", "name": name}]})
    assert raised.value.attr == "events__0__name"


def test_the_defaults_of_a_condition_are_read_from_null_and_absent_alike():
    group = parse_filter(BaseFilter, {"properties": [{"key": "a", "type": None, "operator": None}, {"key": "b"}]})
    assert [(p.type, p.operator, p.group_type_index) for p in group.properties.values] == [
        ("event", "exact", None),
        ("event", "exact", None),
    ]
    cohort = parse_filter(BaseFilter, {"properties": [{"key": "id", "type": "static-cohort", "value": "7"}]})
    assert cohort.properties.values[0].model_dump() == {
        "key": "id",
        "value": 7,
        "operator": "in",
        "type": "cohort",
        "group_type_index": None,
    }


def test_catastrophic_pattern_runs_in_linear_time(conn, world):
    add_events(conn, world.project_id, [("e", "long", T, {"s": "a" * 5000 + "!"})])
    # (a+)+$ backtracks exponentially in a backtracking engine; RE2 answers at once
    assert matches(conn, world.project_id, [{"key": "s", "value": "^(a+)+$", "operator": "regex"}]) == []


def test_person_properties_come_from_the_person(conn, world):
    add_events(
        conn,
        world.project_id,
        [("e", "alice", T, {"plan": "free"}), ("e", "bob", T, {"plan": "pro"})],
        persons={"alice": {"plan": "pro", "email": "alice@corp.com"}, "bob": {"plan": "free"}},
    )
    assert matches(conn, world.project_id, [{"key": "plan", "value": "pro", "type": "person"}]) == ["alice"]
    assert matches(conn, world.project_id, [{"key": "plan", "value": "pro"}]) == ["bob"]


def _cohort(conn, project_id, *, static: bool, filters: dict | None = None) -> int:
    cursor = conn.execute(
        "INSERT INTO cohorts (project_id, name, is_static, filters, created_at, updated_at)"
        " VALUES (?, 'c', ?, ?, '', '')",
        (project_id, int(static), json.dumps(filters or {})),
    )
    conn.commit()
    return int(cursor.lastrowid)


def test_static_and_dynamic_cohorts(conn, world):
    ids = add_events(
        conn,
        world.project_id,
        [("e", "alice", T), ("e", "bob", T), ("e", "carol", T)],
        persons={"alice": {"plan": "pro"}, "bob": {"plan": "free"}, "carol": {"plan": "pro", "beta": True}},
    )
    static = _cohort(conn, world.project_id, static=True)
    conn.execute("INSERT INTO cohort_people (cohort_id, person_id) VALUES (?, ?)", (static, ids["bob"]))
    conn.commit()
    dynamic = _cohort(
        conn,
        world.project_id,
        static=False,
        filters={"properties": {"type": "OR", "values": [{"key": "plan", "value": "pro", "type": "person"}]}},
    )
    nested = _cohort(
        conn,
        world.project_id,
        static=False,
        filters={
            "properties": {
                "type": "AND",
                "values": [
                    {"key": "id", "value": dynamic, "type": "cohort"},
                    {"key": "beta", "operator": "is_set", "type": "person"},
                ],
            }
        },
    )
    project = world.project_id
    assert matches(conn, project, [{"key": "id", "value": static, "type": "cohort"}]) == ["bob"]
    assert matches(conn, project, [{"key": "id", "value": dynamic, "type": "cohort"}]) == ["alice", "carol"]
    assert matches(conn, project, [{"key": "id", "value": dynamic, "type": "cohort", "operator": "not_in"}]) == ["bob"]
    assert matches(conn, project, [{"key": "id", "value": nested, "type": "cohort"}]) == ["carol"]
    with pytest.raises(ValidationError) as raised:
        matches(conn, project, [{"key": "id", "value": 999, "type": "cohort"}])
    assert raised.value.code == "does_not_exist"


def test_group_properties_join_by_the_events_group_key(conn, world):
    add_events(conn, world.project_id, [("e", "a", T), ("e", "b", T), ("e", "c", T)])
    conn.execute("UPDATE events SET group_1 = 'acme' WHERE distinct_id = 'a'")
    conn.execute("UPDATE events SET group_1 = 'globex' WHERE distinct_id = 'b'")
    for key, industry in (("acme", "tech"), ("globex", "retail")):
        conn.execute(
            "INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at) VALUES (?,1,?,?,0)",
            (world.project_id, key, json.dumps({"industry": industry})),
        )
    conn.commit()
    prop = {"key": "industry", "value": "tech", "type": "group", "group_type_index": 1}
    assert matches(conn, world.project_id, [prop]) == ["a"]
    assert matches(conn, world.project_id, [{**prop, "operator": "is_not"}]) == ["b", "c"]


def test_session_duration_is_first_to_last_event_of_the_session(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            ("e", "short", "2026-01-10T10:00:00Z", {"$session_id": "s1"}),
            ("e", "short", "2026-01-10T10:00:30Z", {"$session_id": "s1"}),
            ("e", "long", "2026-01-10T10:00:00Z", {"$session_id": "s2"}),
            ("e", "long", "2026-01-10T10:05:00Z", {"$session_id": "s2"}),
            ("e", "none", "2026-01-10T10:00:00Z"),
        ],
    )
    prop = {"key": "$session_duration", "type": "session", "value": 60, "operator": "gt"}
    assert matches(conn, world.project_id, [prop]) == ["long"]
    assert matches(conn, world.project_id, [{**prop, "operator": "lte"}]) == ["short"]


def test_element_filters_read_the_elements_chain(conn, world):
    add_events(conn, world.project_id, [("$autocapture", "btn", T), ("$autocapture", "link", T)])
    conn.execute(
        "UPDATE events SET elements_chain = ? WHERE distinct_id = 'btn'",
        ('button.btn.primary:text="Sign up"nth-child="1";div.hero:attr_id="top";body',),
    )
    conn.execute(
        "UPDATE events SET elements_chain = ? WHERE distinct_id = 'link'",
        ('a:href="/pricing"text="Pricing";nav;body',),
    )
    conn.commit()
    project = world.project_id
    assert matches(conn, project, [{"key": "tag_name", "value": "a", "type": "element"}]) == ["link"]
    assert matches(conn, project, [{"key": "text", "value": "Sign up", "type": "element"}]) == ["btn"]
    text_contains = {"key": "text", "value": "sign", "type": "element", "operator": "icontains"}
    assert matches(conn, project, [text_contains]) == ["btn"]
    assert matches(conn, project, [{"key": "href", "value": "/pricing", "type": "element"}]) == ["link"]
    assert matches(conn, project, [{"key": "selector", "value": "div#top button.primary", "type": "element"}]) == [
        "btn"
    ]
    assert matches(conn, project, [{"key": "selector", "value": ".hero a", "type": "element"}]) == []
    assert matches(conn, project, [{"key": "tag_name", "value": "a", "type": "element", "operator": "is_not"}]) == [
        "btn"
    ]


def test_hogql_conditions(conn, events):
    hogql = [{"key": "lower(properties.$browser) like 'chrom%' and toFloat(properties.n) > 20", "type": "hogql"}]
    assert matches(conn, events, hogql) == ["chrome"]
    assert matches(conn, events, [{"key": "properties['$browser'] in ('Firefox', 'CHROMIUM')", "type": "hogql"}]) == [
        "firefox",
        "upper",
    ]
    assert matches(conn, events, [{"key": "event = '$pageview' and distinct_id != 'chrome'", "type": "hogql"}]) == [
        "dated",
        "firefox",
        "missing",
        "nulled",
        "upper",
    ]


def test_test_account_filters_apply_only_when_asked(conn, world):
    add_events(
        conn,
        world.project_id,
        [("e", "staff", T), ("e", "customer", T)],
        persons={"staff": {"email": "me@insightlab.dev"}, "customer": {"email": "c@example.com"}},
    )
    conn.execute(
        "UPDATE projects SET test_account_filters = ? WHERE id = ?",
        (
            json.dumps([{"key": "email", "value": "insightlab.dev", "operator": "not_icontains", "type": "person"}]),
            world.project_id,
        ),
    )
    conn.commit()
    project = get_project(conn, world.project_id)
    compiler = compiler_for(conn, project)
    for flag, expected in ((True, ["customer"]), (False, ["customer", "staff"])):
        filter = parse_filter(BaseFilter, {"filter_test_accounts": flag})
        sql, params = global_condition(compiler, filter, project)
        rows = conn.execute(
            f"SELECT e.distinct_id FROM events e WHERE e.project_id = ? AND {sql} ORDER BY 1", [project["id"], *params]
        )
        assert [row[0] for row in rows] == expected


def _action(conn, project_id, steps) -> int:
    cursor = conn.execute(
        "INSERT INTO actions (project_id, name, steps, created_at, updated_at) VALUES (?, 'a', ?, '', '')",
        (project_id, json.dumps(steps)),
    )
    conn.commit()
    return int(cursor.lastrowid)


def test_actions_match_any_step(conn, world):
    add_events(
        conn,
        world.project_id,
        [
            ("$pageview", "pricing", T, {"$current_url": "https://x.io/pricing?a=1"}),
            ("$pageview", "docs", T, {"$current_url": "https://x.io/docs/start"}),
            ("$pageview", "home", T, {"$current_url": "https://x.io/"}),
            ("signup", "signup_pro", T, {"plan": "pro"}),
            ("signup", "signup_free", T, {"plan": "free"}),
        ],
    )
    project = world.project_id
    compiler = compiler_for(conn, {"id": project})

    def run(steps):
        sql, params = action_condition(compiler, _action(conn, project, steps), "actions__0__id")
        rows = conn.execute(f"SELECT e.distinct_id FROM events e WHERE {sql} ORDER BY 1", params)
        return [row[0] for row in rows]

    assert run([{"event": "$pageview", "url": "/PRICING"}]) == ["pricing"]
    assert run([{"event": "$pageview", "url": "https://x.io/", "url_matching": "exact"}]) == ["home"]
    assert run([{"event": "$pageview", "url": r"/docs/\w+$", "url_matching": "regex"}]) == ["docs"]
    assert run([{"event": "signup", "properties": [{"key": "plan", "value": "pro"}]}, {"url": "pricing"}]) == [
        "pricing",
        "signup_pro",
    ]
    with pytest.raises(UnknownAction):
        action_condition(compiler, 4242, "actions__0__id")


@pytest.mark.parametrize(
    "raw",
    [
        [{"key": "(" * 60 + "1" + ")" * 60, "type": "hogql"}],
        [{"key": "properties.a = ", "type": "hogql"}],
        [{"key": "person.email = 'x'", "type": "hogql"}],
        [{"key": "x" * 2001, "type": "hogql"}],
    ],
)
def test_hogql_refuses_what_it_cannot_read(raw):
    with pytest.raises(ValidationError) as raised:
        parse_filter(BaseFilter, {"properties": raw})
    assert raised.value.attr == "properties__0__key"


def test_groups_nested_too_deep_are_a_400():
    raw: dict = {"key": "a", "value": "b"}
    for _ in range(30):
        raw = {"type": "AND", "values": [raw]}
    with pytest.raises(ValidationError):
        parse_filter(BaseFilter, {"properties": raw})


def test_a_group_of_an_unknown_kind_is_a_400():
    with pytest.raises(ValidationError) as raised:
        parse_filter(BaseFilter, {"properties": {"type": "XOR", "values": []}})
    assert raised.value.attr == "properties__type"


def test_property_values_of_every_json_type_compare_as_text(conn, world):
    add_events(
        conn,
        world.project_id,
        [("e", "obj", T, {"v": {"a": 1}}), ("e", "list", T, {"v": [1, 2]}), ("e", "float", T, {"v": 1.5})],
    )
    project = world.project_id
    assert matches(conn, project, [{"key": "v", "value": "1.5"}]) == ["float"]
    assert matches(conn, project, [{"key": "v", "value": "a", "operator": "icontains"}]) == ["obj"]
    assert matches(conn, project, [{"key": "v", "value": r"^\[1,2\]$", "operator": "regex"}]) == ["list"]
