"""The people behind every number of a broken-down funnel are exactly the persons counted.

For each breakdown kind (event property as a string and as a list, person property, cohort), every step's
``converted_people_url`` and ``dropped_people_url`` and ``/query/``'s ``ActorsQuery`` over a
``FunnelsActorsQuery`` list the persons the step's count counts; who that is, is worked out by hand below.
"""

from __future__ import annotations

import pytest

from tests.factories import add_events

FUNNEL = "/api/projects/{pid}/insights/funnel/"
QUERY = "/api/projects/{pid}/query/"
STEPS = [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}, {"id": "purchase", "order": 2}]
RANGE = {"date_from": "2026-01-05", "date_to": "2026-01-14"}


def _journey(person, browser, day, steps):
    names = ["$pageview", "signup", "purchase"][:steps]
    return [(name, person, f"2026-01-{day}T10:{10 * i:02d}:00Z", {"$browser": browser}) for i, name in enumerate(names)]


EVENTS = [
    *_journey("ann", "Chrome", 10, 3),
    *_journey("ben", "Chrome", 10, 2),
    *_journey("cat", "Chrome", 11, 1),
    *_journey("dan", "Safari", 11, 2),
    *_journey("eve", "Safari", 12, 1),
    *_journey("fay", "Firefox", 12, 3),
]
PLANS = {"ann": "pro", "cat": "pro", "eve": "pro", "ben": "free", "dan": "free", "fay": "free"}

# who reached steps 1, 2 and 3 under each value: the ones dropped before step k reached k - 1, not k
BY_BROWSER = {
    "Chrome": [{"ann", "ben", "cat"}, {"ann", "ben"}, {"ann"}],
    "Safari": [{"dan", "eve"}, {"dan"}, set()],
    "Firefox": [{"fay"}, {"fay"}, {"fay"}],
}
BY_PLAN = {
    "pro": [{"ann", "cat", "eve"}, {"ann"}, {"ann"}],
    "free": [{"ben", "dan", "fay"}, {"ben", "dan", "fay"}, {"fay"}],
}
# the cohort holds ann, dan and fay; "all" is everyone
IN_COHORT = [{"ann", "dan", "fay"}, {"ann", "dan", "fay"}, {"ann", "fay"}]
EVERYONE = [{"ann", "ben", "cat", "dan", "eve", "fay"}, {"ann", "ben", "dan", "fay"}, {"ann", "fay"}]


@pytest.fixture
def stored(conn, world):
    persons = {name: {"plan": plan} for name, plan in PLANS.items()}
    ids = add_events(conn, world.project_id, EVENTS, persons=persons)
    conn.execute(
        "INSERT INTO cohorts (project_id, name, is_static, created_at, updated_at) VALUES (?, 'Chosen', 1, '', '')",
        (world.project_id,),
    )
    cohort = conn.execute("SELECT id FROM cohorts WHERE name = 'Chosen'").fetchone()[0]
    conn.executemany("INSERT INTO cohort_people VALUES (?, ?)", [(cohort, ids[n]) for n in ("ann", "dan", "fay")])
    conn.commit()
    return cohort


def _breakdowns(cohort):
    """(request fields, {value as the funnel shows it: persons reaching each step})."""
    return {
        "event string": ({"breakdown": "$browser"}, BY_BROWSER),
        "event list": ({"breakdown": ["$browser"]}, {f"['{k}']": v for k, v in BY_BROWSER.items()}),
        "person": ({"breakdown": "plan", "breakdown_type": "person"}, BY_PLAN),
        "cohort": (
            {"breakdown": [cohort, "all"], "breakdown_type": "cohort"},
            {str(cohort): IN_COHORT, "all": EVERYONE},
        ),
    }


def _funnel(client, world, fields):
    body = {"insight": "FUNNELS", "events": STEPS, **RANGE, **fields}
    response = client.post(FUNNEL.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()["result"]


def _names(people):
    return {distinct_id for person in people for distinct_id in person["distinct_ids"]}


def _url_people(client, world, url):
    response = client.get(url, headers=world.headers())
    assert response.status_code == 200, response.json()
    [page] = response.json()["results"]
    return _names(page["people"])


def _shown(value):
    return str(value) if not isinstance(value, list) else str([str(item) for item in value])


KINDS = ["event string", "event list", "person", "cohort"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_step_url_lists_exactly_the_persons_counted(client, world, stored, kind):
    fields, expected = _breakdowns(stored)[kind]
    result = _funnel(client, world, fields)
    assert {_shown(group[0]["breakdown_value"]) for group in result} == set(expected)
    for group in result:
        reached = expected[_shown(group[0]["breakdown_value"])]
        for index, step in enumerate(group):
            assert step["count"] == len(reached[index])
            assert _url_people(client, world, step["converted_people_url"]) == reached[index]
            if index:
                assert _url_people(client, world, step["dropped_people_url"]) == reached[index - 1] - reached[index]


def _actors(client, world, fields, funnel_step, breakdown=None, **page):
    source = {
        "kind": "FunnelsQuery",
        "series": [{"kind": "EventsNode", "event": step["id"]} for step in STEPS],
        "dateRange": RANGE,
        "breakdownFilter": fields,
    }
    node = {"kind": "FunnelsActorsQuery", "source": source, "funnelStep": funnel_step}
    if breakdown is not None:
        node["funnelStepBreakdown"] = breakdown
    body = {"query": {"kind": "ActorsQuery", "source": node, "select": ["actor"], **page}}
    return client.post(QUERY.format(pid=world.project_id), json=body, headers=world.headers())


@pytest.mark.parametrize("kind", KINDS)
def test_actors_query_lists_exactly_the_persons_counted(client, world, stored, kind):
    fields, expected = _breakdowns(stored)[kind]
    for group in _funnel(client, world, fields):
        value = group[0]["breakdown_value"]
        reached = expected[_shown(value)]
        for step in range(1, 4):
            for funnel_step, persons in ((step, reached[step - 1]), (-step, None)):
                if funnel_step == -1:
                    continue
                persons = reached[step - 2] - reached[step - 1] if persons is None else persons
                response = _actors(client, world, fields, funnel_step, value)
                assert response.status_code == 200, response.json()
                answer = response.json()
                assert answer["columns"] == ["actor"] and answer["hasMore"] is False
                assert _names(row[0] for row in answer["results"]) == persons


def test_actors_query_pages_with_limit_and_offset(client, world, stored):
    first = _actors(client, world, {"breakdown": "$browser"}, 1, "Chrome", limit=2).json()
    rest = _actors(client, world, {"breakdown": "$browser"}, 1, "Chrome", limit=2, offset=2).json()
    assert first["hasMore"] is True and rest["hasMore"] is False
    assert _names(row[0] for row in first["results"] + rest["results"]) == {"ann", "ben", "cat"}


def test_a_text_value_reads_the_same_quoted_or_not(client, world, stored):
    [chrome, *_] = _funnel(client, world, {"breakdown": "$browser"})
    url = chrome[1]["converted_people_url"]
    assert "funnel_step_breakdown=Chrome" in url  # as PostHog writes it
    quoted = url.replace("funnel_step_breakdown=Chrome", "funnel_step_breakdown=%22Chrome%22")
    assert _url_people(client, world, quoted) == {"ann", "ben"}


@pytest.mark.parametrize(
    ("request_kind", "attr"),
    [("url", "funnel_step_breakdown"), ("actors", "funnel_step_breakdown")],
)
def test_a_value_the_funnel_does_not_show_is_a_400(client, world, stored, request_kind, attr):
    if request_kind == "url":
        [chrome, *_] = _funnel(client, world, {"breakdown": "$browser"})
        url = chrome[1]["converted_people_url"].replace("funnel_step_breakdown=Chrome", "funnel_step_breakdown=Opera")
        response = client.get(url, headers=world.headers())
    else:
        response = _actors(client, world, {"breakdown": "$browser"}, 2, "Opera")
    assert response.status_code == 400
    body = response.json()
    assert body["attr"] == attr and body["type"] == "validation_error"
    assert "Opera" in body["detail"] and "Chrome" in body["detail"]


@pytest.mark.parametrize(
    ("change", "attr"),
    [
        ({"funnelStep": 0}, "funnel_step"),
        ({"funnelStep": -1}, "funnel_step"),
        ({"funnelStep": 4}, "funnel_step"),
        ({"funnelStep": "2"}, "query__source__funnelStep"),
        # an InsightActorsQuery serves trends, stickiness, lifecycle and paths; a funnel's is FunnelsActorsQuery
        ({"kind": "InsightActorsQuery"}, "query__source__source__kind"),
        ({"kind": "PersonsQuery"}, "query__source__kind"),
        ({"funnelTrendsDropOff": True}, "query__source__funnelTrendsDropOff"),
        ({"funnelCustomSteps": [1]}, "query__source__funnelCustomSteps"),
    ],
)
def test_actors_query_rejects_what_it_cannot_answer(client, world, stored, change, attr):
    source = {"kind": "FunnelsQuery", "series": [{"kind": "EventsNode", "event": s["id"]} for s in STEPS]}
    node = {"kind": "FunnelsActorsQuery", "source": source, "funnelStep": 2, **change}
    body = {"query": {"kind": "ActorsQuery", "source": node}}
    response = client.post(QUERY.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 400, response.json()
    assert response.json()["attr"] == attr


def test_the_everyone_cohort_is_also_named_0_as_in_posthog(client, world, stored):
    fields = {"breakdown": [stored, "all"], "breakdown_type": "cohort"}
    response = _actors(client, world, fields, -2, 0)
    assert response.status_code == 200, response.json()
    assert _names(row[0] for row in response.json()["results"]) == EVERYONE[0] - EVERYONE[1]


def test_actors_of_a_group_funnel_are_its_groups(client, world, conn):
    from tests.backend.queries.funnels.test_funnel_breakdowns import set_groups

    # acme: u1 views and u2 signs up -> acme reaches step 2 as a company; globex: u3 only views
    add_events(
        conn,
        world.project_id,
        [("$pageview", "u1", "2026-01-10T10:00:00Z"), ("signup", "u2", "2026-01-10T10:30:00Z"),
         ("$pageview", "u3", "2026-01-10T11:00:00Z")],
    )  # fmt: skip
    set_groups(conn, world.project_id, {"u1": "acme", "u2": "acme", "u3": "globex"})
    source = {
        "kind": "FunnelsQuery",
        "series": [{"kind": "EventsNode", "event": s["id"]} for s in STEPS[:2]],
        "dateRange": RANGE,
        "aggregation_group_type_index": 0,
    }
    for funnel_step, keys in ((1, ["acme", "globex"]), (2, ["acme"]), (-2, ["globex"])):
        node = {"kind": "FunnelsActorsQuery", "source": source, "funnelStep": funnel_step}
        body = {"query": {"kind": "ActorsQuery", "source": node}}
        response = client.post(QUERY.format(pid=world.project_id), json=body, headers=world.headers())
        assert response.status_code == 200, response.json()
        assert [row[0]["group_key"] for row in response.json()["results"]] == keys


def test_actors_need_the_scope_people_lists_need(client, world, stored):
    funnel = {"kind": "FunnelsQuery", "series": [{"kind": "EventsNode", "event": s["id"]} for s in STEPS]}
    actors = {"kind": "ActorsQuery", "source": {"kind": "FunnelsActorsQuery", "source": funnel, "funnelStep": 1}}
    headers = world.headers(world.make_key("query:read"))
    url = QUERY.format(pid=world.project_id)
    assert client.post(url, json={"query": actors}, headers=headers).status_code == 403
    assert client.post(url, json={"query": funnel}, headers=headers).status_code == 200


def test_conversion_over_time_by_cohort_names_each_line_by_its_cohort(client, world, stored):
    from toolkit.frames import funnel_trends_frame

    # entrants per day and who of them made all three steps: in the cohort ann (10th, yes), dan (11th, no),
    # fay (12th, yes); everyone adds ben (10th, no), cat (11th, no), eve (12th, no)
    fields = {"breakdown": [stored, "all"], "breakdown_type": "cohort", "funnel_viz_type": "trends"}
    body = {"insight": "FUNNELS", "events": STEPS, **RANGE, **fields}
    response = client.post(FUNNEL.format(pid=world.project_id), json=body, headers=world.headers()).json()
    items = {item["breakdown_value"]: item for item in response["result"]}
    assert set(items) == {stored, "all"}
    assert items[stored]["breakdown"] == "Chosen"
    assert items[stored]["data"][5:8] == [100.0, 0.0, 100.0]
    assert items["all"]["data"][5:8] == [50.0, 0.0, 50.0]
    frame = funnel_trends_frame(response)
    assert frame.attrs["breakdown_labels"] == {str(stored): "Chosen", "all": items["all"]["breakdown"]}
