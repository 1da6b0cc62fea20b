"""The stickiness filter: the trend filter's series, dates, properties, compare and breakdown, plus how an
interval counts (``stickiness_criteria``) and whether buckets are "k or more" (``computed_as``).

``stickiness_criteria`` is ``{"operator": "gte" | "lte" | "exact", "value": n}`` (n at least 1): an actor counts
for an interval when its events in that interval number at least, at most or exactly n (without it, any event
counts). The query node's ``stickinessFilter.stickinessCriteria`` and ``computedAs`` arrive here by these names
(:mod:`local_backend.results.query_nodes`). Stickiness counts persons (``math`` unset, ``total`` or ``dau``) or
groups (``math: unique_group`` with ``math_group_type_index``, or ``aggregation_group_type_index``); any other
math is a 400 ``unsupported`` naming it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...errors import ValidationError
from ...limits import MAX_ENTITIES
from ...models.fields import Integer
from ..filter_parsing import decode_json_text
from ..trends.filter import TrendsFilter

__all__ = ["StickinessCriteria", "StickinessFilter", "STICKINESS_MATHS", "CUMULATIVE"]

# the maths that mean "count persons" or "count groups" here; the rest change nothing in PostHog's stickiness
STICKINESS_MATHS = (None, "total", "dau", "unique_group")
CUMULATIVE = "cumulative"
MAX_CRITERION = 1_000_000


class StickinessCriteria(BaseModel):
    """When an interval counts for an actor: its events there number ``operator`` ``value``."""

    model_config = ConfigDict(extra="forbid")

    operator: Literal["gte", "lte", "exact"]
    value: Integer = Field(ge=1, le=MAX_CRITERION)


class StickinessFilter(TrendsFilter):
    """The legacy stickiness filter (:class:`..trends.filter.TrendsFilter` plus the module docstring's fields)."""

    model_config = ConfigDict(extra="ignore")

    stickiness_criteria: StickinessCriteria | None = None
    computed_as: Literal["non_cumulative", "cumulative"] = "non_cumulative"

    @field_validator("stickiness_criteria", mode="before")
    @classmethod
    def _decoded(cls, value: Any) -> Any:
        value = decode_json_text(value)
        return None if value in ("", {}) else value

    @field_validator("computed_as", mode="before")
    @classmethod
    def _default_mode(cls, value: Any) -> Any:
        return "non_cumulative" if value in (None, "") else value

    @model_validator(mode="after")
    def _counts_persons_or_groups(self) -> StickinessFilter:
        for kind in ("events", "actions"):
            for index, entity in enumerate(getattr(self, kind)[:MAX_ENTITIES]):
                if entity.math not in STICKINESS_MATHS:
                    raise ValidationError(
                        f"Stickiness counts persons or groups: math '{entity.math}' is not supported yet; use "
                        "total (persons) or unique_group.",
                        attr=f"{kind}__{index}__math",
                        code="unsupported",
                    )
        return self

    @property
    def cumulative(self) -> bool:
        return self.computed_as == CUMULATIVE
