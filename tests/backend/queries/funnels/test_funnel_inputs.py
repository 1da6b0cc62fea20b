"""The funnel's use of the shared blocks: repeated-step detection and conversion windows."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from local_backend.models.property_filters import parse_properties
from local_backend.queries.base_filter import Entity
from local_backend.queries.funnels.inputs import is_same_or_wider, window_end
from local_backend.store.event_rows import to_micros


def step(id: str | None, *props: dict) -> Entity:
    return Entity(id=id, properties=parse_properties(list(props), "properties"))


CHROME = {"key": "$browser", "value": "Chrome"}
PRO = {"key": "plan", "value": "pro", "type": "person"}


@pytest.mark.parametrize(
    ("later", "earlier", "expected"),
    [
        (step("a"), step("a"), True),  # the same event twice
        (step("a"), step("a", CHROME), True),  # any a is wider than a Chrome a
        (step("a", CHROME), step("a"), False),  # a Chrome a is narrower than any a
        (step("a", CHROME), step("a", CHROME, PRO), True),
        (step("b"), step("a"), False),
        (step(None), step("a", CHROME), True),  # "any event" is wider than everything
        (step("a"), step(None), False),
    ],
)
def test_is_same_or_wider(later, earlier, expected):
    assert is_same_or_wider(later, earlier) is expected


def test_action_steps_compare_by_id():
    first = Entity(id=3, type="actions")
    assert is_same_or_wider(Entity(id=3, type="actions"), first) is True
    assert is_same_or_wider(Entity(id=4, type="actions"), first) is False
    assert is_same_or_wider(step("3"), first) is False


def test_window_ends():
    start = np.array([to_micros(datetime(2026, 1, 31, 10, tzinfo=UTC))], dtype=np.int64)
    assert (window_end(90, "second")(start) - start).tolist() == [90_000_000]
    assert (window_end(2, "week")(start) - start).tolist() == [14 * 86_400_000_000]
    # one calendar month from Jan 31 is Feb 28 (clamped), 28 days later
    assert (window_end(1, "month")(start) - start).tolist() == [28 * 86_400_000_000]
    assert (window_end(13, "month")(start) - start).tolist() == [(365 + 28) * 86_400_000_000]
