"""`create_project`, `cohorts`, `create_cohort` and `actions`: the requests they send (a fake session, as PostHog
would be asked) and what the local backend makes of them (in the test process, on the events of
`tests.toolkit.engagement_events`)."""

from __future__ import annotations

import pandas as pd
import pytest

from toolkit import Client, ValidationError
from toolkit.cohorts import COHORT_COLUMNS
from toolkit.frames import PROJECT_COLUMNS, persons_frame

from .engagement_events import RANGE

ANN, BOB = "0190e1c2-0000-7000-8000-00000000a001", "0190e1c2-0000-7000-8000-00000000b002"
COHORT = {"id": 7, "name": "Viewers", "description": "", "is_static": True, "count": None, "filters": {},
          "deleted": False, "created_at": "2026-01-15T12:00:00Z", "last_calculation": None}  # fmt: skip


def test_a_cohort_from_a_people_frame_is_created_then_filled_by_uuid(client, fake):
    fake.routes[("POST", "/api/projects/1/cohorts/")] = (201, COHORT)
    fake.routes[("PATCH", "/api/projects/1/cohorts/7/add_persons_to_static_cohort/")] = (200, None)
    fake.routes[("GET", "/api/projects/1/cohorts/7/")] = (200, {**COHORT, "count": 2})
    people = persons_frame([{"uuid": ANN, "distinct_ids": ["ann"]}, {"uuid": BOB, "distinct_ids": ["bob"]},
                            {"uuid": ANN, "distinct_ids": ["ann"]}])  # fmt: skip
    made = client.create_cohort(" Viewers ", people, description="Saw the 6th")
    assert [(call.method, call.path) for call in fake.calls] == [
        ("POST", "/api/projects/1/cohorts/"),
        ("PATCH", "/api/projects/1/cohorts/7/add_persons_to_static_cohort/"),
        ("GET", "/api/projects/1/cohorts/7/"),
    ]
    assert fake.calls[0].json == {"name": "Viewers", "is_static": True, "description": "Saw the 6th"}
    assert fake.calls[1].json == {"person_ids": [ANN, BOB]}  # each person once, in the frame's order
    assert list(made.columns) == list(COHORT_COLUMNS)
    assert (int(made.loc[0, "id"]), int(made.loc[0, "count"]), bool(made.loc[0, "is_static"])) == (7, 2, True)


def test_a_cohort_from_distinct_ids_is_one_upload_of_a_csv_file(client, fake):
    fake.routes[("POST", "/api/projects/1/cohorts/")] = (201, {**COHORT, "count": 2})
    made = client.create_cohort("Beta", pd.Series(["u,1", "u2", None, "u2"]), id_kind="distinct_id")
    (call,) = fake.calls
    assert call.data == {"name": "Beta", "is_static": "true"}
    name, content, mime = call.files["csv"]
    # one id a line, no header (read as distinct ids by both servers); the comma is quoted
    assert (name, content, mime) == ("people.csv", b'"u,1"\nu2\n', "text/csv")
    assert made.loc[0, "count"] == 2


def test_an_empty_list_makes_an_empty_static_cohort_in_one_request(client, fake):
    fake.routes[("POST", "/api/projects/1/cohorts/")] = (201, {**COHORT, "count": 0})
    assert client.create_cohort("Nobody yet", []).loc[0, "count"] == 0
    assert [call.method for call in fake.calls] == ["POST"]


@pytest.mark.parametrize(
    "name, people, kind, error",
    [("  ", [ANN], "person_id", ValueError), ("x", ANN, "person_id", TypeError), ("x", 3, "person_id", TypeError),
     ("x", pd.DataFrame({"uuid": [ANN]}), "person_id", ValueError), ("x", [ANN], "email", ValueError)],
)  # fmt: skip
def test_bad_arguments_send_nothing(client, fake, name, people, kind, error):
    with pytest.raises(error):
        client.create_cohort(name, people, id_kind=kind)
    assert fake.calls == []


def test_cohorts_list_asks_with_the_search_and_types_the_columns(client, fake):
    fake.routes[("GET", "/api/projects/1/cohorts/")] = (200, {"results": [{**COHORT, "count": 3}], "next": None})
    frame = client.cohorts(search="View")
    assert fake.calls[0].params == {"search": "View", "limit": "100"}
    assert list(frame.columns) == list(COHORT_COLUMNS)
    assert str(frame["count"].dtype) == "Int64" and str(frame["created_at"].dtype) == "datetime64[ns, UTC]"


def test_create_project_posts_its_name_and_time_zone(client, fake):
    fake.routes[("POST", "/api/projects/")] = (201, {"id": 9, "name": "Lab", "timezone": "Europe/Paris"})
    made = client.create_project("Lab", timezone="Europe/Paris")
    assert fake.calls[0].json == {"name": "Lab", "timezone": "Europe/Paris"}
    assert list(made.columns) == list(PROJECT_COLUMNS)
    assert (int(made.loc[0, "id"]), made.loc[0, "timezone"]) == (9, "Europe/Paris")
    with pytest.raises(ValueError):
        client.create_project(" ")


# the local backend ---------------------------------------------------------------------------------------------


def _members(analyst: Client, cohort_id: int) -> list[str]:
    records = analyst.paginate(analyst.project_path(f"cohorts/{cohort_id}/persons/"))
    return sorted(ids[0] for ids in persons_frame(records)["distinct_ids"])


def test_the_people_of_a_trend_point_become_a_cohort_of_exactly_them(engagement_client):
    analyst = engagement_client
    frame = analyst.trend(events="view", **RANGE)
    # 6 January: ann at 10:00, bob at 11:00 and 15:00; a cohort of its people holds those two
    people = analyst.people(frame.loc[1])
    made = analyst.create_cohort("Viewed on the 6th", people)
    assert (made.loc[0, "name"], made.loc[0, "count"], bool(made.loc[0, "is_static"])) == ("Viewed on the 6th", 2, True)
    assert _members(analyst, int(made.loc[0, "id"])) == ["ann", "bob"]
    listed = analyst.cohorts()
    assert listed.loc[listed["id"] == made.loc[0, "id"], "count"].tolist() == [2]


def test_a_cohort_of_distinct_ids_leaves_out_the_unknown_ones(engagement_client):
    made = engagement_client.create_cohort("Two", ["cy", "nobody", "dee"], id_kind="distinct_id")
    # cy and dee are persons of the project; "nobody" names no one
    assert made.loc[0, "count"] == 2
    assert _members(engagement_client, int(made.loc[0, "id"])) == ["cy", "dee"]


def test_an_unknown_person_uuid_is_refused_and_reported(engagement_client):
    with pytest.raises(ValidationError) as caught:
        engagement_client.create_cohort("Ghosts", ["0190e1c2-0000-7000-8000-00000000dead"])
    assert caught.value.attr == "person_ids"
    assert "Ghosts" not in engagement_client.cohorts()["name"].tolist()  # the empty cohort was taken back


def test_a_created_project_is_listed_and_starts_empty(engagement_client):
    made = engagement_client.create_project("Playground", timezone="Europe/Paris")
    new_id = int(made.loc[0, "id"])
    assert engagement_client.projects().set_index("id").loc[new_id, "timezone"] == "Europe/Paris"
    other = Client(base_url=engagement_client.base_url, api_key=engagement_client.settings.api_key,
                   project_id=new_id, session=engagement_client.session)  # fmt: skip
    assert other.cohorts().empty and other.actions().empty
