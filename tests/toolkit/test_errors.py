"""Every error answer becomes the ToolkitError subclass for its status, with the envelope's fields."""

from __future__ import annotations

import pytest
import requests

from toolkit import (
    APIError,
    AuthenticationError,
    Client,
    MethodNotAllowedError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ToolkitError,
    TransportError,
    ValidationError,
)

from .fakes import BASE, KEY, FakeSession


def envelope(type_: str, code: str, detail: str, attr: str | None = None) -> dict:
    return {"type": type_, "code": code, "detail": detail, "attr": attr}


@pytest.mark.parametrize(
    "status, body, headers, expected, code, detail, attr",
    [
        (
            400,
            envelope("validation_error", "required", "This field is required.", "order"),
            {},
            ValidationError,
            "required",
            "This field is required.",
            "order",
        ),
        (
            401,
            envelope(
                "authentication_error",
                "authentication_failed",
                "Personal API key found in request Authorization header is invalid.",
            ),
            {},
            AuthenticationError,
            "authentication_failed",
            "Personal API key found in request Authorization header is invalid.",
            None,
        ),
        # insights answer 403 for a missing key: still an authentication problem
        (
            403,
            envelope("authentication_error", "not_authenticated", "Authentication credentials were not provided."),
            {},
            AuthenticationError,
            "not_authenticated",
            "Authentication credentials were not provided.",
            None,
        ),
        (
            403,
            envelope("authentication_error", "permission_denied", "API key missing required scope 'insight:write'"),
            {},
            PermissionDeniedError,
            "permission_denied",
            "API key missing required scope 'insight:write'",
            None,
        ),
        (
            404,
            envelope("invalid_request", "not_found", "Not found."),
            {},
            NotFoundError,
            "not_found",
            "Not found.",
            None,
        ),
        (405, None, {}, MethodNotAllowedError, None, None, None),
        (
            429,
            envelope("throttled_error", "throttled", "Request was throttled. Expected available in 62 seconds."),
            {"Retry-After": "62"},
            RateLimitError,
            "throttled",
            "Request was throttled. Expected available in 62 seconds.",
            None,
        ),
        (
            500,
            envelope("server_error", "error", "A server error occurred."),
            {},
            ServerError,
            "error",
            "A server error occurred.",
            None,
        ),
        (503, "<html>upstream unavailable</html>", {}, ServerError, None, "<html>upstream unavailable</html>", None),
        (409, envelope("invalid_request", "conflict", "Conflict."), {}, APIError, "conflict", "Conflict.", None),
    ],
)
def test_status_maps_to_error(status, body, headers, expected, code, detail, attr):
    session = FakeSession({("GET", "/api/projects/1/insights/"): (status, body, headers)})
    client = Client(base_url=BASE, api_key=KEY, project_id=1, session=session)
    with pytest.raises(expected) as caught:
        client.request("GET", client.project_path("insights/"))
    error = caught.value
    assert type(error) is expected
    assert isinstance(error, APIError) and isinstance(error, ToolkitError)
    assert (error.status, error.code, error.detail, error.attr) == (status, code, detail, attr)
    assert error.url == f"{BASE}/api/projects/1/insights/"
    if body and isinstance(body, dict):
        assert error.type == body["type"]
    if expected is RateLimitError:
        assert error.retry_after == 62.0


def test_message_carries_status_code_detail_and_field():
    session = FakeSession(
        {
            ("POST", "/api/projects/1/plugin_configs/"): (
                400,
                envelope("validation_error", "does_not_exist", 'Invalid pk "99" - object does not exist.', "plugin"),
            )
        }
    )
    client = Client(base_url=BASE, api_key=KEY, project_id=1, session=session)
    with pytest.raises(
        ValidationError, match=r"400 does_not_exist: Invalid pk \"99\" - object does not exist. \(field 'plugin'\)"
    ):
        client.create_plugin_config(99, order=1)


class RefusingSession:
    def request(self, method, url, **kwargs):
        raise requests.ConnectionError("Connection refused")


def test_connection_failure_is_a_transport_error_with_the_url():
    client = Client(base_url="http://127.0.0.1:9", api_key=KEY, project_id=1, session=RefusingSession())
    with pytest.raises(TransportError) as caught:
        client.insights()
    assert caught.value.url.startswith("http://127.0.0.1:9/api/projects/1/insights/")
    assert "Connection refused" in str(caught.value)
    assert isinstance(caught.value.__cause__, requests.ConnectionError)


def test_default_session_reports_a_closed_port_as_transport_error():
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = Client(base_url=f"http://127.0.0.1:{port}", api_key=KEY, project_id=1, max_retries=0)
    with pytest.raises(TransportError) as caught:
        client.projects()
    assert f"127.0.0.1:{port}/api/projects/" in caught.value.url
