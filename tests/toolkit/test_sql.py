"""`Client.sql` against PostHog's query API, offline: answers written by hand in the shape of PostHog's
`HogQLQueryResponse` (``results``, ``columns``, ``types`` in ClickHouse names, ``hogql``, ``clickhouse``,
``timezone``, ...). The paged tests answer from a table of rows as PostHog would run the wrapped query:
the page's ``LIMIT``/``OFFSET`` read from the text sent."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from toolkit import Client, ValidationError
from toolkit.frames import sql_frame
from toolkit.sql import MAX_ROWS, hogql_value, paged_query, placeholder_names

from .fakes import Call, FakeSession

QUERY_PATH = "/api/projects/1/query/"
PAGE = re.compile(r"\nlimit (\d+) offset (\d+)$|\) as t limit (\d+) offset (\d+)$")


def _answer(rows, *, columns=("n",), types=(("n", "UInt64"),), timezone="UTC", query="select n from t"):
    return {
        "results": [list(row) for row in rows],
        "columns": list(columns),
        "types": [list(pair) for pair in types],
        "hogql": query,
        "clickhouse": "SELECT n FROM t",
        "sqlite": None,
        "timings": [],
        "limit": None,
        "offset": None,
        "hasMore": None,
        "timezone": timezone,
        "error": None,
        "modifiers": {},
        "query_status": None,
        "is_cached": False,
    }


def _rows_server(rows):
    """A query endpoint that serves ``rows`` (one UInt64 column ``n``) by the page the text asks."""

    def answer(call: Call):
        limit, offset = _page(call)
        return 200, _answer([[value] for value in rows[offset : offset + limit]])

    return answer


def _page(call: Call) -> tuple[int, int]:
    limit, offset = (int(part) for part in PAGE.search(call.json["query"]["query"]).groups() if part is not None)
    return limit, offset


def _pages(fake: FakeSession) -> list[tuple[int, int]]:
    return [_page(call) for call in fake.calls]


def test_every_clickhouse_type_becomes_its_dtype(client, fake):
    types = [
        ["event", "String"],
        ["c", "UInt64"],
        ["delta", "Nullable(Int32)"],
        ["share", "Float64"],
        ["paid", "Bool"],
        ["day", "Date"],
        ["at", "DateTime64(6, 'Europe/Berlin')"],
        ["at_utc", "DateTime('UTC')"],
        ["tags", "Array(String)"],
        ["browser", "LowCardinality(Nullable(String))"],
        ["amount", "Decimal(10, 2)"],
        ["id", "UUID"],
    ]
    rows = [
        [
            "signup",
            3,
            -2,
            0.25,
            True,
            "2026-01-05",
            "2026-01-05T10:30:00.123456+01:00",
            "2026-01-05T09:30:00Z",
            ["a", "b"],
            "Chrome",
            "12.50",
            "0190a3c4-0000-7000-8000-000000000001",
        ],
        [None, 0, None, None, None, None, None, None, [], None, None, None],
    ]
    fake.routes[("POST", QUERY_PATH)] = (200, _answer(rows, columns=[name for name, _ in types], types=types))
    frame = client.sql("select ...", progress=False)
    tags = np.empty(2, dtype=object)
    tags[:] = [["a", "b"], []]
    expected = pd.DataFrame(
        {
            "event": pd.array(["signup", None], dtype="string"),
            "c": pd.array([3, 0], dtype="Int64"),
            "delta": pd.array([-2, None], dtype="Int64"),
            "share": pd.array([0.25, None], dtype="Float64"),
            "paid": pd.array([True, None], dtype="boolean"),
            "day": pd.to_datetime(["2026-01-05", None]).as_unit("ns"),
            # 10:30 at +01:00 is 10:30 in Berlin in January; the UTC column stays in UTC
            "at": pd.Series([pd.Timestamp("2026-01-05 10:30:00.123456", tz="Europe/Berlin"), pd.NaT]).astype(
                "datetime64[ns, Europe/Berlin]"
            ),
            "at_utc": pd.Series([pd.Timestamp("2026-01-05 09:30", tz="UTC"), pd.NaT]).astype("datetime64[ns, UTC]"),
            "tags": tags,
            "browser": pd.array(["Chrome", None], dtype="string"),
            "amount": pd.array([12.5, None], dtype="Float64"),
            "id": pd.array(["0190a3c4-0000-7000-8000-000000000001", None], dtype="string"),
        }
    )
    pd.testing.assert_frame_equal(frame, expected)
    assert frame.attrs["hogql"] == "select n from t"
    assert frame.attrs["clickhouse"] == "SELECT n FROM t"
    assert "sqlite" not in frame.attrs
    assert frame.attrs["types"]["at"] == "DateTime64(6, 'Europe/Berlin')"


def test_times_without_a_zone_in_their_type_are_in_the_project_timezone(client, fake):
    answer = _answer(
        [["2026-03-29T00:30:00Z"], ["2026-03-29T01:30:00Z"]],
        columns=["at"],
        types=[["at", "DateTime64(6)"]],
        timezone="Europe/Berlin",
    )
    fake.routes[("POST", QUERY_PATH)] = (200, answer)
    frame = client.sql("select timestamp as at from events", progress=False)
    assert str(frame["at"].dtype) == "datetime64[ns, Europe/Berlin]"
    # the clocks went forward at 02:00 that night: 00:30 UTC is 01:30 CET, 01:30 UTC is 03:30 CEST
    assert [stamp.strftime("%H:%M %Z") for stamp in frame["at"]] == ["01:30 CET", "03:30 CEST"]


def test_an_empty_answer_keeps_its_columns_and_dtypes(client, fake):
    answer = _answer([], columns=["event", "c"], types=[["event", "String"], ["c", "UInt64"]])
    fake.routes[("POST", QUERY_PATH)] = (200, answer)
    frame = client.sql("select event, count() as c from events where 1 = 0 group by event", progress=False)
    assert list(frame.columns) == ["event", "c"]
    assert frame.dtypes.astype(str).tolist() == ["string", "Int64"]
    assert len(frame) == 0


def test_columns_of_the_same_name_stay_apart():
    answer = _answer([[1, "x"]], columns=["a", "a"], types=[["a", "UInt8"], ["a", "String"]])
    frame = sql_frame(answer)
    assert list(frame.columns) == ["a", "a"]
    assert frame.iloc[0].tolist() == [1, "x"]


def test_more_than_posthogs_default_hundred_rows_come_back_in_one_request(client, fake):
    fake.routes[("POST", QUERY_PATH)] = _rows_server(list(range(1, 121)))
    frame = client.sql("select n from t order by n", progress=False)
    assert frame["n"].tolist() == list(range(1, 121))
    assert _pages(fake) == [(MAX_ROWS, 0)]
    sent = fake.calls[0].json
    assert sent["query"]["kind"] == "HogQLQuery"
    assert sent["query"]["query"] == "select n from t order by n\nlimit 50000 offset 0"
    assert "values" not in sent["query"]


def test_pages_follow_each_other_until_a_short_page_without_losing_or_doubling_a_row(client, fake):
    fake.routes[("POST", QUERY_PATH)] = _rows_server([10, 20, 30, 40, 50])
    frame = client.sql("select n from t order by n", page_size=2, progress=False)
    assert frame["n"].tolist() == [10, 20, 30, 40, 50]
    assert _pages(fake) == [(2, 0), (2, 2), (2, 4)]


def test_rows_filling_the_last_page_exactly_need_one_empty_page_to_end(client, fake):
    fake.routes[("POST", QUERY_PATH)] = _rows_server([10, 20, 30, 40])
    frame = client.sql("select n from t order by n", page_size=2, progress=False)
    assert frame["n"].tolist() == [10, 20, 30, 40]
    assert _pages(fake) == [(2, 0), (2, 2), (2, 4)]


def test_a_page_the_server_cut_short_with_has_more_is_followed_by_the_next(client, fake):
    rows = [10, 20, 30, 40, 50]

    def answer(call: Call):
        # a server answering at most 2 rows a page, whatever the page asks, and saying so with hasMore
        limit, offset = _page(call)
        page = rows[offset : offset + min(limit, 2)]
        return 200, {**_answer([[value] for value in page]), "hasMore": offset + len(page) < len(rows)}

    fake.routes[("POST", QUERY_PATH)] = answer
    frame = client.sql("select n from t order by n", page_size=4, progress=False)
    assert frame["n"].tolist() == [10, 20, 30, 40, 50]
    assert _pages(fake) == [(4, 0), (4, 2), (4, 4)]


def test_an_empty_page_ends_the_rows_even_with_has_more(client, fake):
    fake.routes[("POST", QUERY_PATH)] = (200, {**_answer([]), "hasMore": True})
    assert len(client.sql("select n from t", progress=False)) == 0
    assert len(fake.calls) == 1


def test_limit_returns_the_first_rows_and_asks_no_more(client, fake):
    fake.routes[("POST", QUERY_PATH)] = _rows_server([10, 20, 30, 40, 50])
    frame = client.sql("select n from t order by n", limit=3, page_size=2, progress=False)
    assert frame["n"].tolist() == [10, 20, 30]
    assert _pages(fake) == [(2, 0), (1, 2)]


def test_limit_zero_gives_the_columns_and_no_rows(client, fake):
    fake.routes[("POST", QUERY_PATH)] = _rows_server([10, 20])
    frame = client.sql("select n from t", limit=0, progress=False)
    assert len(frame) == 0 and list(frame.columns) == ["n"]
    assert str(frame["n"].dtype) == "Int64"
    assert _pages(fake) == [(0, 0)]


def test_several_pages_of_an_unordered_query_warn_that_rows_may_be_missed(client, fake):
    fake.routes[("POST", QUERY_PATH)] = _rows_server([1, 2, 3])
    with pytest.warns(UserWarning, match="no ORDER BY"):
        client.sql("select n from t", page_size=2, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # one page needs no order, and an ORDER BY inside a window or a subquery does not order the result
        client.sql("select n from t", page_size=5, progress=False)
        client.sql("select n from t order by n desc -- newest first", page_size=2, progress=False)
    with pytest.warns(UserWarning, match="no ORDER BY"):
        client.sql("select n, row_number() over (order by n) from (select n from t order by n)", page_size=2)


def test_placeholders_are_sent_as_values_and_never_pasted(client, fake):
    fake.routes[("POST", QUERY_PATH)] = (200, _answer([[4]]))
    query = "select count() as n from events where event = {name} and timestamp >= {since} and event in {names}"
    client.sql(
        query,
        progress=False,
        name="sign'up",
        since=pd.Timestamp("2026-01-05 10:00", tz="Europe/Berlin"),
        names=("a", "b"),
        values={"limit": 5},
    )
    node = fake.calls[0].json["query"]
    assert node["values"] == {
        "limit": 5,
        "name": "sign'up",
        "since": "2026-01-05T10:00:00+01:00",
        "names": ["a", "b"],
    }
    assert query in node["query"]
    assert "sign'up" not in node["query"]


@pytest.mark.parametrize(
    "value, sent",
    [
        (np.int64(7), 7),
        (np.float64(0.5), 0.5),
        (float("nan"), None),
        (pd.NaT, None),
        (pd.Timestamp("2026-01-05"), "2026-01-05T00:00:00"),
        ({"b", "a"}, ["a", "b"]),
        (pd.Series([1, 2]), [1, 2]),
        (True, True),
    ],
)
def test_placeholder_values_as_json(value, sent):
    assert hogql_value(value) == sent


def test_a_value_that_is_not_a_constant_is_refused():
    with pytest.raises(TypeError, match="placeholder value"):
        hogql_value(object())


def test_placeholders_are_found_outside_literals_and_comments():
    query = "select {a}, '{b}', `{c}`, \"{d}\" /* {e} */ -- {f}\nfrom events where x = {g} and y = {a}"
    assert placeholder_names(query) == ["a", "g"]


@pytest.mark.parametrize(
    "query, page",
    [
        # the page's clauses go after the query, on a line of their own (a trailing comment cannot hide them)
        ("select 1 -- one;\n;", "select 1 -- one;\nlimit 5 offset 10"),
        ("select n from t order by n desc", "select n from t order by n desc\nlimit 5 offset 10"),
        # a LIMIT inside a subquery or a window is not the query's own
        ("select n from (select n from t limit 3)", "select n from (select n from t limit 3)\nlimit 5 offset 10"),
        ("select 'limit' as l", "select 'limit' as l\nlimit 5 offset 10"),
        # a query with its own LIMIT keeps it inside the page
        ("select n from t limit 12", "select * from (\nselect n from t limit 12\n) as t limit 5 offset 10"),
        ("select n from t LIMIT 3 BY n", "select * from (\nselect n from t LIMIT 3 BY n\n) as t limit 5 offset 10"),
        # a UNION's LIMIT would bind to its last select
        ("select 1 union all select 2", "select * from (\nselect 1 union all select 2\n) as t limit 5 offset 10"),
    ],
)
def test_the_page_of_a_query(query, page):
    assert paged_query(query, limit=5, offset=10) == page


def test_a_query_with_its_own_limit_is_read_in_pages_within_it(client, fake):
    rows = [10, 20, 30, 40, 50]

    def answer(call: Call):
        # the server applies the inner LIMIT 3 first, then the page
        limit, offset = _page(call)
        assert "limit 3\n) as t" in call.json["query"]["query"]
        return 200, _answer([[value] for value in rows[:3][offset : offset + limit]])

    fake.routes[("POST", QUERY_PATH)] = answer
    frame = client.sql("select n from t order by n limit 3", page_size=2, progress=False)
    assert frame["n"].tolist() == [10, 20, 30]
    assert _pages(fake) == [(2, 0), (2, 2)]


def test_a_hogql_error_is_a_validation_error_with_the_servers_detail(client, fake):
    error = {
        "type": "validation_error",
        "code": "invalid_input",
        "detail": "Unable to resolve field: evnt",
        "attr": None,
    }
    fake.routes[("POST", QUERY_PATH)] = (400, error)
    with pytest.raises(ValidationError, match="Unable to resolve field: evnt") as caught:
        client.sql("select evnt from events", progress=False)
    assert caught.value.status == 400 and caught.value.code == "invalid_input"


def test_an_answer_carrying_an_error_is_a_validation_error(client, fake):
    fake.routes[("POST", QUERY_PATH)] = (200, {**_answer([]), "error": "Syntax error at line 1, column 7"})
    with pytest.raises(ValidationError, match="Syntax error at line 1"):
        client.sql("select from", progress=False)


@pytest.mark.parametrize(
    "query, options, message",
    [
        ("", {}, "text of a select"),
        (" ; ", {}, "text of a select"),
        ("select 1", {"limit": -1}, "limit must be 0 or more"),
        ("select 1", {"page_size": 0}, "page_size must be between"),
        ("select 1", {"page_size": MAX_ROWS + 1}, "page_size must be between"),
    ],
)
def test_bad_arguments_are_refused_before_a_request(client, fake, query, options, message):
    with pytest.raises(ValueError, match=message):
        client.sql(query, **options)
    assert fake.calls == []


def test_the_key_and_project_go_with_every_page(fake):
    fake.routes[("POST", "/api/projects/7/query/")] = _rows_server([1, 2, 3])
    client = Client(base_url="https://posthog.example.com", api_key="phx_other", project_id=7, session=fake)
    client.sql("select n from t order by n", page_size=2, progress=False)
    assert [call.headers["Authorization"] for call in fake.calls] == ["Bearer phx_other"] * 2
