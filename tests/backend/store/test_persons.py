"""Persons and groups as ingestion makes them: $set / $set_once / $unset, identify, alias, merges, groups."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

import local_backend.ingestion.ingest as ingest_module
from local_backend.ingestion import ingest_events
from local_backend.plugins.base import Plugin
from local_backend.plugins.pipeline import ConfiguredPlugin
from local_backend.store.person_rules import apply_property_updates, is_illegal_distinct_id
from local_backend.store.projects import get_project

NOW = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)
T0 = "2026-01-10T00:00:00Z"
T0_US = 1_768_003_200_000_000


def ingest(conn, world, *events):
    return ingest_events(conn, get_project(conn, world.project_id), list(events), now=NOW)


def ev(name: str, distinct_id: str, timestamp: str = T0, **properties) -> dict:
    return {"event": name, "distinct_id": distinct_id, "timestamp": timestamp, "properties": properties}


def person_of(conn, distinct_id: str) -> dict | None:
    row = conn.execute(
        "SELECT p.id, p.properties, p.is_identified, p.created_at FROM persons p JOIN person_distinct_ids d"
        " ON d.person_id = p.id WHERE d.distinct_id = ?",
        (distinct_id,),
    ).fetchone()
    if row is None:
        return None
    return {"id": row[0], "properties": json.loads(row[1]), "is_identified": bool(row[2]), "created_at": row[3]}


def event_persons(conn) -> list[tuple[str, int]]:
    return [tuple(r) for r in conn.execute("SELECT distinct_id, person_id FROM events ORDER BY id")]


def count(conn, table: str) -> int:
    return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_a_new_distinct_id_gets_a_person_with_the_events_properties(conn, world):
    ingest(conn, world, ev("signup", "alice", **{"$set": {"plan": "pro"}, "$set_once": {"source": "ad", "plan": "x"}}))
    alice = person_of(conn, "alice")
    assert alice["properties"] == {"plan": "pro", "source": "ad"}
    assert (alice["is_identified"], alice["created_at"]) == (False, T0_US)
    assert event_persons(conn) == [("alice", alice["id"])]


def test_set_once_keeps_set_replaces_unset_removes_in_that_order(conn, world):
    ingest(
        conn,
        world,
        ev("a", "u", **{"$set": {"plan": "free", "seats": 1, "tmp": 1}, "$set_once": {"first": "ad"}}),
        ev("b", "u", **{"$set_once": {"first": "seo", "country": "DE"}, "$set": {"plan": "pro"}}),
        ev("c", "u", **{"$unset": ["tmp", "missing"]}),
        ev("d", "u", **{"$unset": {"seats": None}}),
        # within one event: set_once first, then set, then unset
        ev("e", "u", **{"$set_once": {"k": 1}, "$set": {"k": 2, "gone": 1}, "$unset": ["gone"]}),
    )
    assert person_of(conn, "u")["properties"] == {"plan": "pro", "first": "ad", "country": "DE", "k": 2}
    assert count(conn, "persons") == 1


def test_top_level_set_and_set_once_count_like_the_properties_ones(conn, world):
    ingest(conn, world, {"event": "$set", "distinct_id": "u", "$set": {"a": 1}, "$set_once": {"b": 2}})
    assert person_of(conn, "u")["properties"] == {"a": 1, "b": 2}


def test_process_person_profile_false_leaves_person_properties_alone(conn, world):
    ingest(conn, world, ev("a", "u", **{"$set": {"a": 1}}))
    ingest(conn, world, ev("b", "u", **{"$set": {"a": 2}, "$process_person_profile": False}))
    assert person_of(conn, "u")["properties"] == {"a": 1}


def test_identify_merges_the_anonymous_person_into_the_identified_one(conn, world):
    ingest(
        conn,
        world,
        ev("$pageview", "anon", "2026-01-09T00:00:00Z", **{"$set": {"plan": "free", "browser": "Chrome"}}),
        ev("login", "user@x", "2026-01-10T00:00:00Z", **{"$set": {"plan": "pro", "email": "user@x"}}),
    )
    anon_before, user_before = person_of(conn, "anon"), person_of(conn, "user@x")
    ingest(conn, world, ev("$identify", "user@x", "2026-01-11T00:00:00Z", **{"$anon_distinct_id": "anon",
                                                                             "$set": {"name": "U"}}))  # fmt: skip
    survivor = person_of(conn, "user@x")
    assert survivor["id"] == user_before["id"] == person_of(conn, "anon")["id"]
    # the identified person's values win; the event's $set applies on top; the earlier created_at is kept
    assert survivor["properties"] == {"plan": "pro", "browser": "Chrome", "email": "user@x", "name": "U"}
    assert survivor["created_at"] == anon_before["created_at"] == 1_767_916_800_000_000
    assert survivor["is_identified"] is True
    assert count(conn, "persons") == 1
    assert event_persons(conn) == [("anon", survivor["id"]), ("user@x", survivor["id"]), ("user@x", survivor["id"])]


def test_identify_with_only_the_anonymous_person_adds_the_new_id_to_it(conn, world):
    ingest(conn, world, ev("$pageview", "anon"))
    anon = person_of(conn, "anon")
    ingest(conn, world, ev("$identify", "user", **{"$anon_distinct_id": "anon"}))
    assert person_of(conn, "user")["id"] == anon["id"]
    assert person_of(conn, "user")["is_identified"] is True
    assert count(conn, "persons") == 1


def test_identify_with_neither_known_creates_one_identified_person_with_both_ids(conn, world):
    ingest(conn, world, ev("$identify", "user", **{"$anon_distinct_id": "anon", "$set": {"a": 1}}))
    user = person_of(conn, "user")
    assert person_of(conn, "anon")["id"] == user["id"]
    assert (user["is_identified"], user["properties"], count(conn, "persons")) == (True, {"a": 1}, 1)


def test_merges_within_one_call_rewrite_that_calls_events(conn, world):
    ingest(
        conn,
        world,
        ev("$pageview", "anon"),
        ev("$pageview", "user"),
        ev("$identify", "user", **{"$anon_distinct_id": "anon"}),
        ev("$pageview", "anon"),
    )
    user = person_of(conn, "user")
    assert {person for _, person in event_persons(conn)} == {user["id"]}
    assert count(conn, "persons") == count(conn, f"persons WHERE id = {user['id']}") == 1


def test_an_identified_person_is_not_merged_away_by_identify_or_alias(conn, world):
    ingest(conn, world, ev("$identify", "first", **{"$anon_distinct_id": "anon1"}))  # "first" is identified
    ingest(conn, world, ev("$pageview", "second"))
    ingest(conn, world, ev("$identify", "second", **{"$anon_distinct_id": "first"}))
    ingest(conn, world, ev("$create_alias", "second", alias="first"))
    assert person_of(conn, "first")["id"] != person_of(conn, "second")["id"]
    # the event's own person is still marked identified
    assert person_of(conn, "second")["is_identified"] is True
    assert count(conn, "persons") == 2


def test_merge_dangerously_merges_identified_persons(conn, world):
    ingest(conn, world, ev("$identify", "first", **{"$anon_distinct_id": "anon1", "$set": {"a": 1}}))
    ingest(conn, world, ev("$identify", "second", **{"$anon_distinct_id": "anon2", "$set": {"b": 2}}))
    ingest(conn, world, ev("$merge_dangerously", "second", alias="first"))
    second = person_of(conn, "second")
    assert {person_of(conn, d)["id"] for d in ("first", "anon1", "anon2")} == {second["id"]}
    assert second["properties"] == {"a": 1, "b": 2}
    assert count(conn, "persons") == 1
    assert {person for _, person in event_persons(conn)} == {second["id"]}


def test_create_alias_joins_the_alias_to_the_events_distinct_id(conn, world):
    ingest(conn, world, ev("$pageview", "old-id"), ev("$pageview", "new-id"))
    old_id = person_of(conn, "old-id")["id"]
    # the Python SDK's alias(previous_id, distinct_id) sends distinct_id=previous_id, alias=distinct_id
    ingest(conn, world, ev("$create_alias", "old-id", alias="new-id"))
    assert person_of(conn, "new-id")["id"] == old_id
    assert count(conn, "persons") == 1


@pytest.mark.parametrize("generic", ["null", "anonymous", "Anonymous", '"undefined"', "0", "[object Object]", " "])
def test_generic_ids_never_merge(conn, world, generic):
    ingest(conn, world, ev("$pageview", generic if generic.strip() else "x"), ev("$pageview", "user"))
    ingest(conn, world, ev("$identify", "user", **{"$anon_distinct_id": generic}))
    assert count(conn, "persons") == 2
    assert is_illegal_distinct_id(generic)


def test_ordinary_ids_are_legal():
    assert not any(is_illegal_distinct_id(d) for d in ("nan", "user-0", "alice", "none-of-these"))


def test_apply_property_updates_reports_whether_anything_changed():
    properties = {"a": 1}
    assert apply_property_updates(properties, {"a": 1}, {"a": 2}, []) is False
    assert apply_property_updates(properties, None, None, "a") is False  # neither a list nor an object
    assert apply_property_updates(properties, {"a": 1.5}, None, None) is True
    assert properties == {"a": 1.5}


def test_groupidentify_fills_group_types_and_groups(conn, world):
    ingest(
        conn,
        world,
        ev("$groupidentify", "$company_acme", **{"$group_type": "company", "$group_key": "acme",
                                                 "$group_set": {"name": "Acme", "size": 10}}),
        ev("$groupidentify", "$project_p1", **{"$group_type": "project", "$group_key": "p1", "$group_set": {}}),
        ev("$groupidentify", "$company_acme", "2026-01-11T00:00:00Z",
           **{"$group_type": "company", "$group_key": "acme", "$group_set": {"size": 12}}),
    )  # fmt: skip
    mappings = dict(conn.execute("SELECT group_type, group_type_index FROM group_type_mappings").fetchall())
    assert mappings == {"company": 0, "project": 1}
    groups = {
        (r[0], r[1]): (json.loads(r[2]), r[3])
        for r in conn.execute("SELECT group_type_index, group_key, properties, created_at FROM groups")
    }
    assert groups == {(0, "acme"): ({"name": "Acme", "size": 12}, T0_US), (1, "p1"): ({}, T0_US)}
    definitions = sorted(
        tuple(r)
        for r in conn.execute("SELECT name, group_type_index, property_type FROM property_definitions WHERE type = 3")
    )
    assert definitions == [("name", 0, "String"), ("size", 0, "Numeric")]


def test_groups_on_events_fill_the_group_columns_and_a_sixth_type_is_ignored(conn, world):
    ingest(
        conn,
        world,
        ev("a", "u", **{"$groups": {"type2": "k2", "type0": 7}}),
        ev("b", "u", **{"$groups": {"type0": "key0", "type1": None, "type2": "key2", "type3": "key3", "type4": "key4",
                                    "": "x"}}),
        ev("c", "u", **{"$groups": {"type5": "k5", "type6": "k6"}}),
        ev("d", "u"),
    )  # fmt: skip
    rows = [
        tuple(r) for r in conn.execute("SELECT group_0, group_1, group_2, group_3, group_4 FROM events ORDER BY id")
    ]
    # types take the lowest free index in the order first seen; a type with no key takes none; the sixth is ignored
    assert rows == [
        ("k2", "7", None, None, None),
        ("key2", "key0", "key3", "key4", None),
        (None, None, None, None, "k5"),
        (None,) * 5,
    ]
    mappings = dict(conn.execute("SELECT group_type, group_type_index FROM group_type_mappings").fetchall())
    assert mappings == {"type2": 0, "type0": 1, "type3": 2, "type4": 3, "type5": 4}


def test_a_group_key_that_is_an_object_or_an_array_names_no_group(conn, world):
    """Neither on an event's $groups (its type takes no index either) nor as the $group_key of a $groupidentify."""
    ingest(
        conn,
        world,
        ev("a", "u", **{"$groups": {"team": {"id": 1}, "project": [1, 2], "company": 1.0}}),
        ev("$groupidentify", "u", **{"$group_type": "team", "$group_key": {"id": 1}, "$group_set": {"x": 1}}),
        ev("$groupidentify", "u", **{"$group_type": "company", "$group_key": 1.0, "$group_set": {"x": 1}}),
    )  # fmt: skip
    assert [tuple(r) for r in conn.execute("SELECT group_0, group_1 FROM events ORDER BY id LIMIT 1")] == [
        ("1.0", None)
    ]
    mappings = dict(conn.execute("SELECT group_type, group_type_index FROM group_type_mappings").fetchall())
    assert mappings == {"company": 0}
    assert [tuple(r) for r in conn.execute("SELECT group_type_index, group_key FROM groups")] == [(0, "1.0")]


def test_a_chain_of_merges_in_one_call_ends_in_one_person(conn, world):
    ingest(conn, world, ev("$pageview", "c"))  # stored before the call: "c" survives
    ingest(
        conn,
        world,
        ev("$pageview", "a"),
        ev("$pageview", "b", **{"$set": {"from_b": 1}}),
        ev("$identify", "b", **{"$anon_distinct_id": "a"}),  # a -> b (b becomes identified)
        ev("$merge_dangerously", "c", alias="b"),  # b (with a) -> c, allowed although b is identified
        ev("$pageview", "a"),
    )
    c = person_of(conn, "c")
    assert {person_of(conn, d)["id"] for d in "abc"} == {c["id"]}
    assert {person for _, person in event_persons(conn)} == {c["id"]}
    assert c["properties"] == {"from_b": 1}
    assert count(conn, "persons") == 1
    assert count(conn, "person_distinct_ids") == 3


def test_an_alias_to_itself_changes_nothing(conn, world):
    ingest(conn, world, ev("$create_alias", "same", alias="same"))
    assert person_of(conn, "same")["is_identified"] is False
    assert count(conn, "persons") == 1


def test_top_level_unset_removes_person_properties(conn, world):
    ingest(conn, world, ev("a", "u", **{"$set": {"a": 1, "b": 2}}))
    ingest(conn, world, {"event": "b", "distinct_id": "u", "$unset": ["a"]})
    assert person_of(conn, "u")["properties"] == {"b": 2}


def test_group_types_keep_their_index_across_calls(conn, world):
    ingest(conn, world, ev("a", "u", **{"$groups": {"company": "acme"}}))
    ingest(conn, world, ev("b", "u", **{"$groups": {"project": "p1", "company": 42}}))
    mappings = dict(conn.execute("SELECT group_type, group_type_index FROM group_type_mappings").fetchall())
    assert mappings == {"company": 0, "project": 1}
    rows = [tuple(r) for r in conn.execute("SELECT group_0, group_1 FROM events ORDER BY id")]
    assert rows == [("acme", None), ("42", "p1")]


def test_group_properties_update_a_stored_group(conn, world):
    identify = {"$group_type": "company", "$group_key": "acme"}
    ingest(conn, world, ev("$groupidentify", "x", **identify, **{"$group_set": {"name": "Acme", "size": 1}}))
    ingest(conn, world, ev("$groupidentify", "x", "2026-01-12T00:00:00Z", **identify, **{"$group_set": {"size": 2}}))
    [(properties, created_at)] = conn.execute("SELECT properties, created_at FROM groups").fetchall()
    assert (json.loads(properties), created_at) == ({"name": "Acme", "size": 2}, T0_US)


def lowercase_ids(event, config):
    return {**event, "distinct_id": event["distinct_id"].lower()}


LOWERCASE = Plugin(id=99, slug="lower", name="Lower", description="", tag="0", process_event=lowercase_ids)


def test_a_plugin_that_changes_the_distinct_id_moves_the_event_to_that_person(conn, world, monkeypatch):
    configured = [ConfiguredPlugin(config_id=999, plugin=LOWERCASE, config={})]
    monkeypatch.setattr(ingest_module, "load_enabled_plugins", lambda connection, project_id: configured)
    ingest(conn, world, ev("a", "ALICE"), ev("b", "alice"))
    assert [d for d, _ in event_persons(conn)] == ["alice", "alice"]
    assert count(conn, "persons") == 1


def test_a_person_uuid_already_taken_gives_the_new_person_a_random_one(conn, world):
    """Person uuids derive from the first distinct id (as PostHog's do); a person left without its distinct ids
    (edited away in the database) keeps that uuid, and the id's new person gets another."""
    ingest(conn, world, ev("$pageview", "bob"))
    (bob_uuid,) = conn.execute("SELECT uuid FROM persons").fetchone()
    conn.execute("DELETE FROM person_distinct_ids")
    ingest(conn, world, ev("$pageview", "bob"), ev("$pageview", "carol"))
    uuids = [row[0] for row in conn.execute("SELECT uuid FROM persons ORDER BY id")]
    assert len(uuids) == len(set(uuids)) == 3
    assert uuids[0] == bob_uuid
    assert person_of(conn, "bob")["id"] == 2
    assert event_persons(conn)[1:] == [("bob", 2), ("carol", 3)]
