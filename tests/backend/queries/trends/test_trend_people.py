"""The people behind every point of a trend: each series' ``persons_urls`` lists exactly the actors its point counts.

Hand-written events, 12-14 January 2026 (UTC; the clock is Thursday the 15th, 12:00), all ``e`` unless said:

=====  ==========================================================================================
ann    12th 09:00 (Chrome, amount 10, group org1), 13th 09:00 (Chrome, amount "x", group org1)
ben    12th 10:00 (Safari, amount 5), 12th 11:00 (Safari), 14th 10:00 (no browser)
cat    14th 12:00 (Chrome, amount 7, group org2)
dan    6th 10:00 (Chrome): before the range, inside the 7 days that end on the 12th
fay    10th 10:00: in the previous period of a comparison (9th-11th)
eve    13th: another event only
=====  ==========================================================================================

Worked out from the rules: persons with an event each day (dau, and total's people): 12th {ann, ben}, 13th {ann},
14th {ben, cat}; weekly actives (the 7 days ending with the point): 12th {dan, fay, ann, ben}, 13th {fay, ann,
ben} (dan's 6th is out), 14th {fay, ann, ben, cat}; monthly: everyone so far (cat from the 14th); sum of
amount: only events whose amount is a number count, so 12th {ann, ben}, 13th nobody (ann's "x"), 14th {cat};
groups: 12th {org1}, 13th {org1}, 14th {org2}.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.factories import add_events

TREND = "/api/projects/{pid}/insights/trend/"
PEOPLE = "/api/projects/{pid}/persons/trends/"
RANGE = {"date_from": "2026-01-12", "date_to": "2026-01-14"}

EVENTS = [
    ("e", "ann", "2026-01-12T09:00:00Z", {"$browser": "Chrome", "amount": 10}),
    ("e", "ann", "2026-01-13T09:00:00Z", {"$browser": "Chrome", "amount": "x"}),
    ("e", "ben", "2026-01-12T10:00:00Z", {"$browser": "Safari", "amount": 5}),
    ("e", "ben", "2026-01-12T11:00:00Z", {"$browser": "Safari"}),
    ("e", "ben", "2026-01-14T10:00:00Z"),
    ("e", "cat", "2026-01-14T12:00:00Z", {"$browser": "Chrome", "amount": 7}),
    ("e", "dan", "2026-01-06T10:00:00Z", {"$browser": "Chrome"}),
    ("e", "fay", "2026-01-10T10:00:00Z"),
    ("other", "eve", "2026-01-13T10:00:00Z"),
]


WEEK_14 = {"fay", "ann", "ben", "cat"}
MONTH_12 = {"dan", "fay", "ann", "ben"}


@pytest.fixture
def stored(conn, world):
    ids = add_events(conn, world.project_id, EVENTS)
    conn.execute(
        "UPDATE events SET group_0 = CASE distinct_id WHEN 'ann' THEN 'org1' WHEN 'cat' THEN 'org2' ELSE '' END"
    )
    conn.commit()
    return ids


def _trend(client, world, **fields: Any) -> list[dict[str, Any]]:
    body = {"events": [{"id": "e"}], **RANGE, **fields}
    response = client.post(TREND.format(pid=world.project_id), json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    return response.json()["result"]


def _follow(client, world, url: str) -> list[Any]:
    response = client.get(url, headers=world.headers())
    assert response.status_code == 200, response.json()
    [page] = response.json()["results"]
    assert response.json()["count"] == page["count"] == len(page["people"])
    return page["people"]


def _names(people: list[dict[str, Any]]) -> set[str]:
    return {distinct_id for person in people for distinct_id in person["distinct_ids"]}


def _point_people(client, world, series: dict[str, Any]) -> list[set[str]]:
    assert len(series["persons_urls"]) == len(series["days"])
    return [_names(_follow(client, world, link["url"])) for link in series["persons_urls"]]


@pytest.mark.parametrize(
    ("entity", "people", "data"),
    [
        ({"id": "e", "math": "dau"}, [{"ann", "ben"}, {"ann"}, {"ben", "cat"}], [2, 1, 2]),
        ({"id": "e"}, [{"ann", "ben"}, {"ann"}, {"ben", "cat"}], [3, 1, 2]),  # total counts events
        (
            {"id": "e", "math": "weekly_active"},
            [{"dan", "fay", "ann", "ben"}, {"fay", "ann", "ben"}, WEEK_14],
            [4, 3, 4],
        ),
        ({"id": "e", "math": "monthly_active"}, [MONTH_12, MONTH_12, MONTH_12 | {"cat"}], [4, 4, 5]),
        ({"id": "e", "math": "sum", "math_property": "amount"}, [{"ann", "ben"}, set(), {"cat"}], [15, 0, 7]),
    ],
)
def test_each_math_lists_the_actors_its_points_count(client, world, stored, entity, people, data):
    [series] = _trend(client, world, events=[entity])
    assert series["data"] == data
    assert _point_people(client, world, series) == people


def test_unique_group_lists_the_groups(client, world, stored):
    [series] = _trend(client, world, events=[{"id": "e", "math": "unique_group", "math_group_type_index": 0}])
    assert series["data"] == [1, 1, 1]
    keys = [{group["group_key"] for group in _follow(client, world, link["url"])} for link in series["persons_urls"]]
    assert keys == [{"org1"}, {"org1"}, {"org2"}]


def test_cumulative_points_start_where_the_range_starts(client, world, stored):
    [series] = _trend(client, world, events=[{"id": "e", "math": "dau"}], display="ActionsLineGraphCumulative")
    assert series["data"] == [2, 2, 3]  # each person counted once, at their first day
    assert _point_people(client, world, series) == [{"ann", "ben"}, {"ann", "ben"}, {"ann", "ben", "cat"}]


def test_breakdown_values_null_and_other(client, world, stored):
    # $browser by events in the range: Chrome 3 (ann 2, cat 1), Safari 2 (ben), none 1 (ben's 14th)
    result = _trend(client, world, events=[{"id": "e", "math": "dau"}], breakdown="$browser")
    people = {series["breakdown_value"]: _point_people(client, world, series) for series in result}
    assert people == {
        "Chrome": [{"ann"}, {"ann"}, {"cat"}],
        "Safari": [{"ben"}, set(), set()],
        "$$_posthog_breakdown_null_$$": [set(), set(), {"ben"}],
    }
    # one value shown: Chrome; Safari and the null bucket are Other
    result = _trend(client, world, events=[{"id": "e", "math": "dau"}], breakdown="$browser", breakdown_limit=1)
    people = {series["breakdown_value"]: _point_people(client, world, series) for series in result}
    assert people == {"Chrome": [{"ann"}, {"ann"}, {"cat"}], "$$_posthog_breakdown_other_$$": [{"ben"}, set(), {"ben"}]}


def test_cohort_breakdown(client, world, stored, conn):
    conn.execute(
        "INSERT INTO cohorts (project_id, name, is_static, created_at, updated_at) VALUES (?, 'Chosen', 1, '', '')",
        (world.project_id,),
    )
    cohort = conn.execute("SELECT id FROM cohorts WHERE name = 'Chosen'").fetchone()[0]
    conn.executemany("INSERT INTO cohort_people VALUES (?, ?)", [(cohort, stored[n]) for n in ("ann", "cat")])
    conn.commit()
    result = _trend(
        client, world, events=[{"id": "e", "math": "dau"}], breakdown=[cohort, "all"], breakdown_type="cohort"
    )
    people = {series["breakdown_value"]: _point_people(client, world, series) for series in result}
    assert people == {cohort: [{"ann"}, {"ann"}, {"cat"}], "all": [{"ann", "ben"}, {"ann"}, {"ben", "cat"}]}


def test_the_previous_period_lists_its_own_people(client, world, stored):
    # 12th-14th compared with 9th-11th: fay on the 10th
    current, previous = _trend(client, world, events=[{"id": "e", "math": "dau"}], compare=True)
    assert previous["compare_label"] == "previous" and previous["data"] == [0, 1, 0]
    assert _point_people(client, world, previous) == [set(), {"fay"}, set()]
    assert _point_people(client, world, current) == [{"ann", "ben"}, {"ann"}, {"ben", "cat"}]


def test_an_aggregated_display_links_its_one_value(client, world, stored):
    [series] = _trend(client, world, events=[{"id": "e", "math": "dau"}], display="ActionsTable")
    assert series["aggregated_value"] == 3
    assert _names(_follow(client, world, series["persons"]["url"])) == {"ann", "ben", "cat"}


def test_the_link_names_the_point_as_posthog_does(client, world, stored):
    [series] = _trend(client, world, events=[{"id": "e", "math": "dau"}])
    link = series["persons_urls"][1]
    query = parse_qs(urlsplit(link["url"]).query)
    assert urlsplit(link["url"]).path == PEOPLE.format(pid=world.project_id)
    assert (query["entity_id"], query["entity_type"], query["entity_math"]) == (["e"], ["events"], ["dau"])
    assert (query["date_from"], query["date_to"]) == (["2026-01-13T00:00:00"], ["2026-01-13T23:59:59.999999"])
    assert link["filter"]["date_from"] == "2026-01-13T00:00:00"
    assert json.loads(query["events"][0])[0]["id"] == "e"


def test_a_value_not_on_the_chart_is_a_400_naming_it(client, world, stored):
    [series, *_] = _trend(client, world, events=[{"id": "e", "math": "dau"}], breakdown="$browser")
    url = series["persons_urls"][0]["url"].replace("breakdown_value=Chrome", "breakdown_value=Opera")
    response = client.get(url, headers=world.headers())
    assert response.status_code == 400 and response.json()["attr"] == "breakdown_value"
    url = series["persons_urls"][0]["url"].replace("entity_order=0", "entity_order=3")
    response = client.get(url, headers=world.headers())
    assert response.status_code == 400 and response.json()["attr"] == "entity_order"


# 13 January by hour: ann 10:00 and 10:10 in session s1 (group org1), ben 10:30 in s2 and 10:40 without a
# session, cat 11:15 without a session (group org2). Sessions on the 13th: s1 (600 s), s2 (0 s); their persons
# are ann and ben, cat's event has no session.
HOURS = [
    ("e", "ann", "2026-01-13T10:00:00Z", {"$session_id": "s1"}),
    ("e", "ann", "2026-01-13T10:10:00Z", {"$session_id": "s1"}),
    ("e", "ben", "2026-01-13T10:30:00Z", {"$session_id": "s2"}),
    ("e", "ben", "2026-01-13T10:40:00Z"),
    ("e", "cat", "2026-01-13T11:15:00Z"),
]
ONE_DAY = {"date_from": "2026-01-13", "date_to": "2026-01-13"}


@pytest.fixture
def hours(conn, world):
    add_events(conn, world.project_id, HOURS)
    conn.execute(
        "UPDATE events SET group_0 = CASE distinct_id WHEN 'ann' THEN 'org1' WHEN 'cat' THEN 'org2' ELSE '' END"
    )
    conn.commit()


@pytest.mark.parametrize(
    ("entity", "data"),
    [
        ({"id": "e", "math": "unique_session"}, [2]),  # s1 and s2: the sessions' persons are ann and ben
        ({"id": "e", "math": "avg", "math_property": "$session_duration"}, [300.0]),  # (600 + 0) / 2
    ],
)
def test_session_maths_list_the_persons_of_the_sessions(client, world, hours, entity, data):
    [series] = _trend(client, world, events=[entity], **ONE_DAY)
    assert series["data"] == data
    assert _point_people(client, world, series) == [{"ann", "ben"}]


def test_aggregation_by_groups_lists_the_groups(client, world, hours):
    [series] = _trend(client, world, events=[{"id": "e", "math": "dau"}], aggregation_group_type_index=0, **ONE_DAY)
    assert series["data"] == [2]  # org1 (ann) and org2 (cat); ben's events have no group
    [link] = series["persons_urls"]
    assert {group["group_key"] for group in _follow(client, world, link["url"])} == {"org1", "org2"}


def test_hourly_points(client, world, hours):
    [series] = _trend(
        client, world, events=[{"id": "e", "math": "dau"}], interval="hour",
        date_from="2026-01-13T09:00:00", date_to="2026-01-13T11:59:59",
    )  # fmt: skip
    # an absolute hourly date_to is kept as given (11:00:00 would leave out cat's 11:15)
    assert series["data"] == [0, 2, 1]  # 09:00 nobody, 10:00 ann and ben, 11:00 cat
    assert _point_people(client, world, series) == [set(), {"ann", "ben"}, {"cat"}]


def test_weekly_actives_of_week_buckets(client, world, conn):
    # Sunday weeks 4-10 and 11-17 January: ann on the 5th, ben on the 12th, cat on the 3rd (before the first week)
    add_events(
        conn,
        world.project_id,
        [
            ("e", "ann", "2026-01-05T10:00:00Z"),
            ("e", "ben", "2026-01-12T10:00:00Z"),
            ("e", "cat", "2026-01-03T10:00:00Z"),
        ],
    )
    [series] = _trend(
        client, world, events=[{"id": "e", "math": "weekly_active"}], interval="week",
        date_from="2026-01-04", date_to="2026-01-17",
    )  # fmt: skip
    assert series["data"] == [1, 1]
    assert _point_people(client, world, series) == [{"ann"}, {"ben"}]


def test_points_follow_the_project_timezone(client, world, conn):
    # the other project is in Europe/Berlin (UTC+1): 22:30Z on the 12th is the 12th there, 23:30Z the 13th
    add_events(
        conn, world.other_project_id, [("e", "ann", "2026-01-12T22:30:00Z"), ("e", "ben", "2026-01-12T23:30:00Z")]
    )
    body = {"events": [{"id": "e", "math": "dau"}], "date_from": "2026-01-12", "date_to": "2026-01-13"}
    response = client.post(TREND.format(pid=world.other_project_id), json=body, headers=world.headers())
    [series] = response.json()["result"]
    assert series["data"] == [1, 1]
    assert series["persons_urls"][1]["filter"]["date_from"] == "2026-01-13T00:00:00"  # local midnight
    assert _point_people(client, world, series) == [{"ann"}, {"ben"}]


def test_a_later_page_of_breakdown_values_links_its_own_values(client, world, stored):
    # values by events: Chrome 3, Safari 2, none 1; one a page, the second page shows Safari, then Other (none)
    body = {"events": [{"id": "e", "math": "dau"}], **RANGE, "breakdown": "$browser", "breakdown_limit": 1}
    response = client.post(TREND.format(pid=world.project_id) + "?offset=1", json=body, headers=world.headers())
    result = response.json()["result"]
    assert all(link["filter"]["breakdown_offset"] == 1 for series in result for link in series["persons_urls"])
    people = {series["breakdown_value"]: _point_people(client, world, series) for series in result}
    assert people == {"Safari": [{"ben"}, set(), set()], "$$_posthog_breakdown_other_$$": [set(), set(), {"ben"}]}


def test_a_saved_insight_links_its_points_too(client, world, stored):
    base = f"/api/projects/{world.project_id}/insights/"
    filters = {"insight": "TRENDS", "events": [{"id": "e", "math": "dau"}], **RANGE}
    saved = client.post(base, json={"name": "Daily", "filters": filters}, headers=world.headers()).json()
    fresh = client.get(f"{base}{saved['id']}/?refresh=blocking", headers=world.headers()).json()
    [series] = fresh["result"]
    assert _point_people(client, world, series) == [{"ann", "ben"}, {"ann"}, {"ben", "cat"}]


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        ({"day": "2026-01-13"}, {"ann"}),
        ({"day": "2026-01-10", "compare": "previous"}, {"fay"}),  # the previous period is 9th-11th
        ({"day": "2026-01-14", "breakdown": "Chrome"}, {"cat"}),
    ],
)
def test_the_actors_query_names_a_day_a_period_and_a_value(client, world, stored, point, expected):
    source = {
        "kind": "TrendsQuery",
        "series": [{"kind": "EventsNode", "event": "e", "math": "dau"}],
        "dateRange": RANGE,
        "compareFilter": {"compare": True},
    }
    if "breakdown" in point:
        source = {**source, "breakdownFilter": {"breakdown": "$browser"}, "compareFilter": None}
    body = {"query": {"kind": "ActorsQuery", "source": {"kind": "InsightActorsQuery", "source": source, **point}}}
    response = client.post(f"/api/projects/{world.project_id}/query/", json=body, headers=world.headers())
    assert response.status_code == 200, response.json()
    assert {person["distinct_ids"][0] for [person] in response.json()["results"]} == expected


def test_the_actors_query_refuses_a_day_not_shown(client, world, stored):
    source = {"kind": "TrendsQuery", "series": [{"kind": "EventsNode", "event": "e"}], "dateRange": RANGE}
    node = {"kind": "InsightActorsQuery", "source": source, "day": "2026-01-20"}
    response = client.post(
        f"/api/projects/{world.project_id}/query/",
        json={"query": {"kind": "ActorsQuery", "source": node}},
        headers=world.headers(),
    )
    assert response.status_code == 400 and response.json()["attr"] == "query__source__day"


def test_an_all_events_series_links_without_an_entity_id(client, world, stored):
    # every event counts: eve's "other" on the 13th too
    [series] = _trend(client, world, events=[{"id": None, "math": "dau"}])
    assert "entity_id=" not in series["persons_urls"][0]["url"]
    assert _point_people(client, world, series) == [{"ann", "ben"}, {"ann", "eve"}, {"ben", "cat"}]
