"""Fixtures of the toolkit tests: a fake session (`tests.toolkit.fakes.FakeSession`) and a client using it."""

from __future__ import annotations

import pytest

from toolkit import Client

from .fakes import BASE, KEY, FakeSession


@pytest.fixture
def fake() -> FakeSession:
    return FakeSession()


@pytest.fixture
def client(fake: FakeSession) -> Client:
    return Client(base_url=BASE, api_key=KEY, project_id=1, session=fake)
