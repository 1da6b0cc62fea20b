"""Taxonomy: rename events to one naming convention (``user signed up`` -> ``userSignedUp``).

Events whose name starts with ``$`` are PostHog's own and keep their names, so built-in insights still find them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .base import Event, Plugin
from .jobs import REPROCESS_JOB
from .schema import ConfigField

__all__ = ["PLUGIN", "NAMING_CONVENTIONS", "process_event", "split_words", "convert_name"]

NAMING_CONVENTIONS = ("camelCase", "PascalCase", "snake_case", "kebab-case", "spaces")
# An acronym before a capitalised word (HTTPRequest -> HTTP, Request), a word, an acronym, a number.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_words(name: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(name)]


@lru_cache(maxsize=4096)  # a project has few distinct event names
def convert_name(name: str, convention: str) -> str:
    words = split_words(name)
    if not words:
        return name
    if convention == "camelCase":
        return words[0] + "".join(word.capitalize() for word in words[1:])
    if convention == "PascalCase":
        return "".join(word.capitalize() for word in words)
    if convention == "snake_case":
        return "_".join(words)
    if convention == "kebab-case":
        return "-".join(words)
    if convention == "spaces":
        return " ".join(words)
    raise ValueError(f"unknown naming convention {convention!r}")


def process_event(event: Event, config: Mapping[str, Any]) -> Event:
    name = str(event.get("event", ""))
    if name.startswith("$"):
        return event
    return {**event, "event": convert_name(name, str(config.get("defaultNamingConvention") or "camelCase"))}


PLUGIN = Plugin(
    id=2,
    slug="taxonomy",
    name="Taxonomy",
    description="Rename custom events to one naming convention so 'Signed Up', 'signed_up' and 'signedUp' "
    "become the same event. Events starting with $ keep their names.",
    tag="1.0.0",
    process_event=process_event,
    config_schema=(
        ConfigField(
            key="defaultNamingConvention",
            name="Naming convention",
            type="choice",
            choices=NAMING_CONVENTIONS,
            default="camelCase",
            required=True,
            hint="camelCase: userSignedUp, PascalCase: UserSignedUp, snake_case: user_signed_up, "
            "kebab-case: user-signed-up, spaces: user signed up",
        ),
    ),
    jobs={REPROCESS_JOB.name: REPROCESS_JOB},
)
