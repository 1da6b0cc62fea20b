"""Fixtures of the builder tests: the project of `fake_project` behind a client; plots drawn with Agg."""

from __future__ import annotations

import matplotlib
import pytest

from toolkit import Client

from ..fakes import BASE, KEY, FakeSession
from .fake_project import project_session

matplotlib.use("Agg")


@pytest.fixture
def fake() -> FakeSession:
    return project_session()


@pytest.fixture
def client(fake: FakeSession) -> Client:
    return Client(base_url=BASE, api_key=KEY, project_id=1, session=fake)
