"""Fixtures shared by every test: a fresh database per test, a fixed clock, and keys of any scope.

The database of a test is a copy of one migrated once per run (:func:`migrated_template`): a copy takes about a
millisecond where running the migrations takes thirty. Its connection (``conn``) and app (``client``) carry the
event engine of :func:`event_engine`: None, the database's recorded engine opened as the app opens it; a test
directory that runs on several engines overrides it with the engine it builds.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import pytest
from fastapi.testclient import TestClient

from local_backend.app import create_app
from local_backend.clock import FixedClock, format_instant
from local_backend.config import Settings
from local_backend.store.accounts import create_personal_api_key, get_or_create_user
from local_backend.store.engine.choice import choose_engine, open_database
from local_backend.store.engine.interface import EventEngine
from local_backend.store.engine.spec import Engine
from local_backend.store.migrations import migrate
from local_backend.store.projects import create_project
from tests.factories import NOW
from tests.route_contexts import share_route_contexts

matplotlib.use("Agg")
share_route_contexts()

# Fixtures that start the ClickHouse HTTP shim (tests/clickhouse_shim.py), a server process on a loopback port.
SHIM_FIXTURES = frozenset({"shim_server", "server_port", "cluster_port"})


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that reaches a ClickHouse server through the shim, by one of :data:`SHIM_FIXTURES` or as its
    ``clickhouse-http`` engine parameter, is ``live``: ``make test`` runs it, ``make test-fast`` does not."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        on_server = any(isinstance(value, str) and value == "clickhouse-http" for value in params.values())
        if on_server or SHIM_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.live)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with every migration applied, made once per run (closed, so the file holds everything)."""
    path = tmp_path_factory.mktemp("template") / "migrated.db"
    migrate(path)
    return path


@pytest.fixture
def db_path(tmp_path: Path, migrated_template: Path) -> Path:
    path = tmp_path / "test.db"
    shutil.copyfile(migrated_template, path)
    return path


@pytest.fixture
def engine_spec() -> Engine | None:
    """An engine to record in the test database before its connection and app open it (None: keep SQLite)."""
    return None


@pytest.fixture
def event_engine(db_path: Path, engine_spec: Engine | None) -> EventEngine | None:
    """The engine the test's connection and app carry (None: the database's recorded one, opened)."""
    if engine_spec is None:
        return None
    conn = open_database(db_path)
    try:
        choose_engine(conn, engine_spec)
        return conn.engine
    finally:
        conn.close()


@pytest.fixture
def conn(db_path: Path, event_engine: EventEngine | None) -> Iterator:
    connection = open_database(db_path, event_engine)
    yield connection
    connection.close()


@pytest.fixture
def client(db_path: Path, clock: FixedClock, event_engine: EventEngine | None) -> Iterator[TestClient]:
    app = create_app(Settings(db_path=db_path, clock=clock), engine=event_engine)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@dataclass
class World:
    """Two projects, one analyst, and a way to mint keys with any scopes."""

    project_id: int
    other_project_id: int
    user_id: int
    project_token: str
    make_key: Callable[..., str]
    key: str  # all scopes, any project

    def headers(self, key: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {key or self.key}"}


@pytest.fixture
def world(conn, clock: FixedClock) -> World:
    now = format_instant(clock.now())
    project = create_project(conn, name="Main", timezone="UTC", now=now)
    other = create_project(conn, name="Other", timezone="Europe/Berlin", now=now)
    user = get_or_create_user(conn, email="analyst@example.com", now=now, current_project_id=project["id"])

    def make_key(*scopes: str, projects: list[int] | None = None, email: str | None = None) -> str:
        owner = user if email is None else get_or_create_user(conn, email=email, now=now)
        return create_personal_api_key(
            conn, user_id=owner["id"], scopes=list(scopes), scoped_projects=projects, label="test", now=now
        )

    return World(
        project_id=project["id"],
        other_project_id=other["id"],
        user_id=user["id"],
        project_token=project["api_token"],
        make_key=make_key,
        key=make_key("*"),
    )
