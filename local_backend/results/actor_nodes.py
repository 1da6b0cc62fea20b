"""PostHog's actors nodes: the people behind one number, ``ActorsQuery`` over a ``FunnelsActorsQuery`` or an
``InsightActorsQuery``, translated onto the insight's legacy filter (:mod:`.query_nodes`) and the point named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ValidationError
from .query_nodes import insight_kind_of, node_object, translate_query

__all__ = [
    "ActorsNode",
    "InsightActorsNode",
    "DEFAULT_ACTORS_LIMIT",
    "MAX_ACTORS_LIMIT",
    "is_actors_query",
    "translate_actors_query",
]

DEFAULT_ACTORS_LIMIT = 100
MAX_ACTORS_LIMIT = 10_000
_ACTOR_COLUMNS = (["actor"], ["person"])
# FunnelsActorsQuery fields that would change who is listed, not computed here: a 400 when given
_UNSUPPORTED_ACTORS_FIELDS = (
    "funnelCustomSteps",
    "funnelTrendsDropOff",
    "funnelTrendsEntrancePeriodStart",
    "includeRecordings",
)


@dataclass(frozen=True)
class ActorsNode:
    """The people behind one funnel number: the funnel's legacy filter, the step, the breakdown value, a page."""

    legacy: dict[str, Any]
    funnel_step: int
    breakdown_value: Any
    limit: int
    offset: int
    columns: list[str]


def is_actors_query(query: Any) -> bool:
    return isinstance(query, dict) and query.get("kind") == "ActorsQuery"


def _page_number(value: Any, default: int, low: int, high: int, attr: str) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValidationError(f"Expected an integer between {low} and {high}.", attr=attr)
    return value


@dataclass(frozen=True)
class InsightActorsNode:
    """The people behind one number of a trend, stickiness, lifecycle or paths query (PostHog's
    ``InsightActorsQuery``): the insight's kind and legacy filter, the point as PostHog names it (``day``: a
    trend's or lifecycle's interval start, a stickiness bucket; ``series``: the series' position; ``breakdown``;
    ``compare``: current or previous; ``status``: a lifecycle status; the paths keys from ``pathsFilter``), a page.
    """

    kind: str
    legacy: dict[str, Any]
    day: Any
    series: int
    breakdown: Any
    compare: str | None
    status: str | None
    path_keys: dict[str, str | None]
    limit: int
    offset: int
    columns: list[str]
    interval: int | None = None


_INSIGHT_ACTORS_KINDS = ("TRENDS", "STICKINESS", "LIFECYCLE", "PATHS", "RETENTION")
_PATH_KEYS = {"pathStartKey": "start_key", "pathEndKey": "end_key", "pathDropoffKey": "dropoff_key"}
# InsightActorsQuery fields that would change who is listed, not computed here: a 400 when given
_UNSUPPORTED_INSIGHT_ACTORS_FIELDS = ("includeRecordings",)
# the point fields of the other kinds, refused beside a retention cohort (which ``interval`` and ``breakdown`` name)
_NOT_RETENTION_FIELDS = ("day", "status", "compare")


def _insight_actors(query: dict[str, Any], source: dict[str, Any]) -> InsightActorsNode:
    for field in _UNSUPPORTED_INSIGHT_ACTORS_FIELDS:
        if source.get(field) not in (None, False):
            raise ValidationError(f"{field} is not supported by this backend yet.", attr=f"query__source__{field}")
    insight = node_object(source.get("source"), "query__source__source")
    kind = insight_kind_of(insight)
    if kind not in _INSIGHT_ACTORS_KINDS:
        raise ValidationError(
            "An InsightActorsQuery's source is a TrendsQuery, StickinessQuery, LifecycleQuery, PathsQuery or "
            "RetentionQuery (funnels: FunnelsActorsQuery).",
            attr="query__source__source__kind",
        )
    _, legacy = translate_query(insight)
    series = source.get("series", 0)
    if isinstance(series, bool) or not isinstance(series, int) or series < 0:
        raise ValidationError("series must be the series' position, from 0.", attr="query__source__series")
    interval = _retention_interval(kind, source)
    compare = source.get("compare")
    if compare not in (None, "current", "previous"):
        raise ValidationError("compare is current or previous.", attr="query__source__compare")
    paths = node_object(insight.get("pathsFilter"), "query__source__source__pathsFilter")
    select = query.get("select") or ["actor"]
    if select not in _ACTOR_COLUMNS:
        raise ValidationError('Only select ["actor"] is supported for insight actors.', attr="query__select")
    return InsightActorsNode(
        kind=kind,
        legacy=legacy,
        day=source.get("day"),
        series=series,
        breakdown=source.get("breakdown"),
        compare=compare,
        status=source.get("status"),
        path_keys={name: paths.get(key) for key, name in _PATH_KEYS.items()},
        limit=_page_number(query.get("limit"), DEFAULT_ACTORS_LIMIT, 1, MAX_ACTORS_LIMIT, "query__limit"),
        offset=_page_number(query.get("offset"), 0, 0, 2**62, "query__offset"),
        columns=list(select),
        interval=interval,
    )


def _retention_interval(kind: str, source: dict[str, Any]) -> int | None:
    """A retention cohort's row (``interval``, from 0), required there; elsewhere ``interval`` is a 400."""
    interval = source.get("interval")
    if kind != "RETENTION":
        if interval is not None:
            raise ValidationError(
                "interval names a retention cohort: only a RetentionQuery takes it.", attr="query__source__interval"
            )
        return None
    for field in _NOT_RETENTION_FIELDS:
        if source.get(field) is not None:
            raise ValidationError(
                f"{field} does not name a retention cohort: give interval (and breakdown).",
                attr=f"query__source__{field}",
            )
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 0:
        raise ValidationError(
            "A retention's people need interval: the cohort's row, an integer from 0.", attr="query__source__interval"
        )
    return interval


def translate_actors_query(query: dict[str, Any]) -> ActorsNode | InsightActorsNode:
    """An ``ActorsQuery`` over a ``FunnelsActorsQuery`` over a ``FunnelsQuery``, as an :class:`ActorsNode`; over an
    ``InsightActorsQuery`` (trends, stickiness, lifecycle, paths, retention), as an :class:`InsightActorsNode`."""
    source = node_object(query.get("source"), "query__source")
    if source.get("kind") == "InsightActorsQuery":
        return _insight_actors(query, source)
    if source.get("kind") != "FunnelsActorsQuery":
        raise ValidationError(
            f"Unsupported actors source '{source.get('kind')}': supported sources are FunnelsActorsQuery and "
            "InsightActorsQuery.",
            attr="query__source__kind",
        )
    for field in _UNSUPPORTED_ACTORS_FIELDS:
        if source.get(field) not in (None, False):
            raise ValidationError(f"{field} is not supported by this backend yet.", attr=f"query__source__{field}")
    funnel = node_object(source.get("source"), "query__source__source")
    if insight_kind_of(funnel) != "FUNNELS":
        raise ValidationError("A FunnelsActorsQuery's source is a FunnelsQuery.", attr="query__source__source__kind")
    _, legacy = translate_query(funnel)
    step = source.get("funnelStep")
    if isinstance(step, bool) or not isinstance(step, int):
        raise ValidationError("funnelStep must be an integer.", attr="query__source__funnelStep")
    select = query.get("select") or ["actor"]
    if select not in _ACTOR_COLUMNS:
        raise ValidationError('Only select ["actor"] is supported for funnel actors.', attr="query__select")
    return ActorsNode(
        legacy=legacy,
        funnel_step=step,
        breakdown_value=source.get("funnelStepBreakdown"),
        limit=_page_number(query.get("limit"), DEFAULT_ACTORS_LIMIT, 1, MAX_ACTORS_LIMIT, "query__limit"),
        offset=_page_number(query.get("offset"), 0, 0, 2**62, "query__offset"),
        columns=list(select),
    )
