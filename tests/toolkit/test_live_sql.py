"""`Client.sql` through the local backend in the test process, on SQLite and on chdb (embedded ClickHouse):
HogQL over the hand-written events of `tests.toolkit.engagement_events` (its docstring has the table), every
number counted from that table.

``view``: ann 4 (4, 5, 6, 8 January, 10:00), dee 2 (5 and 7 January, 09:00), bob 2 (6 January, 11:00 and
15:00), cy 1 (8 January, 12:00): 9 views; eve's ``other`` on 6 January at 10:30: 10 events in all. The
project's timezone is UTC.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest

from local_backend.store.engine.clickhouse.client import ChdbClient
from local_backend.store.engine.spec import Engine, parse_engine
from tests.backend.store.clickhouse.mirror import pooled_database_name, release_database
from toolkit import Client, ValidationError

from .inprocess import InProcessSession


@pytest.fixture(scope="module")
def chdb_folder(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The process's chdb folder: the one already open if another test opened one first (one per process)."""
    return ChdbClient.open_folder() or str(tmp_path_factory.mktemp("chdb"))


@pytest.fixture(params=["sqlite", "chdb"])
def engine_spec(request: pytest.FixtureRequest) -> Iterator[Engine | None]:
    """The engine recorded in the test's database before its app opens it: SQLite, or a chdb database."""
    if request.param == "sqlite":
        yield None
        return
    pytest.importorskip("chdb")
    folder = request.getfixturevalue("chdb_folder")
    name = pooled_database_name()
    yield parse_engine(f"chdb:{folder}?database={name}")
    release_database(ChdbClient.open(folder, database=name))


@pytest.fixture
def analyst(engagement_client: Client) -> Client:
    return engagement_client


def _query_calls(client: Client) -> int:
    session = client.session
    assert isinstance(session, InProcessSession)
    return sum(path.endswith("/query/") for path in session.paths)


def test_counts_by_event_with_their_dtypes(analyst, engine_spec):
    frame = analyst.sql("select event, count() as c from events group by event order by c desc", progress=False)
    # the engine the answer names is the one the test chose
    assert ("clickhouse" in frame.attrs, "sqlite" in frame.attrs) == (engine_spec is not None, engine_spec is None)
    assert frame["event"].tolist() == ["view", "other"]
    assert frame["c"].tolist() == [9, 1]
    assert frame.dtypes.astype(str).tolist() == ["string", "Int64"]


def test_times_come_back_tz_aware_in_the_project_timezone(analyst):
    frame = analyst.sql(
        "select timestamp, properties.plan as plan from events where distinct_id = 'dee' order by timestamp",
        progress=False,
    )
    assert frame["timestamp"].tolist() == [
        pd.Timestamp("2026-01-05 09:00", tz="UTC"),
        pd.Timestamp("2026-01-07 09:00", tz="UTC"),
    ]
    assert str(frame["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert frame["plan"].tolist() == ["pro", "pro"]


def test_pages_read_every_row_once(analyst):
    before = _query_calls(analyst)
    frame = analyst.sql(
        "select distinct_id, timestamp from events order by timestamp, distinct_id", page_size=3, progress=False
    )
    # 10 events in pages of 3: 3, 3, 3 and a short page of 1
    assert _query_calls(analyst) - before == 4
    assert frame["distinct_id"].tolist() == ["ann", "dee", "ann", "ann", "eve", "bob", "bob", "dee", "ann", "cy"]


def test_limit_returns_the_first_rows(analyst):
    frame = analyst.sql("select distinct_id from events order by timestamp, distinct_id", limit=2, progress=False)
    assert frame["distinct_id"].tolist() == ["ann", "dee"]


def test_placeholders_bind_values_a_quote_included(analyst):
    query = "select count() as c from events where event = {name}"
    assert analyst.sql(query, name="view", progress=False)["c"].tolist() == [9]
    assert analyst.sql(query, name="vi'ew", progress=False)["c"].tolist() == [0]


def test_an_unknown_field_is_the_servers_400(analyst):
    with pytest.raises(ValidationError) as caught:
        analyst.sql("select no_such_field from events", progress=False)
    assert caught.value.status == 400 and caught.value.detail


def test_more_rows_than_posthogs_default_hundred_come_back_whole(analyst):
    ticks = pd.DataFrame(
        {
            "event": ["tick"] * 150,
            "distinct_id": [f"t{index:03d}" for index in range(150)],
            "timestamp": pd.Timestamp("2026-01-09 08:00") + pd.to_timedelta(range(150), unit="s"),
        }
    )
    analyst.load_events(ticks, progress=False)
    query = "select distinct_id from events where event = 'tick' order by timestamp"
    # the API keeps PostHog's default: a query without a LIMIT answers its first 100 rows
    raw = analyst.request(
        "POST", analyst.project_path("query/"), json={"query": {"kind": "HogQLQuery", "query": query}}
    )
    assert len(raw["results"]) == 100
    frame = analyst.sql(query, progress=False)
    assert frame["distinct_id"].tolist() == [f"t{index:03d}" for index in range(150)]
