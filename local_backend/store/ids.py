"""Random identifiers and tokens handed to users."""

from __future__ import annotations

import hashlib
import secrets
import string
import uuid

__all__ = [
    "new_uuid",
    "new_short_id",
    "new_personal_api_key",
    "new_project_token",
    "hash_key",
    "mask_key",
    "new_sharing_token",
]

_BASE62 = string.ascii_letters + string.digits


def new_uuid() -> str:
    return str(uuid.uuid4())


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
