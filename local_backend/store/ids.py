"""Random identifiers and tokens handed to users, and the one reading of an integer id a user sends."""

from __future__ import annotations

import hashlib
import re
import secrets
import string
import uuid

__all__ = [
    "new_uuid",
    "time_ordered_uuid",
    "new_short_id",
    "new_personal_api_key",
    "new_project_token",
    "hash_key",
    "mask_key",
    "new_sharing_token",
    "parse_id",
    "MAX_ID",
]

# Ids are SQLite integers: at most 2**63 - 1. Only ASCII digits count; Python's int() also reads "٢", " 2" and "2_0".
MAX_ID = 2**63 - 1
_ASCII_ID = re.compile(r"[0-9]{1,19}")


def parse_id(text: str) -> int | None:
    """``text`` as a stored id (1 .. 2**63 - 1, ASCII digits only), or None when it cannot be one."""
    if not _ASCII_ID.fullmatch(text):
        return None
    number = int(text)
    return number if 0 < number <= MAX_ID else None


_BASE62 = string.ascii_letters + string.digits
_LOW_62 = (1 << 62) - 1


def new_uuid() -> str:
    return str(uuid.uuid4())


def time_ordered_uuid(millis: int, noise: int) -> str:
    """A version 7 UUID: ``millis`` (Unix milliseconds) first, then 74 bits of ``noise``; uuids made in time
    order sort in time order."""
    value = (millis & 0xFFFF_FFFF_FFFF) << 80 | 0x7 << 76 | (noise >> 62 & 0xFFF) << 64 | 0x2 << 62 | noise & _LOW_62
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def new_short_id() -> str:
    """8 characters of letters and digits, as PostHog's insight short ids."""
    return "".join(secrets.choice(_BASE62) for _ in range(8))


def new_personal_api_key() -> str:
    return "phx_" + "".join(secrets.choice(_BASE62) for _ in range(43))


def new_project_token() -> str:
    return "phc_" + "".join(secrets.choice(_BASE62) for _ in range(43))


def new_sharing_token() -> str:
    return secrets.token_urlsafe(22)


def hash_key(raw: str) -> str:
    """Personal API keys are stored only as this hash."""
    return "sha256$" + hashlib.sha256(raw.encode()).hexdigest()


def mask_key(raw: str) -> str:
    return f"{raw[:4]}...{raw[-4:]}"
