"""The published contract: every reference in /api/schema/ resolves, and refused or empty answers match it."""

from __future__ import annotations

from typing import Any

import pytest

ERROR_KEYS = {"type", "code", "detail", "attr"}


def _refs(node: Any, where: str = "#") -> list[tuple[str, str]]:
    """Every ``$ref`` in ``node`` with the place it sits."""
    if isinstance(node, dict):
        found = [(node["$ref"], where)] if isinstance(node.get("$ref"), str) else []
        for key, value in node.items():
            found += _refs(value, f"{where}/{key}")
        return found
    if isinstance(node, list):
        return [ref for index, value in enumerate(node) for ref in _refs(value, f"{where}/{index}")]
    return []


def _resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), f"{ref} is not a reference inside the document"
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def test_every_reference_in_the_schema_resolves(client):
    document = client.get("/api/schema/").json()
    refs = _refs(document)
    assert len(refs) > 100  # the walk really went through the document
    broken = []
    for ref, where in refs:
        try:
            _resolve(document, ref)
        except (KeyError, TypeError, AssertionError):
            broken.append((ref, where))
    assert broken == []


def _numeric_schemas(node: Any, where: str = "#") -> list[tuple[dict[str, Any], str]]:
    if isinstance(node, dict):
        found = [(node, where)] if node.get("type") in ("integer", "number") else []
        for key, value in node.items():
            found += _numeric_schemas(value, f"{where}/{key}")
        return found
    if isinstance(node, list):
        return [item for index, value in enumerate(node) for item in _numeric_schemas(value, f"{where}/{index}")]
    return []


def test_every_numeric_bound_uses_the_json_schema_keywords(client):
    """pydantic writes a bound applied after a validator (``Integer | None = Field(ge=0)``) as ``ge``, which no
    client or fuzzer reads: each must be published as minimum/maximum."""
    document = client.get("/api/schema/").json()
    numbers = _numeric_schemas(document)
    assert [where for schema, where in numbers if {"ge", "le", "gt", "lt"} & set(schema)] == []
    condition = document["components"]["schemas"]["Property"]["properties"]
    assert {"type": "integer", "minimum": 0, "maximum": 4} in condition["group_type_index"]["anyOf"]


def test_a_property_condition_declares_what_the_parser_reads(client):
    from local_backend.models.property_filters import OPERATORS, PROPERTY_TYPES

    condition = client.get("/api/schema/").json()["components"]["schemas"]["Property"]
    operator, kind = condition["properties"]["operator"]["anyOf"], condition["properties"]["type"]["anyOf"]
    assert operator == [{"enum": list(OPERATORS), "type": "string"}, {"type": "null"}]
    assert kind == [{"enum": list(PROPERTY_TYPES), "type": "string"}, {"type": "null"}]
    assert "static-cohort" in PROPERTY_TYPES and condition["required"] == ["key"]


def _create(client, world, resource: str) -> int:
    bodies = {
        "insights": {"name": "Pageviews", "filters": {"insight": "TRENDS", "events": [{"id": "$pageview"}]}},
        "actions": {"name": "Signed up", "steps": [{"event": "signup"}]},
        "cohorts": {"name": "Everyone", "is_static": True},
    }
    response = client.post(
        f"/api/projects/{world.project_id}/{resource}/", json=bodies[resource], headers=world.headers()
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


@pytest.mark.parametrize("resource", ["insights", "actions", "cohorts"])
def test_delete_is_refused_with_the_error_envelope_and_declared_so(client, world, resource):
    url = f"/api/projects/{world.project_id}/{resource}/{_create(client, world, resource)}/"
    response = client.delete(url, headers=world.headers())
    assert response.status_code == 405
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "type": "invalid_request",
        "code": "method_not_allowed",
        "detail": 'Method "DELETE" not allowed.',
        "attr": None,
    }
    assert client.get(url, headers=world.headers()).json()["deleted"] is False
    operation = client.get("/api/schema/").json()["paths"][f"/api/projects/{{project_id}}/{resource}/{{id}}"]
    declared = operation["delete"]["responses"]
    assert "200" not in declared
    assert declared["405"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorResponse"}


@pytest.mark.parametrize(
    "suffix, body",
    [("cancel", {"client_query_id": "q1"}), ("{id}/viewed", None)],
)
def test_cancel_and_viewed_answer_an_empty_200_and_the_schema_declares_no_body(client, world, suffix, body):
    insight_id = _create(client, world, "insights")
    url = f"/api/projects/{world.project_id}/insights/{suffix.format(id=insight_id)}/"
    response = client.post(url, json=body, headers=world.headers())
    assert (response.status_code, response.content) == (200, b"")
    template = f"/api/projects/{{project_id}}/insights/{suffix}"
    declared = client.get("/api/schema/").json()["paths"][template]["post"]["responses"]
    assert "content" not in declared["200"]


def test_a_refused_method_names_every_method_the_path_takes(client, world):
    response = client.put(f"/api/projects/{world.project_id}/insights/", headers=world.headers())
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST"
    assert response.json()["code"] == "method_not_allowed"
