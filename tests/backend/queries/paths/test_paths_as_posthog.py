"""Paths as PostHog computes them, on hand-written events with hand-worked edges (clock: 2026-01-15 12:00 UTC).

Each test mirrors one of PostHog's paths runner cases (named in its docstring) with its own events; every
expected edge is worked out by hand from the rules in :mod:`local_backend.queries.paths.engine`.
"""

from __future__ import annotations

import pytest

from local_backend.errors import APIError
from local_backend.queries.filter_parsing import parse_filter
from local_backend.queries.paths import PathFilter, compute_paths
from local_backend.store.projects import get_project, update_project
from tests.factories import add_events

MIN = 60_000  # one minute in ms
DAY = "2026-01-14"


def view(who: str, at: str, url: str) -> tuple:
    return ("$pageview", who, f"{DAY}T{at}Z", {"$current_url": url})


def screen(who: str, at: str, name: str) -> tuple:
    return ("$screen", who, f"{DAY}T{at}Z", {"$screen_name": name})


def custom(who: str, at: str, name: str) -> tuple:
    return (name, who, f"{DAY}T{at}Z")


def visits(who: str, urls: list[str], *, start: int = 0) -> list[tuple]:
    """One pageview a minute from 10:00 (plus ``start`` minutes)."""
    return [view(who, f"10:{start + minute:02d}:00", url) for minute, url in enumerate(urls)]


def edges(conn, project, clock, **filter) -> list[tuple[str, str, int, float]]:
    found = compute_paths(conn, project, parse_filter(PathFilter, filter), clock.now())
    return [(e.source, e.target, e.value, e.average_conversion_time) for e in found]


@pytest.fixture
def one_person_every_kind(conn, project):
    """PostHog: test_event_inclusion_exclusion_filters_across_single_person."""
    add_events(
        conn,
        project["id"],
        [
            view("p1", "10:00:00", "/1"),
            view("p1", "10:01:00", "/2"),
            view("p1", "10:03:00", "/3"),
            screen("p1", "10:04:00", "/screen1"),
            screen("p1", "10:05:00", "/screen2"),
            screen("p1", "10:07:00", "/screen3"),
            custom("p1", "10:08:00", "/custom1"),
            custom("p1", "10:09:00", "/custom2"),
            custom("p1", "10:11:00", "/custom3"),
        ],
    )


EVERY_KIND = [
    ("1_/1", "2_/2", 1, MIN),
    ("2_/2", "3_/3", 1, 2 * MIN),
    ("3_/3", "4_/screen1", 1, MIN),
    ("4_/screen1", "5_/screen2", 1, MIN),
    ("5_/screen2", "6_/screen3", 1, 2 * MIN),
    ("6_/screen3", "7_/custom1", 1, MIN),
    ("7_/custom1", "8_/custom2", 1, MIN),
    ("8_/custom2", "9_/custom3", 1, 2 * MIN),
]


@pytest.mark.parametrize("types", [None, []], ids=["absent", "empty"])
def test_without_event_types_every_event_is_an_item(conn, project, clock, one_person_every_kind, types):
    filter = {"step_limit": 10} if types is None else {"step_limit": 10, "include_event_types": types}
    assert edges(conn, project, clock, **filter) == EVERY_KIND


def test_event_types_and_exclusions_choose_the_items(conn, project, clock, one_person_every_kind):
    assert edges(conn, project, clock, step_limit=10, include_event_types=["$pageview", "$screen"]) == EVERY_KIND[:5]
    # /custom1 and /custom3 left out: /3 at 10:03 is followed by /custom2 at 10:09
    assert edges(
        conn,
        project,
        clock,
        step_limit=10,
        include_event_types=["$pageview", "custom_event"],
        exclude_events=["/custom1", "/custom3"],
    ) == [("1_/1", "2_/2", 1, MIN), ("2_/2", "3_/3", 1, 2 * MIN), ("3_/3", "4_/custom2", 1, 6 * MIN)]


def test_every_pageview_by_url_per_person(conn, project, clock):
    """PostHog: test_current_url_paths_and_logic (no event types; one person with two distinct ids)."""
    add_events(
        conn,
        project["id"],
        [
            ("$pageview", "old", "2026-01-01T03:21:34Z", {"$current_url": "/"}),  # before the -7d range
            ("$pageview", "old", "2026-01-01T03:22:34Z", {"$current_url": "/about"}),
            view("person_1", "03:21:34", "/"),
            view("person_1", "03:28:34", "/about"),
            view("person_2a", "03:21:34", "/"),
            view("person_2b", "03:28:34", "/pricing"),
            view("person_2a", "03:29:34", "/about"),
            view("person_3", "03:21:34", "/pricing"),
            view("person_3", "03:28:34", "/"),
            view("person_4", "03:21:34", "/"),
            view("person_4", "03:28:34", "/pricing"),
        ],
        same_person=[("person_2a", "person_2b")],
        persons={"person_1": {"email": "test@posthog.com"}},
    )
    assert edges(conn, project, clock) == [
        ("1_/", "2_/pricing", 2, 7 * MIN),  # person_2 and person_4, 7 minutes each
        ("1_/", "2_/about", 1, 7 * MIN),
        ("1_/pricing", "2_/", 1, 7 * MIN),
        ("2_/pricing", "3_/about", 1, MIN),
    ]
    # PostHog's default test-account filter leaves out person_1, the only one to go / -> /about
    internal = [{"key": "email", "value": "@posthog.com", "operator": "not_icontains", "type": "person"}]
    update_project(conn, project["id"], {"test_account_filters": internal}, now="2026-01-15T12:00:00Z")
    project = get_project(conn, project["id"])
    assert edges(conn, project, clock, filter_test_accounts=True) == [
        ("1_/", "2_/pricing", 2, 7 * MIN),
        ("1_/pricing", "2_/", 1, 7 * MIN),
        ("2_/pricing", "3_/about", 1, MIN),
    ]


def test_event_properties_in_property_groups(conn, project, clock):
    """PostHog: test_paths_properties_filter (an AND group of AND groups)."""
    chrome = {"$browser": "Chrome"}
    add_events(
        conn,
        project["id"],
        [
            ("$pageview", "person_1", f"{DAY}T10:00:00Z", {"$current_url": "/", **chrome}),
            ("$pageview", "person_1", f"{DAY}T10:01:00Z", {"$current_url": "/about", **chrome}),
            ("$pageview", "person_2", f"{DAY}T10:00:00Z", {"$current_url": "/", **chrome}),
            ("$pageview", "person_2", f"{DAY}T10:01:00Z", {"$current_url": "/pricing", **chrome}),
            ("$pageview", "person_2", f"{DAY}T10:02:00Z", {"$current_url": "/about", **chrome}),
            *visits("person_3", ["/pricing", "/"]),
            *visits("person_4", ["/", "/pricing"]),
        ],
    )
    is_chrome = {"key": "$browser", "operator": "exact", "type": "event", "value": ["Chrome"]}
    properties = {"type": "AND", "values": [{"type": "AND", "values": [is_chrome]}]}
    assert edges(conn, project, clock, properties=properties) == [
        ("1_/", "2_/about", 1, MIN),
        ("1_/", "2_/pricing", 1, MIN),
        ("2_/pricing", "3_/about", 1, MIN),
    ]


@pytest.mark.parametrize(
    "date_from, date_to",
    [("2026-01-22", None), ("2026-01-22", "2026-01-08"), ("-7d", "2026-01-01"), ("-7d", "2026-01-08")],
    ids=["in the future", "from after to", "to before the default from", "a day without events"],
)
def test_an_empty_range_has_no_paths(conn, project, clock, date_from, date_to):
    """PostHog: test_current_url_paths_and_logic, its date ranges (an empty answer, not an error)."""
    add_events(conn, project["id"], visits("p1", ["/", "/about"]))
    assert edges(conn, project, clock, date_from=date_from, date_to=date_to) == []


@pytest.fixture
def start_point_people(conn, project):
    """PostHog: test_paths_start; every person's pages one minute apart from 10:00."""
    add_events(
        conn,
        project["id"],
        [
            *visits("person_1", ["/", "/about/"]),
            *visits("person_2", ["/", "/pricing/", "/about"]),
            *visits("person_3", ["/pricing", "/", "/about/"]),
            *visits("person_4", ["/", "/pricing/"]),
            view("person_5a", "10:00:00", "/pricing"),
            view("person_5b", "10:01:00", "/about"),
            view("person_5a", "10:02:00", "/pricing/"),
            view("person_5b", "10:03:00", "/help"),
        ],
        same_person=[("person_5a", "person_5b")],
    )


@pytest.mark.parametrize("point", ["/pricing", "/pricing/"])
def test_start_point_with_or_without_a_trailing_slash(conn, project, clock, start_point_people, point):
    assert edges(conn, project, clock, start_point=point) == [
        ("1_/pricing", "2_/about", 2, MIN),  # person_2 and person_5
        ("1_/pricing", "2_/", 1, MIN),  # person_3
        ("2_/", "3_/about", 1, MIN),
        ("2_/about", "3_/pricing", 1, MIN),  # person_5 comes back to /pricing
        ("3_/pricing", "4_/help", 1, MIN),
    ]
    assert edges(conn, project, clock, start_point="/") == [
        ("1_/", "2_/about", 2, MIN),  # person_1, person_3 from its second page
        ("1_/", "2_/pricing", 2, MIN),
        ("2_/pricing", "3_/about", 1, MIN),
    ]


@pytest.mark.parametrize("point", ["/about", "/about/"])
def test_end_point_with_or_without_a_trailing_slash(conn, project, clock, point):
    """PostHog: test_end; five steps at most, the last ones before the end point."""
    add_events(
        conn,
        project["id"],
        [
            *visits("person_1", ["/1", "/2", "/3/", "/4/", "/5", "/about", "/after/"]),
            *visits("person_2", ["/5", "/about"]),
            *visits("person_3", ["/3/", "/4", "/about/", "/after"]),
        ],
    )
    assert edges(conn, project, clock, end_point=point) == [
        ("1_/2", "2_/3", 1, MIN),  # person_1: /1 /2 /3 /4 /5 /about keeps its last five
        ("1_/3", "2_/4", 1, MIN),
        ("1_/5", "2_/about", 1, MIN),
        ("2_/3", "3_/4", 1, MIN),
        ("2_/4", "3_/about", 1, MIN),
        ("3_/4", "4_/5", 1, MIN),
        ("4_/5", "5_/about", 1, MIN),
    ]


@pytest.fixture
def start_and_end_people(conn, project):
    """PostHog: test_start_and_end."""
    add_events(
        conn,
        project["id"],
        [
            *visits("person_1", ["/1", "/2", "/3", "/4", "/5", "/about", "/after"], start=1),
            *visits("person_2", ["/5", "/about"], start=1),
            *visits("person_3", ["/3", "/4", "/about", "/after"], start=1),
        ],
    )


def test_start_and_end_point(conn, project, clock, start_and_end_people):
    assert edges(conn, project, clock, start_point="/5", end_point="/about") == [("1_/5", "2_/about", 2, MIN)]


def test_a_long_path_between_start_and_end_keeps_the_end(conn, project, clock, start_and_end_people):
    # person_1 from /2 to /about: /2 /3 /4 /5 /about, five items over a limit of four: the first two and the
    # last two around "...", which stands at the time of /4 (10:04), the first item it hides
    assert edges(conn, project, clock, start_point="/2", end_point="/about", step_limit=4) == [
        ("1_/2", "2_/3", 1, MIN),
        ("2_/3", "3_...", 1, MIN),
        ("3_...", "4_/5", 1, MIN),
        ("4_/5", "5_/about", 1, MIN),
    ]
    # a limit of three keeps one item at each end: /2, "..." at /3's 10:03, /about at 10:06
    assert edges(conn, project, clock, start_point="/2", end_point="/about", step_limit=3) == [
        ("1_/2", "2_...", 1, MIN),
        ("2_...", "3_/about", 1, 3 * MIN),
    ]


def test_start_and_end_point_keep_fifty_edges_by_default(conn, project, clock):
    # 60 people each take their own middle page: 60 first steps and 60 second steps, all of weight 1; the 50
    # kept are first steps (1_/s sorts before 2_/m...), and the second steps are left out with the rest
    add_events(conn, project["id"], [event for i in range(60) for event in visits(f"p{i}", ["/s", f"/m{i:02d}", "/e"])])
    found = edges(conn, project, clock, start_point="/s", end_point="/e")
    assert len(found) == 50
    assert {source for source, *_ in found} == {"1_/s"}


def test_groupings_match_anywhere_in_an_item(conn, project, clock):
    """PostHog: test_wildcard_groups_across_people and test_event_exclusion_filters_with_wildcard_groups."""
    add_events(
        conn,
        project["id"],
        [
            *[view(who, "10:00:00", "/1") for who in ("p1", "p2", "p3")],
            view("p1", "10:01:00", "/2/bar/1/foo"),  # grouped, although it starts with /2
            view("p2", "10:01:00", "/bar/2/foo"),
            view("p3", "10:01:00", "/bar/33/foo"),
            *[view(who, "10:03:00", "/3") for who in ("p1", "p2", "p3")],
        ],
    )
    grouped = {"include_event_types": ["$pageview"], "step_limit": 4, "path_groupings": ["/bar/*/foo"]}
    assert edges(conn, project, clock, **grouped) == [
        ("1_/1", "2_/bar/*/foo", 3, MIN),
        ("2_/bar/*/foo", "3_/3", 3, 2 * MIN),
    ]
    # exclusions name items after grouping: the grouped pages go, /1 is followed by /3 two minutes later
    assert edges(conn, project, clock, **grouped, exclude_events=["/bar/*/foo"]) == [("1_/1", "2_/3", 3, 3 * MIN)]
    # a pattern is not an exclusion: without the grouping, no item is "/bar/*/foo" and all six edges stay
    ungrouped = {**grouped, "path_groupings": ["/xxx/invalid/*"], "exclude_events": ["/bar/*/foo"]}
    assert len(edges(conn, project, clock, **ungrouped)) == 6


def test_groupings_are_literal_and_the_earliest_ending_match_wins(conn, project, clock):
    """PostHog: test_wildcard_groups_evil_input."""
    evil = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
    add_events(
        conn,
        project["id"],
        [
            view("p1", "10:00:00", evil),
            view("p1", "10:01:00", "/2/bar/aaa"),
            view("p1", "10:03:00", "/3"),
            view("p2", "10:00:00", "/1"),
            view("p2", "10:01:00", "/2/3?q=1"),
            view("p2", "10:03:00", "/3?q=1"),
        ],
    )
    patterns = ["(a+)+", "[aaa|aaaa]+", "1.*", ".*", "/3?q=1", "/3*"]
    # no pattern is a regular expression; "/3*" ends its match in "/2/3?q=1" before "/3?q=1" does, so both of
    # p2's later pages are "/3*" and collapse into one item at 10:03
    assert edges(conn, project, clock, include_event_types=["$pageview"], path_groupings=patterns) == [
        ("1_/1", "2_/3*", 1, 3 * MIN),
        (f"1_{evil}", "2_/2/bar/aaa", 1, MIN),
        ("2_/2/bar/aaa", "3_/3*", 1, 2 * MIN),
    ]


def test_edges_nothing_leads_to_are_dropped_after_the_edge_limit(conn, project, clock):
    """PostHog: test_start_dropping_orphaned_edges."""
    add_events(
        conn,
        project["id"],
        [
            *[e for i in range(5) for e in visits(f"p{i}", ["/1", "/2", "/3", "/4", "/5", "/about", "/after"])],
            view("r2", "10:01:00", "/2"),
            view("r2", "10:01:30", "/a"),
            view("r2", "10:02:00", "/x"),
            view("r2", "10:03:00", "/about"),
            view("r3", "10:01:00", "/2"),
            view("r3", "10:01:30", "/b"),
            view("r3", "10:02:00", "/x"),
            view("r3", "10:03:00", "/about"),
        ],
    )
    # heaviest six: the four steps of the five p's, 3_/x -> 4_/about (2), 1_/2 -> 2_/a; the edge into 3_/x
    # (2_/a -> 3_/x) is not among them, so 3_/x -> 4_/about hangs in the air and is dropped
    assert edges(conn, project, clock, start_point="/2", edge_limit=6) == [
        ("1_/2", "2_/3", 5, MIN),
        ("2_/3", "3_/4", 5, MIN),
        ("3_/4", "4_/5", 5, MIN),
        ("4_/5", "5_/about", 5, MIN),
        ("1_/2", "2_/a", 1, 30_000.0),
    ]


def test_include_custom_events_adds_events_by_name(conn, project, clock):
    """PostHog's legacy ``include_custom_events``: events included by name, beside the event types."""
    add_events(
        conn,
        project["id"],
        [
            view("p1", "10:00:00", "/home"),
            custom("p1", "10:01:00", "potato"),
            custom("p1", "10:02:00", "tomato"),
            view("p1", "10:04:00", "/pricing"),
        ],
    )
    assert edges(conn, project, clock, include_event_types=["$pageview"], include_custom_events=["potato"]) == [
        ("1_/home", "2_potato", 1, MIN),
        ("2_potato", "3_/pricing", 1, 3 * MIN),
    ]
    assert edges(conn, project, clock, include_custom_events=["potato", "tomato"]) == [("1_potato", "2_tomato", 1, MIN)]


def test_include_custom_events_beside_every_custom_event_is_refused(conn, project, clock):
    with pytest.raises(APIError) as error:
        edges(conn, project, clock, include_event_types=["custom_event"], include_custom_events=["potato"])
    assert error.value.attr == "include_custom_events"
