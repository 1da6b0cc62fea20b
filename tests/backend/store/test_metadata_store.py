"""The store's reads of metadata that calculations and lists rely on, tested without HTTP."""

from __future__ import annotations

from local_backend.queries.actions import action_condition
from local_backend.queries.base_filter import compiler_for
from local_backend.store.actions import create_action, live_actions, update_action
from local_backend.store.insights import InsightListFilter, create_insight, list_insights
from local_backend.store.projects import get_project

NOW = "2026-01-15T12:00:00.000000Z"


def _action(conn, project_id: int, name: str, event: str) -> int:
    values = {"name": name, "steps": [{"event": event}]}
    return create_action(conn, project_id=project_id, user_id=None, values=values, now=NOW)


def test_live_actions_reads_the_projects_live_actions_and_skips_what_cannot_be_one(conn, world):
    kept = _action(conn, world.project_id, "Signed up", "signup")
    gone = _action(conn, world.project_id, "Old", "old")
    update_action(conn, gone, {"deleted": True}, now=NOW)
    elsewhere = _action(conn, world.other_project_id, "Theirs", "signup")
    found = live_actions(conn, world.project_id, [kept, str(kept), gone, elsewhere, "x", None, 2**70])
    assert list(found) == [kept]
    assert (found[kept]["name"], found[kept]["steps"]) == ("Signed up", [{"event": "signup"}])


def test_a_compiler_reads_an_action_once_however_many_steps_name_it(conn, world):
    action_id = _action(conn, world.project_id, "Signed up", "signup")
    compiler = compiler_for(conn, get_project(conn, world.project_id))
    reads: list[str] = []
    conn.set_trace_callback(lambda sql: reads.append(sql) if "FROM actions" in sql else None)
    try:
        conditions = [action_condition(compiler, action_id, f"events__{step}__id") for step in range(3)]
    finally:
        conn.set_trace_callback(None)
    assert len(reads) == 1
    assert conditions[0] == conditions[2] == ("((e.event = ? AND 1))", ["signup"])


def test_insight_search_takes_percent_and_underscore_literally(conn, world):
    for name in ("100% done", "1000 done", "a_b", "axb"):
        create_insight(conn, project_id=world.project_id, user_id=world.user_id, values={"name": name}, now=NOW)

    def names(search: str) -> list[str]:
        rows, total = list_insights(
            conn, world.project_id, InsightListFilter(search=search), order="name", limit=10, offset=0
        )
        assert total == len(rows)
        return [row["name"] for row in rows]

    assert names("0%") == ["100% done"]
    assert names("a_") == ["a_b"]
    assert names("DONE") == ["100% done", "1000 done"]
