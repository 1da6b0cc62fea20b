"""Decoding capture bodies and finding their token, as pure functions (no server)."""

from __future__ import annotations

import base64
import gzip
import json
import zlib

import pytest

from local_backend.errors import PayloadTooLarge
from local_backend.ingestion.payload import PayloadError, decode_body, read_batch

FORM = "application/x-www-form-urlencoded"
EVENT = {"event": "a", "distinct_id": "u", "properties": {"token": "phc_event", "q": "a+b?"}}


def decode(body: bytes, content_type: str = "application/json", compression: str = "", limit: int = 10_000):
    return decode_body(body, content_type=content_type, compression=compression, limit=limit)


def test_base64_with_plus_signs_left_raw_in_a_form_survives_the_form_decoding():
    # '~~~' encodes to base64 with a '+' at one of the three alignments; take the first that has one
    payloads = [{**EVENT, "pad": "~" * n + "~~~"} for n in range(3)]
    payload, encoded = next((p, e) for p in payloads if "+" in (e := base64.b64encode(json.dumps(p).encode()).decode()))
    data, fields = decode(f"data={encoded}&ver=1".encode(), FORM)
    assert data == payload
    assert fields == {"ver": "1"}


def test_gzip_bytes_carried_raw_in_a_form_field():
    raw = gzip.compress(json.dumps(EVENT).encode())
    body = b"compression=gzip-js&data=" + bytes(raw).replace(b"%", b"%25").replace(b"&", b"%26").replace(b"+", b"%2B")
    data, _ = decode(body, FORM)
    assert data == EVENT


def test_zlib_and_gzip_headers_are_both_read():
    assert decode(zlib.compress(json.dumps(EVENT).encode()), compression="gzip")[0] == EVENT
    assert decode(gzip.compress(json.dumps(EVENT).encode()), compression="GZIP-JS")[0] == EVENT


def test_decompression_stops_at_the_limit():
    with pytest.raises(PayloadTooLarge):
        decode(gzip.compress(b"[" + b" " * 20_000 + b"]"), compression="gzip", limit=10_000)
    assert decode(gzip.compress(b"[" + b" " * 9_000 + b"]"), compression="gzip", limit=10_000)[0] == []


def test_utf8_text_in_a_form_is_kept():
    data, _ = decode(b"data=" + json.dumps({"event": "café"}, ensure_ascii=False).encode(), FORM)
    assert data == {"event": "café"}


def test_undecodable_bytes_are_a_payload_error():
    with pytest.raises(PayloadError):
        decode(b"\xff\xfe\x00garbage")


@pytest.mark.parametrize(
    ("payload", "fields", "query", "token"),
    [
        ({"api_key": "phc_body", "batch": [EVENT]}, {}, {"token": "phc_query"}, "phc_body"),
        ({"token": "phc_body", "batch": [EVENT]}, {}, {}, "phc_body"),
        ({"batch": [EVENT]}, {}, {}, "phc_event"),
        ({"batch": [{**EVENT, "api_key": "phc_top"}]}, {}, {}, "phc_top"),
        ([{"event": "a", "distinct_id": "u"}], {"api_key": "phc_form"}, {"token": "phc_query"}, "phc_form"),
        ({"event": "a", "distinct_id": "u"}, {}, {"api_key": "phc_query"}, "phc_query"),
        ({"event": "a", "distinct_id": "u", "api_key": ""}, {}, {}, None),
        ({"batch": []}, {}, {}, None),
    ],
)
def test_token_precedence(payload, fields, query, token):
    assert read_batch(payload, fields, query).token == token


def test_send_time_from_the_query_wins_and_a_bad_one_is_ignored():
    payload = {"batch": [], "sent_at": "2026-01-15T12:00:00Z"}
    assert read_batch(payload, {}, {"_": "1768478400000"}).sent_at == 1_768_478_400_000
    assert read_batch(payload, {}, {"_": "soon"}).sent_at == "2026-01-15T12:00:00Z"


def test_only_a_literal_true_marks_a_historical_migration():
    assert read_batch({"batch": [], "historical_migration": True}, {}, {}).historical_migration is True
    assert read_batch({"batch": [], "historical_migration": "yes"}, {}, {}).historical_migration is False
