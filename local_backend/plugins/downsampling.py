"""Downsampling: keep a fixed share of users, and all of their events, to cut volume without breaking funnels.

A distinct id is kept when a hash of (salt, distinct id) falls below the percentage, so the same users are
kept on every event and every run. The salt is secret: it decides which users are kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from .base import Event, Plugin
from .schema import ConfigField

__all__ = ["PLUGIN", "process_event", "sample_position", "parse_percentage"]


def parse_percentage(value: Any) -> float:
    try:
        percentage = float(value)
    except (TypeError, ValueError):
        raise ValueError("percentage", "Enter a number between 0 and 100.") from None
    if not 0 <= percentage <= 100:
        raise ValueError("percentage", "Enter a number between 0 and 100.")
    return percentage


def sample_position(distinct_id: str, salt: str = "") -> float:
    """Where a distinct id falls in [0, 100): uniform over ids, stable across runs and machines."""
    digest = hashlib.sha256(f"{salt}:{distinct_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 * 100


def process_event(event: Event, config: Mapping[str, Any]) -> Event | None:
    percentage = parse_percentage(config.get("percentage", "100"))
    if percentage >= 100:
        return event
    distinct_id = str(event.get("distinct_id", ""))
    return event if sample_position(distinct_id, str(config.get("salt") or "")) < percentage else None


def _check(config: Mapping[str, Any]) -> None:
    parse_percentage(config.get("percentage"))


PLUGIN = Plugin(
    id=3,
    slug="downsampling",
    name="Downsampling",
    description="Keep only a percentage of your users (with all their events), chosen by a stable hash of "
    "the distinct id.",
    tag="1.0.0",
    process_event=process_event,
    config_schema=(
        ConfigField(
            key="percentage",
            name="Percentage of users to keep",
            default="100",
            required=True,
            hint="A number from 0 to 100, e.g. 10 keeps one user in ten.",
        ),
        ConfigField(
            key="salt",
            name="Sampling salt",
            secret=True,
            hint="Any text; changing it changes which users are kept.",
        ),
    ),
    check_config=_check,
)
