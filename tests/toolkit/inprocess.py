"""The local backend inside the test process, as a toolkit `Client`: the app's test client as its session."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi.testclient import TestClient

from local_backend.app import create_app
from local_backend.clock import FixedClock
from local_backend.config import Settings
from toolkit import Client


class InProcessSession:
    """A `requests`-like session over the app's test client.

    Unlike ``requests``, the test client takes no timeout, wants raw bodies as ``content`` and replaces a
    URL's query string with ``params``, so ``params`` are appended to the URL here as ``requests`` does.
    """

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.paths: list[str] = []

    def request(self, method: str, url: str, *, timeout: Any = None, data: Any = None, params: Any = None, **kwargs):
        if params:
            url += ("&" if "?" in url else "?") + urlencode(
                {key: value for key, value in params.items() if value is not None}
            )
        if isinstance(data, str | bytes):
            kwargs["content"] = data
        elif data is not None:
            kwargs["data"] = data
        self.paths.append(url.split("?")[0].removeprefix("http://testserver"))
        return self.client.request(method, url, **kwargs)

    def close(self) -> None:
        pass


def in_process_client(test_client: TestClient, key: str, project_id: int) -> Client:
    """A toolkit client talking to ``test_client``'s app."""
    return Client(
        base_url="http://testserver", api_key=key, project_id=project_id, session=InProcessSession(test_client)
    )


def in_process_app(db_path: Any, clock: FixedClock) -> TestClient:
    """The app over ``db_path`` (already migrated) with the fixed clock, errors answered as the server does."""
    return TestClient(create_app(Settings(db_path=db_path, clock=clock)), raise_server_exceptions=False)
