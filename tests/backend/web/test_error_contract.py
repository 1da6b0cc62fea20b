"""Errors answer as the published contract says: the envelope on every refusal, a schema whose refs resolve,
and a server that stays usable on the same connection after an unexpected error."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from local_backend.app import create_app
from local_backend.clock import FixedClock
from local_backend.config import Settings

from ...factories import NOW
from ...live_server import serve_app


@pytest.mark.parametrize("resource", ["insights", "actions", "cohorts"])
def test_delete_is_refused_with_the_envelope(client, world, resource):
    created = client.post(
        f"/api/projects/{world.project_id}/{resource}/",
        json={"name": "Kept", **({"is_static": True} if resource == "cohorts" else {})},
        headers=world.headers(),
    )
    assert created.status_code == 201, created.text
    response = client.delete(
        f"/api/projects/{world.project_id}/{resource}/{created.json()['id']}/", headers=world.headers()
    )
    assert response.status_code == 405
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "type": "invalid_request",
        "code": "method_not_allowed",
        "detail": 'Method "DELETE" not allowed.',
        "attr": None,
    }
    # nothing was deleted
    kept = client.get(f"/api/projects/{world.project_id}/{resource}/{created.json()['id']}/", headers=world.headers())
    assert kept.status_code == 200 and kept.json()["name"] == "Kept"


def test_every_reference_in_the_schema_resolves(client):
    schema = client.get("/api/schema/").json()
    references = set(re.findall(r'"\$ref": "([^"]+)"', json.dumps(schema)))
    assert references, "the schema refers to its models"
    unresolved = []
    for reference in references:
        node = schema
        for part in reference.removeprefix("#/").split("/"):
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        if not reference.startswith("#/") or node is None:
            unresolved.append(reference)
    assert unresolved == []
    assert "x-definitions" not in json.dumps(schema)


@pytest.fixture
def failing_server(tmp_path: Path) -> Iterator[str]:
    """A real server on a loopback port with one extra route that always raises."""
    app = create_app(Settings(db_path=tmp_path / "server.db", clock=FixedClock(NOW)))

    def broken() -> dict:
        raise RuntimeError("a bug in a route")

    app.add_api_route("/_broken", broken, methods=["GET"])
    yield from serve_app(app)


@pytest.mark.live
def test_an_unexpected_error_is_the_envelope_logged_once_and_the_connection_stays_usable(failing_server, caplog):
    caplog.set_level(logging.ERROR)
    answers = []
    with requests.Session() as session:
        for attempt in range(20):
            path = "/_broken" if attempt % 2 == 0 else "/_health"
            response = session.get(failing_server + path, timeout=10)
            answers.append((path, response.status_code, response.headers.get("content-type")))
            if path == "/_broken":
                assert response.json() == {
                    "type": "server_error",
                    "code": "error",
                    "detail": "A server error occurred.",
                    "attr": None,
                }
    assert answers == [
        ("/_broken", 500, "application/json") if attempt % 2 == 0 else ("/_health", 200, "application/json")
        for attempt in range(20)
    ]
    tracebacks = [record for record in caplog.records if record.exc_info]
    assert len(tracebacks) == 10
    assert all("GET /_broken" in record.getMessage() for record in tracebacks)
