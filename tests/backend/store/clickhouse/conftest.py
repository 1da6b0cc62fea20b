"""A ClickHouse database per test, in the one chdb session of the run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from local_backend.store.engine.clickhouse.client import ChdbClient
from tests.backend.store.clickhouse.mirror import chdb_client, release_database


@pytest.fixture
def ch_client() -> Iterator[ChdbClient]:
    client = chdb_client()
    yield client
    release_database(client)
