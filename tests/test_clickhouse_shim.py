"""The test shim reads requests as ClickHouse's HTTP handler does (pure parsing, no socket, no engine)."""

from __future__ import annotations

import gzip

from urllib3 import encode_multipart_formdata

from tests.clickhouse_shim import parse_request


def test_the_query_is_the_url_parameter_followed_by_the_body() -> None:
    request = parse_request("/?query=SELECT&database=d&param_x=a%5C%27b&max_threads=2", {}, b"{x:String}")
    assert (request.query, request.database, request.params) == ("SELECT {x:String}", "d", {"x": "a\\'b"})
    assert request.settings == {"max_threads": "2"}
    assert request.data is None


def test_transport_parameters_are_not_settings() -> None:
    request = parse_request("/?wait_end_of_query=1&query_id=q&session_id=s&default_format=Native", {}, b"SELECT 1")
    assert request.settings == {}
    assert request.default_format == "Native"


def test_an_insert_with_a_format_takes_the_body_as_its_rows() -> None:
    request = parse_request("/?query=INSERT+INTO+d.t+%28%60a%60%29+FORMAT+Arrow", {}, b"\x00rows")
    assert (request.query, request.data) == ("INSERT INTO d.t (`a`) FORMAT Arrow", b"\x00rows")


def test_a_compressed_body_is_read_uncompressed() -> None:
    request = parse_request("/", {"content-encoding": "gzip"}, gzip.compress(b"SELECT 2"))
    assert request.query == "SELECT 2"


def test_long_parameters_arrive_as_form_fields() -> None:
    body, content_type = encode_multipart_formdata({"query": "SELECT {v:String}", "param_v": "it\\'s" * 1000})
    request = parse_request("/?database=d", {"content-type": content_type}, body)
    assert (request.query, request.params, request.database) == ("SELECT {v:String}", {"v": "it\\'s" * 1000}, "d")
