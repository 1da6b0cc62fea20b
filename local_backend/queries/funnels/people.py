"""Who is behind one number of a funnel: the persons (or groups) of a step, reached or dropped, under a breakdown value.

The lists come from the very outcomes the counts are made of (:func:`.results.bucket_outcomes`): a step's
people list under a breakdown value holds exactly the persons its ``count`` counts. A breakdown value
names one of the buckets the funnel shows, compared as the API shows it (``"Chrome"`` and ``["Chrome"]`` are
the same value); a value that names none is a 400 naming ``funnel_step_breakdown``.

``funnel_step_breakdown`` travels in a people URL as PostHog sends it: a text value as it is, a list (or a
text that would read as JSON) as JSON (:func:`.results.encode_step_breakdown`, :func:`decode_step_breakdown`).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...errors import ValidationError
from ..filter_parsing import decode_json_text
from .filter import FunnelFilter
from .results import breakdown_value_of, bucket_outcomes
from .scan import FunnelRun, run_funnel

__all__ = [
    "FunnelActors",
    "check_funnel_step",
    "refuse_trends_people",
    "compute_funnel_people",
    "step_actors",
    "decode_step_breakdown",
]


@dataclass(frozen=True)
class FunnelActors:
    """Who is behind one people URL: person ids, or for a group funnel the group keys (both sorted)."""

    person_ids: list[int]
    group_keys: list[str] | None = None


def decode_step_breakdown(text: str | None) -> Any:
    """The breakdown value a people URL names (None when absent): JSON lists and quoted texts decoded.

    >>> decode_step_breakdown("Chrome"), decode_step_breakdown('"Chrome"'), decode_step_breakdown('["a", "b"]')
    ('Chrome', 'Chrome', ['a', 'b'])
    """
    if text is None or text == "":
        return None
    if text.startswith('"'):
        try:
            decoded = json.loads(text)
        except ValueError:
            return text
        return decoded if isinstance(decoded, str) else text
    return decode_json_text(text, "funnel_step_breakdown")


def _plain(value: Any) -> Any:
    """A breakdown value as compared: a one-item list is its item, every item as text."""
    if isinstance(value, list) and len(value) == 1:
        return str(value[0])
    return [str(item) for item in value] if isinstance(value, list) else str(value)


def _names_bucket(shown: Any, asked: Any, cohort: bool) -> bool:
    """Whether ``asked`` names the bucket shown as ``shown``; PostHog names the everyone cohort (``all``) 0."""
    if cohort and shown == "all" and _plain(asked) == "0":
        return True
    return _plain(shown) == _plain(asked)


def _shown(value: Any) -> str:
    return json.dumps(value) if isinstance(value, list) else str(value)


def step_actors(run: FunnelRun, funnel_step: int, breakdown_value: Any = None) -> list[int]:
    """The persons (or group numbers) behind one people URL, sorted by id.

    ``funnel_step`` k > 0: those who reached step k (1-based); -k: those who reached step k - 1 but not k.
    With a breakdown, only those counted under ``breakdown_value``, which must name a bucket the funnel shows.
    """
    parts = bucket_outcomes(run)
    one_distribution = bool(parts) and parts[0][0] is None  # time to convert: a breakdown does not split it
    if breakdown_value is not None and run.broken_down and not one_distribution:
        shown = {bucket: breakdown_value_of(run, bucket)[1] for bucket, _ in parts if bucket is not None}
        cohort = run.filter.breakdown_type == "cohort"
        matching = [part for part in parts if _names_bucket(shown[part[0]], breakdown_value, cohort)]  # type: ignore[index]
        if not matching:
            values = ", ".join(_shown(value) for value in shown.values()) or "none"
            raise ValidationError(
                f"No breakdown value {_shown(breakdown_value)} in this funnel; its values are: {values}.",
                attr="funnel_step_breakdown",
            )
        parts = matching
    chosen: set[int] = set()
    for _, outcomes in parts:
        steps = outcomes.steps
        picked = steps >= funnel_step if funnel_step > 0 else steps == -funnel_step - 1
        chosen.update(run.labelled.group_person[outcomes.group[picked]].tolist())
    return sorted(chosen)


def compute_funnel_people(
    conn: sqlite3.Connection,
    project: dict[str, Any],
    filter: FunnelFilter,
    now: datetime,
    funnel_step: int,
    breakdown_value: Any = None,
) -> FunnelActors:
    """The persons (or groups) of ``funnel_step`` (see :func:`step_actors`) under ``breakdown_value``."""
    run = run_funnel(conn, project, filter, now)
    actors = step_actors(run, funnel_step, breakdown_value)
    if run.group_keys is not None and filter.aggregation_group_type_index is not None:
        return FunnelActors(actors, sorted(run.group_keys[number] for number in actors))
    return FunnelActors(actors)


def check_funnel_step(step: int, steps: int, attr: str = "funnel_step") -> int:
    """``step`` when it names a people list of a funnel of ``steps`` steps, else a 400 naming ``attr``.

    k in 1..steps: reached step k; -k in -2..-steps: dropped before step k (nobody drops before step 1).
    """
    if step == 0 or step == -1 or abs(step) > max(steps, 1):
        raise ValidationError(
            f"{attr} must be 1..{steps} (reached) or -2..-{steps} (dropped before that step).", attr=attr
        )
    return step


def refuse_trends_people(filter: FunnelFilter) -> None:
    """A 400 for the people of conversion over time (one entrance period's converted or dropped persons), which
    are not listed yet: the steps' people would answer another question with the same look."""
    if filter.viz_type == "trends":
        raise ValidationError(
            "The people of conversion over time (funnel_viz_type trends) are not supported yet; ask for the steps' "
            "people (funnel_viz_type steps).",
            attr="funnel_viz_type",
            code="unsupported",
        )
