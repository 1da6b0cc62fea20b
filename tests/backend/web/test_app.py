"""Behaviour every route shares: the error envelope, trailing slashes, body limits, OpenAPI, health."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from local_backend.app import create_app
from local_backend.config import Settings


def test_health(client):
    assert client.get("/_health").json() == {"status": "ok"}
    assert client.get("/_health/").status_code == 200


def test_unknown_endpoint_is_enveloped_404(client, world):
    response = client.get("/api/nothing/here/", headers=world.headers())
    assert response.status_code == 404
    assert response.json() == {
        "type": "invalid_request",
        "code": "not_found",
        "detail": "Endpoint not found.",
        "attr": None,
    }


def test_wrong_method_is_enveloped_405(client, world):
    response = client.put(f"/api/projects/{world.project_id}/", headers=world.headers(), json={})
    assert response.status_code == 405
    assert response.json() == {
        "type": "invalid_request",
        "code": "method_not_allowed",
        "detail": 'Method "PUT" not allowed.',
        "attr": None,
    }


def test_with_and_without_trailing_slash_never_redirects(client, world):
    for path in (f"/api/projects/{world.project_id}", f"/api/projects/{world.project_id}/"):
        response = client.get(path, headers=world.headers(), follow_redirects=False)
        assert response.status_code == 200


def test_malformed_json_is_parse_error(client, world):
    response = client.patch(
        f"/api/projects/{world.project_id}/",
        content=b'{"name": ',
        headers={**world.headers(), "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    body = response.json()
    assert (body["type"], body["code"]) == ("invalid_request", "parse_error")
    assert body["detail"].startswith("JSON parse error")


def test_json_that_is_not_an_object_is_400(client, world):
    response = client.patch(f"/api/projects/{world.project_id}/", json=[1, 2], headers=world.headers())
    assert response.status_code == 400
    assert response.json()["type"] == "validation_error"


def test_oversized_body_is_413(tmp_path: Path, clock, world, db_path):
    app = create_app(Settings(db_path=db_path, clock=clock, max_request_bytes=1000))
    with TestClient(app) as small:
        response = small.patch(f"/api/projects/{world.project_id}/", json={"name": "x" * 2000}, headers=world.headers())
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"


def test_openapi_schema_and_docs(client):
    schema = client.get("/api/schema/").json()
    assert schema["info"]["title"] == "insightlab local backend"
    assert "/api/projects/{project_id}" in schema["paths"]
    assert "ErrorResponse" in schema["components"]["schemas"]
    docs = client.get("/api/schema/swagger-ui/")
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()


def test_unexpected_failure_is_enveloped_500(client, world, monkeypatch):
    import local_backend.routes.projects as projects

    def explode(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(projects, "project_detail", explode)
    response = client.get(f"/api/projects/{world.project_id}/", headers=world.headers())
    assert response.status_code == 500
    assert response.json() == {
        "type": "server_error",
        "code": "error",
        "detail": "A server error occurred.",
        "attr": None,
    }


def test_the_app_keeps_its_database_open_while_it_serves(tmp_path: Path):
    # while a connection stays open SQLite keeps the write-ahead log; the last one to close folds it into the
    # file and removes it, which would otherwise happen at the end of every request
    db_path = tmp_path / "kept.db"
    wal = tmp_path / "kept.db-wal"
    app = create_app(Settings(db_path=db_path, materialize_auto_interval=0))
    with TestClient(app) as client:
        assert client.get("/_health").status_code == 200
        assert wal.exists()
    assert not wal.exists()
