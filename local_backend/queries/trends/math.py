"""What a trend series aggregates, per ``math``, as SQL over ``events e``.

=====================================  ==========================================================================
math                                   value of a bucket
=====================================  ==========================================================================
``total`` (default)                    matching events
``dau``                                distinct persons (groups of ``aggregation_group_type_index`` when set)
``weekly_active`` / ``monthly_active`` distinct persons over the 7 / 30 days ending with the bucket
``unique_group``                       distinct group keys of ``math_group_type_index``
``unique_session``                     distinct ``$session_id``
``sum avg min max``                    of ``math_property`` read as a number (non-numbers ignored)
``median p75 p90 p95 p99``             linearly interpolated quantile of ``math_property``
``<agg>_count_per_actor``              events per person in the bucket, then that aggregate across persons
=====================================  ==========================================================================

``math_property: $session_duration`` aggregates each session once per bucket: the seconds from the first to
the last event of the whole session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...store.engine.interface import Dialect
from ..base_filter import PROPERTY_MATHS, BaseFilter, Entity

__all__ = ["MathPlan", "plan_math", "ACTIVE_DAYS", "QUANTILES"]

ACTIVE_DAYS = {"weekly_active": 7, "monthly_active": 30}
QUANTILES = {"median": 0.5, "p75": 0.75, "p90": 0.9, "p95": 0.95, "p99": 0.99}
_SIMPLE = {"sum": "sum", "avg": "avg", "min": "min", "max": "max"}
SESSION_DURATION = "$session_duration"


@dataclass(frozen=True)
class MathPlan:
    """How to aggregate: ``inner`` rows per group (and per actor/session when ``per``), then ``outer``.

    ``value_sql`` is the per-event value (with ``value_params``) the aggregate reads; ``per`` is an expression
    rows are first grouped by (the actor for count-per-actor, the session for session duration), in which case
    ``inner_sql`` computes a value per such row and ``outer`` aggregates those.
    """

    outer: str
    value_sql: str = ""
    value_params: tuple[Any, ...] = ()
    per: str | None = None
    inner_sql: str = ""
    numeric: bool = False
    active_days: int = 0
    distinct_actor: str | None = None
    needs_sessions: bool = False

    def aggregate(self, column: str) -> str:
        return self.outer.replace("{v}", column)


def actor_column(entity: Entity, filter: BaseFilter) -> str:
    if entity.math == "unique_group":
        return f"nullif(e.group_{int(entity.math_group_type_index or 0)}, '')"
    if entity.math == "unique_session":
        return "nullif(e.session_id, '')"
    if filter.aggregation_group_type_index is not None:
        return f"nullif(e.group_{int(filter.aggregation_group_type_index)}, '')"
    return "e.person_id"


def _outer_for(name: str, dialect: Dialect) -> str:
    if name in _SIMPLE:
        return f"{_SIMPLE[name]}({{v}})"
    return dialect.quantile("{v}", QUANTILES[name])


def plan_math(entity: Entity, filter: BaseFilter, dialect: Dialect) -> MathPlan:
    """How ``entity``'s math aggregates, in ``dialect`` (the event store's that runs it)."""
    math = entity.math or "total"
    if math == "total":
        return MathPlan(outer="count(*)")
    if math in ("dau", "unique_group", "unique_session", *ACTIVE_DAYS):
        actor = actor_column(entity, filter)
        return MathPlan(outer=f"count(DISTINCT {actor})", active_days=ACTIVE_DAYS.get(math, 0), distinct_actor=actor)
    if math.endswith("_count_per_actor"):
        name = math.removesuffix("_count_per_actor")
        return MathPlan(
            outer=_outer_for(name, dialect), per=actor_column(entity, filter), inner_sql="count(*)", numeric=True
        )
    assert math in PROPERTY_MATHS and entity.math_property
    if entity.math_property == SESSION_DURATION:
        return MathPlan(
            outer=_outer_for(math, dialect),
            per="e.session_id",  # each session's whole duration is worked out by the event store
            numeric=True,
            needs_sessions=True,
        )
    value_sql, params = dialect.text("e.properties", entity.math_property)
    outer = _outer_for(math, dialect)
    if math in _SIMPLE:
        outer = outer.replace("{v}", dialect.number("{v}"))
    return MathPlan(outer=outer, value_sql=value_sql, value_params=tuple(params), numeric=True)
