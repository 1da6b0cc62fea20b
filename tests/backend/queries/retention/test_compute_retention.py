"""The retention package's entry points on hand-written events (clock: Thursday 2026-01-15 12:00 UTC).

Three daily cohorts (the 13th, 14th and 15th), ``$pageview`` as target and returning event, recurring:

* alice: 13th, 14th, 15th -> in every cohort, back every later day
* bob:   13th, 15th       -> in the 13th's and the 15th's cohorts, back on day 2 of the 13th's
* carol: 14th             -> in the 14th's cohort only
"""

from __future__ import annotations

import pytest

from local_backend.queries.retention import RetentionFilter, compute_retention, compute_retention_people
from tests.factories import add_events

THREE_DAYS = RetentionFilter(total_intervals=3, period="Day")


@pytest.fixture
def persons(conn, project) -> dict[str, int]:
    return add_events(
        conn,
        project["id"],
        [
            ("$pageview", "alice", "2026-01-13T09:00:00Z"),
            ("$pageview", "alice", "2026-01-14T09:00:00Z"),
            ("$pageview", "alice", "2026-01-15T09:00:00Z"),
            ("$pageview", "bob", "2026-01-13T18:00:00Z"),
            ("$pageview", "bob", "2026-01-15T08:00:00Z"),
            ("$pageview", "carol", "2026-01-14T23:59:59Z"),
            ("signup", "carol", "2026-01-15T10:00:00Z"),  # not the target event
        ],
    )


def test_retention_table(conn, project, clock, persons):
    rows = compute_retention(conn, project, THREE_DAYS, clock.now(), lambda params: "")
    assert [[cell["count"] for cell in row["values"]] for row in rows] == [[2, 1, 2], [2, 1], [2]]
    assert [row["date"] for row in rows] == ["2026-01-13T00:00:00Z", "2026-01-14T00:00:00Z", "2026-01-15T00:00:00Z"]
    assert [row["label"] for row in rows] == ["Day 0", "Day 1", "Day 2"]


def test_each_cell_links_through_the_given_link(conn, project, clock, persons):
    rows = compute_retention(
        conn,
        project,
        THREE_DAYS,
        clock.now(),
        lambda params: f"{params['selected_interval']}/{params.get('selected_offset')}",
    )
    assert rows[1]["people_url"] == "1/None"
    assert [cell["people_url"] for cell in rows[0]["values"]] == ["0/0", "0/1", "0/2"]


def test_people_of_a_cohort_most_faithful_first(conn, project, clock, persons):
    cohort = compute_retention_people(conn, project, THREE_DAYS, clock.now(), 0, None)
    assert cohort == [(persons["alice"], [1, 1, 1]), (persons["bob"], [1, 0, 1])]
    back_next_day = compute_retention_people(conn, project, THREE_DAYS, clock.now(), 1, 1)
    assert back_next_day == [(persons["alice"], [1, 1])]
