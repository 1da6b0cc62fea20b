"""Fixtures of the toolkit tests: a fake session (`tests.toolkit.fakes.FakeSession`) and a client using it; a
client of the local backend in the test process holding the stickiness and lifecycle events
(`tests.toolkit.engagement_events`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from toolkit import Client

from .engagement_events import EVENTS
from .fakes import BASE, KEY, FakeSession
from .inprocess import in_process_app, in_process_client


@pytest.fixture
def fake() -> FakeSession:
    return FakeSession()


@pytest.fixture
def client(fake: FakeSession) -> Client:
    return Client(base_url=BASE, api_key=KEY, project_id=1, session=fake)


@pytest.fixture
def engagement_client(db_path, clock, world) -> Iterator[Client]:
    with in_process_app(db_path, clock) as test_client:
        analyst = in_process_client(test_client, world.key, world.project_id)
        analyst.load_events(EVENTS, progress=False)
        yield analyst
