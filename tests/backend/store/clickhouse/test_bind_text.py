"""Parameters reach chdb as the escaped text a server reads from ``param_NAME``, so values come back intact."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from typing import Any

import pytest

from local_backend.store.engine.clickhouse import client as client_module
from local_backend.store.engine.clickhouse.client import ChdbClient, bind_text
from tests.backend.store.clickhouse.chdb_session import fresh_chdb_client

AWKWARD = 'it\'s "C:\\new\\table"\twith `ticks`\nand \\N'


@pytest.fixture
def chdb() -> Iterator[ChdbClient]:
    client = fresh_chdb_client("bind")
    yield client
    client.command(f"DROP DATABASE IF EXISTS `{client.database}`")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        ("it's", "it\\'s"),
        ("a\\b", "a\\\\b"),
        ("tab\tnew\nline", "tab\\tnew\\nline"),
        (None, "\\N"),
        (True, "1"),
        (False, "0"),
        (7, "7"),
        (1.5, "1.5"),
        (["a'b", None, "c\\d"], "['a\\'b', NULL, 'c\\\\d']"),
        ((1, "x"), "(1, 'x')"),
    ],
)
def test_values_become_the_text_a_server_parses(value: Any, text: str) -> None:
    assert bind_text(value) == text


def test_the_docstring_examples_hold() -> None:
    assert doctest.testmod(client_module).failed == 0


def test_a_string_with_quotes_backslashes_and_control_characters_comes_back_intact(chdb: ChdbClient) -> None:
    rows = chdb.query_rows(
        "SELECT {v:String}, {n:Nullable(String)}, {a:Array(String)}, {b:Bool}, {i:UInt8}",
        {"v": AWKWARD, "n": None, "a": [AWKWARD, "x"], "b": True, "i": False},
    )
    assert rows == [(AWKWARD, None, [AWKWARD, "x"], True, 0)]


def test_a_bound_value_matches_the_stored_row_and_nothing_else(chdb: ChdbClient) -> None:
    import pyarrow as pa

    chdb.command(f"CREATE TABLE `{chdb.database}`.t (k Int64, v String) ENGINE = MergeTree ORDER BY k")
    chdb.insert_arrow("t", pa.table({"k": [1, 2], "v": [AWKWARD, "it's"]}))
    assert chdb.query_rows(f"SELECT k FROM `{chdb.database}`.t WHERE v = {{v:String}}", {"v": AWKWARD}) == [(1,)]
    assert chdb.query_rows(f"SELECT k FROM `{chdb.database}`.t WHERE v = {{v:String}}", {"v": "x' OR '1'='1"}) == []
