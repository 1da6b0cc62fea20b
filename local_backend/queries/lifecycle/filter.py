"""The lifecycle filter: one series (an event or an action), the dates, interval, properties, test-account
filters and ``aggregation_group_type_index`` (groups instead of persons).

Lifecycle has no maths: ``math`` unset, ``total`` or ``dau`` (all mean "count actors") are accepted, any other is
a 400 ``unsupported``; more than one series (or none) is a 400 on ``events``. ``shown_as``, ``insight`` and
``display`` only say which kind and how to draw it. Breakdowns and compare are refused by name
(:mod:`..unsupported_fields`).
"""

from __future__ import annotations

from pydantic import ConfigDict, model_validator

from ...errors import ValidationError
from ..base_filter import NEEDS_A_SERIES, BaseFilter, Entity

__all__ = ["LifecycleFilter", "LIFECYCLE_MATHS"]

LIFECYCLE_MATHS = (None, "total", "dau")


class LifecycleFilter(BaseFilter):
    """The legacy lifecycle filter (module docstring)."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=NEEDS_A_SERIES)

    @model_validator(mode="after")
    def _one_series(self) -> LifecycleFilter:
        count = len(self.events) + len(self.actions)
        if count != 1:
            raise ValidationError(
                f"A lifecycle has exactly one series (an event or an action); this filter has {count}.",
                attr="events" if self.events or not self.actions else "actions",
            )
        kind = "events" if self.events else "actions"
        math = getattr(self, kind)[0].math
        if math not in LIFECYCLE_MATHS:
            raise ValidationError(
                f"A lifecycle counts actors: math '{math}' is not supported.",
                attr=f"{kind}__0__math",
                code="unsupported",
            )
        return self

    @property
    def entity(self) -> Entity:
        return self.entities[0]
