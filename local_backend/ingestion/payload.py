"""A capture request body, as PostHog's SDKs send it, decoded into a batch of events.

Bodies come as JSON, or as a form with the payload in ``data`` (plain JSON or base64 of it, as posthog-js
sends); compressed with gzip when the request says so with ``Content-Encoding: gzip`` or
``?compression=gzip-js`` / ``gzip``. The payload is one event, a list of events, or ``{"batch": [...]}``
with the project token in ``api_key`` (or ``token``) and a ``sent_at`` for the whole batch.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from ..errors import APIError, PayloadTooLarge

__all__ = ["CaptureBatch", "decode_body", "read_batch", "PayloadError"]

_GZIP = ("gzip", "gzip-js")
_TOKEN_KEYS = ("api_key", "token", "$token")


class PayloadError(APIError):
    """A body that cannot be read as events (400 ``invalid_payload``)."""

    type = "validation_error"
    default_code = "invalid_payload"


@dataclass
class CaptureBatch:
    """The events of one request with what applies to all of them."""

    events: list[Any]
    token: str | None
    sent_at: Any = None
    historical_migration: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _gunzip(raw: bytes, limit: int) -> bytes:
    """Decompress, refusing output past ``limit`` bytes (a small body can expand to gigabytes)."""
    decompressor = zlib.decompressobj(wbits=zlib.MAX_WBITS | 32)  # gzip or zlib header, detected
    try:
        out = decompressor.decompress(raw, limit + 1)
    except zlib.error as error:
        raise PayloadError(f"Failed to decompress data: {error}.") from None
    if len(out) > limit or decompressor.unconsumed_tail:
        raise PayloadTooLarge(f"Decompressed request body is larger than {limit} bytes.")
    if not decompressor.eof:
        raise PayloadError("Failed to decompress data: the compressed body is incomplete.")
    return out


def _parse_json(raw: bytes | str) -> Any:
    # NaN and Infinity are not JSON values; as PostHog does, they are read as null rather than failing the batch.
    try:
        return json.loads(raw, parse_constant=lambda _: None)
    except RecursionError:
        raise PayloadError("Malformed request data: nested too deeply.") from None


def _from_base64(text: str) -> Any:
    cleaned = text.strip().replace(" ", "+")  # a form decoder turned '+' into spaces
    cleaned += "=" * (-len(cleaned) % 4)
    try:
        decoded = base64.b64decode(cleaned, validate=False)
        return _parse_json(decoded)
    except (binascii.Error, ValueError) as error:
        raise PayloadError(f"Malformed request data: {error}.") from None


def decode_body(body: bytes, *, content_type: str, compression: str, limit: int) -> tuple[Any, dict[str, str]]:
    """The payload of a body, and the form fields other than ``data`` (where a token may travel)."""
    compression = compression.strip().lower()
    if compression == "lz64":
        raise PayloadError("lz64 compression is not supported; send gzip (compression=gzip-js) or plain JSON.")
    fields: dict[str, str] = {}
    media = content_type.split(";")[0].strip().lower()
    if media in ("application/x-www-form-urlencoded", "multipart/form-data"):
        if media == "multipart/form-data":
            raise PayloadError("Send the payload as JSON or as a url-encoded form with a data field.")
        try:
            # latin-1 maps every byte to one character, so the field's bytes come back exactly with encode()
            form = parse_qs(body.decode("latin-1"), keep_blank_values=True, encoding="latin-1")
        except ValueError as error:
            raise PayloadError(f"Malformed form: {error}.") from None
        fields = {key: values[-1] for key, values in form.items() if values}
        compression = fields.get("compression", compression).strip().lower() or compression
        data = fields.pop("data", "")
        if not data:
            raise PayloadError("No data found. Send the events in the data field of the form.", code="no_data")
        if compression in _GZIP:
            # a gzip payload in a form is base64 or raw bytes carried as latin-1 text
            raw = data.encode("latin-1")
            try:
                raw = base64.b64decode(data.replace(" ", "+") + "=" * (-len(data) % 4), validate=True)
            except (binascii.Error, ValueError):
                pass
            return _parse_json_or_base64(_gunzip(raw, limit)), fields
        return _parse_json_or_base64(data.encode("latin-1")), fields
    if not body.strip():
        raise PayloadError("No data found. Send the events as JSON in the request body.", code="no_data")
    if compression in _GZIP:
        body = _gunzip(body, limit)
    return _parse_json_or_base64(body), fields


def _parse_json_or_base64(raw: bytes | str) -> Any:
    try:
        return _parse_json(raw)
    except UnicodeDecodeError as error:
        raise PayloadError(f"Malformed request data: {error}.") from None
    except ValueError as error:
        text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
        stripped = text.strip()
        if stripped and stripped[0] not in "{[":  # other SDKs send base64 of the JSON
            return _from_base64(stripped)
        raise PayloadError(f"Malformed request data: {error}.") from None


def _token_of(payload: Any, first_event: Any) -> str | None:
    properties = first_event.get("properties") if isinstance(first_event, Mapping) else None
    for source in (payload, first_event, properties):
        if isinstance(source, Mapping):
            for key in _TOKEN_KEYS:
                value = source.get(key)
                if isinstance(value, str) and value:
                    return value
    return None


def read_batch(payload: Any, fields: Mapping[str, str], query: Mapping[str, str]) -> CaptureBatch:
    """The events of a decoded payload, its token (payload, first event, form, then query) and its sent_at."""
    if isinstance(payload, Mapping) and "batch" in payload:
        events = payload["batch"]
        if not isinstance(events, list):
            raise PayloadError("batch must be a list of events.", attr="batch")
    elif isinstance(payload, list):
        events = payload
    elif isinstance(payload, Mapping):
        events = [payload]
    else:
        raise PayloadError("The payload must be an event, a list of events or an object with a batch list.")
    first = events[0] if events else None
    token = _token_of(payload, first)
    if token is None:
        for source in (fields, query):
            token = next((source[key] for key in _TOKEN_KEYS if source.get(key)), None)
            if token:
                break
    sent_at: Any = payload.get("sent_at") if isinstance(payload, Mapping) else None
    if query.get("_"):  # posthog-js sends its send time as ?_=<epoch ms>
        try:
            sent_at = int(query["_"])
        except ValueError:
            pass
    historical = isinstance(payload, Mapping) and payload.get("historical_migration") is True
    return CaptureBatch(events=events, token=token, sent_at=sent_at, historical_migration=historical)
