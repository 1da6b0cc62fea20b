"""Which calculation a request on the trend endpoint asks for: a trend, stickiness or lifecycle.

PostHog's ``insights/trend/`` serves three kinds: ``shown_as: "Stickiness"`` or ``insight: "STICKINESS"`` is
stickiness, ``shown_as: "Lifecycle"`` or ``insight: "LIFECYCLE"`` is lifecycle, anything else a trend. Values
are read without case; a ``shown_as`` other than Volume, Stickiness or Lifecycle, or the two fields naming
different kinds, is a 400 on ``shown_as``. Saved insights of kind TRENDS whose filter says ``shown_as`` are
calculated as that kind too (:func:`trend_request_kind`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ValidationError

__all__ = ["TRENDS", "STICKINESS", "LIFECYCLE", "TREND_ENDPOINT_KINDS", "trend_request_kind"]

TRENDS, STICKINESS, LIFECYCLE = "TRENDS", "STICKINESS", "LIFECYCLE"
TREND_ENDPOINT_KINDS = (TRENDS, STICKINESS, LIFECYCLE)
_SHOWN_AS = {"volume": TRENDS, "stickiness": STICKINESS, "lifecycle": LIFECYCLE}


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return str(value).strip()


def trend_request_kind(data: Mapping[str, Any]) -> str:
    """TRENDS, STICKINESS or LIFECYCLE for a legacy filter sent to the trend endpoint (module docstring)."""
    shown_as = _text(data.get("shown_as"))
    by_shown_as = None
    if shown_as is not None:
        by_shown_as = _SHOWN_AS.get(shown_as.lower())
        if by_shown_as is None:
            raise ValidationError(
                f"Unknown shown_as '{shown_as}': use Volume, Stickiness or Lifecycle.", attr="shown_as"
            )
    insight = (_text(data.get("insight")) or "").upper()
    by_insight = insight if insight in (STICKINESS, LIFECYCLE) else None
    if by_shown_as not in (None, TRENDS) and by_insight is not None and by_shown_as != by_insight:
        raise ValidationError(
            f"shown_as {shown_as} and insight {insight} ask for different calculations.", attr="shown_as"
        )
    if by_shown_as not in (None, TRENDS):
        return str(by_shown_as)
    return by_insight or TRENDS
