"""The person rules that need no storage: a person's uuid, the distinct ids that never merge, and how ``$set``,
``$set_once`` and ``$unset`` change a person's properties. :mod:`.person_book` applies them to stored persons."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from typing import Any

__all__ = ["PERSON_UUID_NAMESPACE", "apply_property_updates", "is_illegal_distinct_id", "person_uuid"]

#: A person's uuid is ``uuid5(PERSON_UUID_NAMESPACE, "<project id>:<its first distinct id>")``.
PERSON_UUID_NAMESPACE = uuid.UUID("0c2b6f5e-1f77-4d2b-9a55-6b8f3c0d9e21")
_NAMESPACE_BYTES = PERSON_UUID_NAMESPACE.bytes

_ILLEGAL_ANY_CASE = {"anonymous", "guest", "distinctid", "distinct_id", "id", "not_authenticated", "email",
                     "undefined", "true", "false"}  # fmt: skip
_ILLEGAL_EXACT = {"[object Object]", "NaN", "None", "none", "null", "0", "undefined"}


def _quoted(ids: set[str]) -> set[str]:
    return ids | {f"'{i}'" for i in ids} | {f'"{i}"' for i in ids}


_ILLEGAL_ANY_CASE = _quoted(_ILLEGAL_ANY_CASE)
_ILLEGAL_EXACT = _quoted(_ILLEGAL_EXACT)


def is_illegal_distinct_id(distinct_id: str) -> bool:
    """Ids that come from a bug (``null``, ``anonymous``, ``[object Object]`` ...) and must never merge persons."""
    return not distinct_id.strip() or distinct_id.lower() in _ILLEGAL_ANY_CASE or distinct_id in _ILLEGAL_EXACT


def apply_property_updates(properties: dict[str, Any], set_: Any, set_once: Any, unset: Any) -> bool:
    """Apply ``$set_once``, then ``$set``, then ``$unset`` to ``properties`` in place; True if anything changed."""
    changed = False
    if isinstance(set_once, Mapping):
        for key, value in set_once.items():
            if key not in properties:
                properties[key] = value
                changed = True
    if isinstance(set_, Mapping):
        for key, value in set_.items():
            if key not in properties or properties[key] != value:
                properties[key] = value
                changed = True
    if unset:
        keys = unset if isinstance(unset, list) else list(unset) if isinstance(unset, Mapping) else []
        for key in keys:
            if isinstance(key, str) and key in properties:
                del properties[key]
                changed = True
    return changed


def person_uuid(project_id: int, distinct_id: str) -> str:
    """``uuid5(PERSON_UUID_NAMESPACE, "<project>:<distinct id>")``, formatted directly (the UUID class is slow in
    bulk)."""
    digest = bytearray(hashlib.sha1(_NAMESPACE_BYTES + f"{project_id}:{distinct_id}".encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
