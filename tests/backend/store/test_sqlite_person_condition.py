"""SQLite's person-property condition, tested once per person of the project, answers each event as the same
test read through the event's own person row would: 1, 0 or NULL, an event whose person row is gone included.

The persons (project timezone UTC)::

    ann    email ann@example.com    plan pro
    sam    email sam@staff.example  plan free
    nora   (no properties)
    ghost  plan pro, then its person row deleted: its events read no properties
"""

from __future__ import annotations

from typing import Any

import pytest

from local_backend.models.property_filters import Property
from local_backend.queries.properties import compare_json
from local_backend.store.engine.choice import event_store
from local_backend.store.engine.sqlite.dialect import DIALECT
from local_backend.store.projects import create_project
from tests.factories import add_events

PERSONS = {
    "ann": {"email": "ann@example.com", "plan": "pro"},
    "sam": {"email": "sam@staff.example", "plan": "free"},
    "ghost": {"plan": "pro"},
}
EVENTS = [
    ("$pageview", "ann", "2026-01-10T10:00:00Z"),
    ("$pageview", "sam", "2026-01-10T11:00:00Z"),
    ("$pageview", "nora", "2026-01-10T12:00:00Z"),
    ("$pageview", "ghost", "2026-01-10T13:00:00Z"),
    ("signup", "ann", "2026-01-10T15:00:00Z"),
]


@pytest.fixture
def project_id(conn) -> int:
    project = int(create_project(conn, name="Persons", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    people = add_events(conn, project, EVENTS, persons=PERSONS)
    conn.execute("DELETE FROM person_distinct_ids WHERE person_id = ?", (people["ghost"],))
    conn.execute("DELETE FROM persons WHERE id = ?", (people["ghost"],))
    conn.commit()
    event_store(conn)  # registers the SQL functions the conditions call
    return project


def _answers(conn, project_id: int, prop: Property, *, per_person: bool) -> list[Any]:
    def test(properties: str, column_of: Any) -> tuple[str, list[Any]]:
        return compare_json(DIALECT, properties, prop)

    if per_person:
        sql, params = DIALECT.person_condition(project_id, test)
    else:
        sql, params = test(DIALECT.person_properties(), DIALECT.person_column)
    rows = conn.execute(
        f"SELECT {sql} FROM events e WHERE e.project_id = ? ORDER BY e.timestamp", [*params, project_id]
    ).fetchall()
    return [row[0] for row in rows]


# expected per event, in time order: ann, sam, nora, ghost (row gone), ann again
CASES = [
    # not containing the staff domain: everyone but sam, a missing email reads ''
    (Property(key="email", value="@staff.example", operator="not_icontains", type="person"), [1, 0, 1, 1, 1]),
    (Property(key="email", value="@staff.example", operator="icontains", type="person"), [0, 1, 0, 0, 0]),
    # exact on a missing key is unknown (NULL): nora, and the events that read no properties
    (Property(key="plan", value="pro", operator="exact", type="person"), [1, 0, None, None, 1]),
    (Property(key="plan", value="pro", operator="is_not", type="person"), [0, 1, 1, 1, 0]),
    (Property(key="plan", value=None, operator="is_set", type="person"), [1, 1, 0, 0, 1]),
    (Property(key="plan", value=None, operator="is_not_set", type="person"), [0, 0, 1, 1, 0]),
    (Property(key="email", value="^sam@", operator="regex", type="person"), [0, 1, 0, 0, 0]),
    (Property(key="email", value="^sam@", operator="not_regex", type="person"), [1, 0, 1, 1, 1]),
]


@pytest.mark.parametrize(("prop", "expected"), CASES, ids=[f"{case[0].operator}-{case[0].key}" for case in CASES])
def test_each_event_answers_as_its_own_persons_row_would(conn, project_id, prop, expected):
    assert _answers(conn, project_id, prop, per_person=True) == expected
    assert _answers(conn, project_id, prop, per_person=False) == expected


def test_a_person_of_another_project_is_never_read(conn, project_id):
    other = int(create_project(conn, name="Other", timezone="UTC", now="2026-01-15T12:00:00Z")["id"])
    add_events(conn, other, [("$pageview", "zed", "2026-01-10T10:00:00Z")], persons={"zed": {"plan": "pro"}})
    prop = Property(key="plan", value="pro", operator="exact", type="person")
    assert _answers(conn, project_id, prop, per_person=True) == [1, 0, None, None, 1]
    assert _answers(conn, other, prop, per_person=True) == [1]
