"""Offline seams for the toolkit: a fake `requests.Session` that answers from a table, and recorded responses."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import requests
from requests.structures import CaseInsensitiveDict

FIXTURES = Path(__file__).parent / "fixtures"
BASE = "https://posthog.example.com"
KEY = "phx_testkey0123456789"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


@dataclass
class Call:
    method: str
    url: str
    path: str
    params: dict[str, str]
    json: Any
    data: str | None
    headers: dict[str, str]
    files: dict[str, Any] | None = None

    @property
    def body(self) -> Any:
        if isinstance(self.data, str):
            return json.loads(self.data)
        return self.json if self.data is None else self.data


Reply = tuple[int, Any] | tuple[int, Any, dict[str, str]]


class FakeSession:
    """Answers ``(method, path)`` from a table of replies (a list is consumed in order) and records calls."""

    def __init__(self, routes: dict[tuple[str, str], Reply | list[Reply] | Callable[[Call], Reply]] | None = None):
        self.routes = dict(routes or {})
        self.calls: list[Call] = []

    def request(
        self, method: str, url: str, *, params=None, json=None, data=None, headers=None, timeout=None, files=None
    ):
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
        query.update({key: str(value) for key, value in (params or {}).items()})
        call = Call(method, url, parts.path, query, json, data, dict(headers or {}), files)
        self.calls.append(call)
        route = self.routes.get((method, parts.path))
        if route is None:
            reply: Reply = (
                404,
                {"type": "invalid_request", "code": "not_found", "detail": "Endpoint not found.", "attr": None},
            )
        elif callable(route):
            reply = route(call)
        elif isinstance(route, list):
            reply = route.pop(0)
        else:
            reply = route
        status, body, *rest = reply
        response = requests.Response()
        response.status_code = status
        response.url = url
        response.headers = CaseInsensitiveDict(rest[0] if rest else {})
        if body is None:
            response._content = b""
        elif isinstance(body, str):
            response._content = body.encode()
        else:
            response._content = __import__("json").dumps(body).encode()
            response.headers.setdefault("Content-Type", "application/json")
        return response

    def close(self) -> None:
        pass
