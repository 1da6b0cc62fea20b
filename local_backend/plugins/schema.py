"""Config schemas: the fields a plugin's config has, and validating a submitted config against them.

A schema is a list of fields as PostHog's plugin.json writes them (``key``, ``name``, ``type``, ``default``,
``required``, ``secret``, ``hint``, ``choices``). Values are stored as the user gave them: strings for
``string`` and ``choice`` fields, JSON text for ``json`` fields. Secret values never leave the server: every
response shows :data:`SECRET_MASK` instead, and an update that leaves a secret out (or sends it back masked)
keeps the stored value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ValidationError

__all__ = [
    "SECRET_MASK",
    "FIELD_TYPES",
    "ConfigField",
    "field_defaults",
    "schema_json",
    "validate_config",
    "merge_secrets",
    "mask_config",
    "config_changes",
]

SECRET_MASK = "**************** POSTHOG SECRET FIELD ****************"
FieldType = Literal["string", "choice", "json"]
FIELD_TYPES: tuple[str, ...] = ("string", "choice", "json")


@dataclass(frozen=True, kw_only=True)
class ConfigField:
    key: str
    name: str
    type: FieldType = "string"
    default: str = ""
    required: bool = False
    secret: bool = False
    hint: str = ""
    choices: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "key": self.key,
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "required": self.required,
            "secret": self.secret,
            "hint": self.hint,
        }
        if self.type == "choice":
            body["choices"] = list(self.choices)
        return body


def field_defaults(schema: Iterable[ConfigField]) -> dict[str, Any]:
    return {f.key: f.default for f in schema}


def schema_json(schema: Iterable[ConfigField]) -> list[dict[str, Any]]:
    return [f.as_json() for f in schema]


def _clean_value(f: ConfigField, value: Any) -> str:
    attr = f"config__{f.key}"
    if f.type == "json":
        if isinstance(value, dict | list):
            return json.dumps(value)
        if not isinstance(value, str):
            raise ValidationError("Enter valid JSON.", attr=attr, code="invalid_input")
        if value.strip():
            try:
                json.loads(value)
            except ValueError:
                raise ValidationError("Enter valid JSON.", attr=attr, code="invalid_input") from None
        return value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValidationError("Not a valid string.", attr=attr, code="invalid_input")
    text = value if isinstance(value, str) else str(value)
    if f.type == "choice" and text not in f.choices and not (text == "" and not f.required):
        raise ValidationError(f'"{text}" is not a valid choice.', attr=attr, code="invalid_choice")
    return text


def validate_config(schema: Iterable[ConfigField], submitted: Mapping[str, Any] | None) -> dict[str, Any]:
    """A complete config from ``submitted``: unknown keys refused, values checked, defaults filled in.

    A key given as null is treated as not given. Raises :class:`ValidationError` with ``attr`` ``config__<key>``.
    """
    fields = {f.key: f for f in schema}
    submitted = dict(submitted or {})
    for key in submitted:
        if key not in fields:
            known = ", ".join(fields) or "none"
            raise ValidationError(f"Unknown config field (known fields: {known}).", attr=f"config__{key}")
    config: dict[str, Any] = {}
    for key, f in fields.items():
        value = submitted.get(key)
        config[key] = f.default if value is None else _clean_value(f, value)
        if f.required and config[key] in ("", None):
            raise ValidationError("This field is required.", attr=f"config__{key}", code="required")
    return config


def merge_secrets(
    secret_keys: Iterable[str], previous: Mapping[str, Any], submitted: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``submitted`` with every secret it leaves out, nulls or sends back masked taken from ``previous``."""
    merged = dict(submitted or {})
    for key in secret_keys:
        if merged.get(key) in (None, SECRET_MASK) and previous.get(key) not in (None, ""):
            merged[key] = previous[key]
    return merged


def mask_config(secret_keys: Iterable[str], config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` as a response shows it: set secrets replaced by :data:`SECRET_MASK`."""
    secrets = set(secret_keys)
    return {key: SECRET_MASK if key in secrets and value not in (None, "") else value for key, value in config.items()}


def config_changes(
    secret_keys: Iterable[str], before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Activity-log changes between two configs, one per key, secrets masked."""
    masked_before, masked_after = mask_config(secret_keys, before), mask_config(secret_keys, after)
    changes = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) == after.get(key):
            continue
        if key not in before:
            action = "created"
        elif key not in after:
            action = "deleted"
        else:
            action = "changed"
        changes.append(
            {
                "type": "PluginConfig",
                "action": action,
                "field": key,
                "before": masked_before.get(key),
                "after": masked_after.get(key),
            }
        )
    return changes
