"""Requests carry the key, follow pagination, and retry 429/5xx honouring Retry-After."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from toolkit import Client, QueryTimeoutError, RateLimitError, ServerError

from .fakes import BASE, KEY, FakeSession


def page(items, next_url=None, count=None):
    return (
        200,
        {"count": count if count is not None else len(items), "next": next_url, "previous": None, "results": items},
    )


def test_key_is_sent_as_bearer_and_project_in_path(client, fake):
    fake.routes[("GET", "/api/projects/1/")] = (200, {"id": 1, "name": "Shop"})
    assert client.project()["name"] == "Shop"
    call = fake.calls[0]
    assert call.headers["Authorization"] == f"Bearer {KEY}"
    assert call.url == f"{BASE}/api/projects/1/"


def test_current_project_is_addressed_as_at_current(fake):
    client = Client(base_url=BASE, api_key=KEY, session=fake)
    fake.routes[("GET", "/api/projects/@current/")] = (200, {"id": 5})
    assert client.project() == {"id": 5}


def test_pagination_follows_next_to_the_end(client, fake):
    path = "/api/projects/1/plugin_configs/"
    fake.routes[("GET", path)] = [
        page([{"id": 1}, {"id": 2}], f"http://internal:8000{path}?limit=2&offset=2", count=5),
        page([{"id": 3}, {"id": 4}], f"http://internal:8000{path}?limit=2&offset=4", count=5),
        page([{"id": 5}], None, count=5),
    ]
    frame = client.plugin_configs()
    assert frame["id"].tolist() == [1, 2, 3, 4, 5]
    # next links are re-based onto the configured host, so the key never goes elsewhere
    assert [call.url for call in fake.calls][1:] == [
        f"{BASE}{path}?limit=2&offset=2",
        f"{BASE}{path}?limit=2&offset=4",
    ]
    assert fake.calls[0].params == {"limit": "100"}


def test_limit_caps_items_and_page_size(client, fake):
    path = "/api/projects/1/insights/"
    fake.routes[("GET", path)] = [page([{"id": 1}, {"id": 2}], f"{BASE}{path}?limit=2&offset=2", count=9)]
    frame = client.insights(limit=2)
    assert frame["id"].tolist() == [1, 2]
    assert len(fake.calls) == 1  # the second page is never fetched
    assert fake.calls[0].params["limit"] == "2"


def test_relative_next_link_is_resolved(client, fake):
    # PostHog's quirk: a next link may come back relative, without the leading slash
    path = "/api/projects/1/insights/"
    fake.routes[("GET", path)] = [
        page([{"id": 1}], "api/projects/1/insights/?limit=1&offset=1"),
        page([{"id": 2}]),
    ]
    assert [item["id"] for item in client.iter_insights()] == [1, 2]
    assert fake.calls[1].url == f"{BASE}/api/projects/1/insights/?limit=1&offset=1"


def test_iterator_form_is_lazy(client, fake):
    path = "/api/projects/1/insights/"
    fake.routes[("GET", path)] = [page([{"id": 1}], f"{BASE}{path}?offset=1"), page([{"id": 2}])]
    items = client.iter_insights()
    assert fake.calls == []
    assert next(items)["id"] == 1
    assert len(fake.calls) == 1


def test_plain_array_answer_is_one_page(client, fake):
    fake.routes[("GET", "/api/projects/1/insights/my_last_viewed/")] = (200, [{"id": 3}, {"id": 1}])
    assert client.my_last_viewed()["id"].tolist() == [3, 1]


def test_list_filters_become_query_parameters(client, fake):
    fake.routes[("GET", "/api/projects/1/insights/")] = page([])
    client.insights(search="signup", favorited=True, saved=False, dashboards=[1, 2], insight="TRENDS", mine=False)
    assert fake.calls[0].params == {
        "limit": "100",
        "search": "signup",
        "favorited": "true",
        "saved": "false",
        "dashboards": "[1, 2]",
        "insight": "TRENDS",
    }


_ENVELOPE = {"type": "x", "code": "c", "detail": "d", "attr": None}


class _Script(BaseHTTPRequestHandler):
    """Answers from a shared script of (status, headers) and records each request's method and time."""

    script: list[tuple[int, dict[str, str]]] = []
    seen: list[str] = []
    envelopes = {504: {"type": "server_error", "code": "query_timeout", "detail": "limit reached", "attr": None}}

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        type(self).seen.append(self.command)
        status, headers = type(self).script.pop(0) if type(self).script else (200, {})
        body = json.dumps({"ok": True} if status < 400 else type(self).envelopes.get(status, _ENVELOPE))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    do_GET = do_POST = do_PATCH = _answer

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def scripted():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Script)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Script.script, _Script.seen = [], []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def sleeps(monkeypatch):
    """The waits urllib3 asks for, instead of waiting them."""
    recorded: list[float] = []
    monkeypatch.setattr("urllib3.util.retry.time.sleep", recorded.append)
    return recorded


def test_429_is_retried_after_the_retry_after_wait(scripted, sleeps):
    _Script.script = [(429, {"Retry-After": "7"}), (200, {})]
    client = Client(base_url=scripted, api_key=KEY, project_id=1)
    assert client.request("GET", "/api/projects/1/") == {"ok": True}
    assert _Script.seen == ["GET", "GET"]
    assert sleeps == [7.0]


def test_429_on_post_is_retried_too(scripted, sleeps):
    _Script.script = [(429, {"Retry-After": "1"}), (200, {})]
    client = Client(base_url=scripted, api_key=KEY, project_id=1)
    client.request("POST", "/api/projects/1/insights/trend/", json={})
    assert _Script.seen == ["POST", "POST"]


def test_5xx_backs_off_then_gives_up_with_server_error(scripted, sleeps):
    _Script.script = [(502, {}), (502, {}), (502, {})]
    client = Client(base_url=scripted, api_key=KEY, project_id=1, max_retries=2, backoff_factor=1.0)
    with pytest.raises(ServerError) as caught:
        client.request("GET", "/api/projects/1/")
    assert caught.value.status == 502
    assert _Script.seen == ["GET", "GET", "GET"]
    assert len(sleeps) == 1 and sleeps[0] == 2.0  # urllib3 waits 0 before the first retry, then 1.0 * 2**1


def test_500_on_a_post_is_not_repeated(scripted, sleeps):
    _Script.script = [(500, {}), (200, {})]
    client = Client(base_url=scripted, api_key=KEY, project_id=1)
    with pytest.raises(ServerError):
        client.request("POST", "/api/projects/1/insights/", json={"name": "x"})
    assert _Script.seen == ["POST"]


def test_a_query_timeout_is_not_retried_and_says_what_happened(scripted, sleeps):
    _Script.script = [(504, {}), (200, {})]
    client = Client(base_url=scripted, api_key=KEY, project_id=1, max_retries=3)
    with pytest.raises(QueryTimeoutError) as caught:
        client.request("GET", "/api/projects/1/insights/trend/", params={"events": "[]"})
    assert _Script.seen == ["GET"]  # asked once: a second try would run into the same limit
    assert sleeps == []
    assert isinstance(caught.value, ServerError)
    assert (caught.value.status, caught.value.code, caught.value.detail) == (504, "query_timeout", "limit reached")


def test_rate_limit_after_retries_carries_retry_after(scripted, sleeps):
    _Script.script = [(429, {"Retry-After": "3"})] * 2
    client = Client(base_url=scripted, api_key=KEY, project_id=1, max_retries=1)
    with pytest.raises(RateLimitError) as caught:
        client.request("GET", "/api/projects/1/")
    assert caught.value.retry_after == 3.0
    assert sleeps == [3.0]


def test_injected_session_is_used_as_is():
    session = FakeSession({("GET", "/api/projects/1/"): (200, {"id": 1})})
    client = Client(base_url=BASE, api_key=KEY, project_id=1, session=session, max_retries=9)
    assert client.session is session
    client.project()
    assert len(session.calls) == 1
