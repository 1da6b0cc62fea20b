"""The per-person passes of paths and retention, on hand-written sequences with hand-worked answers."""

from __future__ import annotations

import pytest

from local_backend.queries.paths.engine import PathOptions, compile_groupings, compute_path_edges, group_path_item
from local_backend.queries.retention.engine import FIRST_TIME, RECURRING, PersonActivity, compute_retention_counts

MIN = 60_000  # one minute in ms


def edges(persons, **options):
    return [
        (e.source, e.target, e.value, e.average_conversion_time)
        for e in compute_path_edges(persons, PathOptions(**options))
    ]


def test_edges_count_transitions_and_average_their_times():
    alice = [(0, "/"), (1 * MIN, "/pricing"), (3 * MIN, "/signup")]
    bob = [(0, "/"), (3 * MIN, "/pricing")]
    # 1_/ -> 2_/pricing: alice 1 min, bob 3 min -> 2 transitions, average 2 min
    # 2_/pricing -> 3_/signup: alice only, 2 min
    assert edges([alice, bob]) == [
        ("1_/", "2_/pricing", 2, 2 * MIN),
        ("2_/pricing", "3_/signup", 1, 2 * MIN),
    ]


def test_thirty_minutes_of_silence_starts_a_new_session():
    carol = [(0, "/"), (29 * MIN, "/docs"), (59 * MIN, "/"), (60 * MIN, "/blog")]
    # 29 min gap stays in the session; the next gap is exactly 30 min, so /, /blog is a second session
    assert edges([carol]) == [("1_/", "2_/blog", 1, MIN), ("1_/", "2_/docs", 1, 29 * MIN)]


def test_repeats_collapse_and_the_last_of_a_run_keeps_its_time():
    dave = [(0, "/"), (1 * MIN, "/"), (5 * MIN, "/pricing")]
    # "/" at 0 and 1 min collapse into the one at 1 min: the step takes 4 minutes
    assert edges([dave]) == [("1_/", "2_/pricing", 1, 4 * MIN)]


def test_step_limit_keeps_the_first_items():
    path = [(i * MIN, f"/{i}") for i in range(6)]
    assert [e[:2] for e in edges([path], step_limit=3)] == [("1_/0", "2_/1"), ("2_/1", "3_/2")]


def test_start_point_begins_at_its_first_occurrence_and_drops_sessions_without_it():
    with_start = [(0, "/"), (MIN, "/pricing"), (2 * MIN, "/signup"), (3 * MIN, "/pricing")]
    without = [(0, "/"), (MIN, "/docs")]
    assert [e[:3] for e in edges([with_start, without], start_point="/pricing")] == [
        ("1_/pricing", "2_/signup", 1),
        ("2_/signup", "3_/pricing", 1),
    ]


def test_end_point_keeps_the_last_items_before_it():
    path = [(i * MIN, f"/{i}") for i in range(5)] + [(10 * MIN, "/end"), (11 * MIN, "/after")]
    # up to /end: /0 /1 /2 /3 /4 /end -> the last three are /3 /4 /end
    assert [e[:2] for e in edges([path], end_point="/end", step_limit=3)] == [("1_/3", "2_/4"), ("2_/4", "3_/end")]


def test_start_and_end_point_together():
    path = [(0, "/a"), (MIN, "/start"), (2 * MIN, "/end"), (3 * MIN, "/start"), (4 * MIN, "/x")]
    assert [e[:2] for e in edges([path], start_point="/start", end_point="/end")] == [("1_/start", "2_/end")]


def test_edge_weights_and_limit():
    many = [[(0, "/"), (MIN, "/a")]] * 3 + [[(0, "/"), (MIN, "/b")]] * 2 + [[(0, "/"), (MIN, "/c")]]
    assert [e[1] for e in edges(many)] == ["2_/a", "2_/b", "2_/c"]
    assert [e[1] for e in edges(many, min_edge_weight=2)] == ["2_/a", "2_/b"]
    assert [e[1] for e in edges(many, max_edge_weight=2)] == ["2_/b", "2_/c"]
    assert [e[1] for e in edges(many, edge_limit=1)] == ["2_/a"]


@pytest.mark.parametrize(
    "item, grouped",
    [("/product/42", "/product/*"), ("/product/", "/product/*"), ("/products", "/products"), ("/a.b", "/a.b")],
)
def test_path_groupings_use_wildcards_literally_otherwise(item, grouped):
    assert group_path_item(item, compile_groupings(["/product/*", "/a?b"])) == grouped


def test_recurring_retention_counts_every_cohort_a_person_belongs_to():
    people = [
        # did the target in periods 0 and 2, came back in 1, 2 and 3
        PersonActivity(1, target={0, 2}, returning={1, 2, 3}),
        # target in 0, back in 3
        PersonActivity(2, target={0}, returning={3}),
        # target in 1, never back
        PersonActivity(3, target={1}, returning=set()),
    ]
    counts, members = compute_retention_counts(people, periods=4, retention_type=RECURRING)
    # cohort 0 = {1, 2}: back in 1 -> {1}; in 2 -> {1}; in 3 -> {1, 2}
    # cohort 1 = {3}: nobody back
    # cohort 2 = {1}: back in 3 -> {1}
    assert counts == [[2, 1, 1, 2], [1, 0, 0], [1, 1], [0]]
    assert members[0][3] == [1, 2]


def test_first_time_retention_counts_only_the_first_cohort():
    people = [
        PersonActivity(1, target={0, 2}, returning={1, 2, 3}, first=0),
        PersonActivity(2, target={1}, returning={2}, first=None),  # first target before the range
    ]
    counts, _ = compute_retention_counts(people, periods=4, retention_type=FIRST_TIME)
    assert counts == [[1, 1, 1, 1], [0, 0, 0], [0, 0], [0]]
