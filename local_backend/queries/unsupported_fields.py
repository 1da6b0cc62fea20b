"""Request fields that change a calculation's answer and that this backend does not compute yet.

PostHog reads every field below and answers something else when it is set (a moving average, sampled counts,
a histogram of a numeric breakdown, ...), or the field belongs to another kind than the one asked for (a formula
on a lifecycle). Answering as if it were absent would give numbers that look right and are
not, so a calculation whose filter sets one of them to anything but its neutral value is a 400 ``unsupported``
whose ``attr`` names the field (:func:`refuse_unsupported_fields`). The check runs where every calculation
enters: the legacy calculation routes, saved insights and ``/query/`` (whose node fields are first carried onto
their legacy names by :func:`carry_node_fields`, so one table serves both spellings).

Fields that only change how a result is drawn (colours, legends, ``show_values_on_series``, line or bar, axis
formats, ``funnel_step_reference``, ``retention_reference``) are not here: they are accepted and ignored.
docs/insights.md lists both, and a test keeps that list in step with :data:`UNSUPPORTED_FIELDS`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ValidationError

__all__ = ["UnsupportedField", "UNSUPPORTED_FIELDS", "NODE_FIELDS", "refuse_unsupported_fields", "carry_node_fields"]

TRENDS, FUNNELS, RETENTION, PATHS = "TRENDS", "FUNNELS", "RETENTION", "PATHS"
STICKINESS, LIFECYCLE = "STICKINESS", "LIFECYCLE"
# the displays a stickiness or lifecycle chart is drawn with; the others change a trend's numbers
DRAWN_DISPLAYS = ("ActionsLineGraph", "ActionsBar", "ActionsAreaGraph", "ActionsStackedBar")
_BLANK_TEXT = ("", "false", "null", "none", "[]", "{}")


def is_unset(value: Any) -> bool:
    """Absent in effect: null, false, an empty list or object, or their JSON text (a GET's query string)."""
    if value is None or value is False or value in ([], {}):
        return True
    return isinstance(value, str) and value.strip().lower() in _BLANK_TEXT


def _unset_or(*neutral: Any) -> Callable[[Any], bool]:
    """Unset, or one of ``neutral`` (text compared without case, numbers by value)."""
    texts = {str(item).lower() for item in neutral}

    def accepts(value: Any) -> bool:
        if is_unset(value):
            return True
        if isinstance(value, bool):
            return False
        if isinstance(value, int | float):
            return any(value == item for item in neutral if isinstance(item, int | float))
        return isinstance(value, str) and value.strip().lower() in texts

    return accepts


@dataclass(frozen=True, kw_only=True)
class UnsupportedField:
    """A legacy filter field of ``kinds`` that PostHog acts on and this backend does not: ``what`` says what it
    would do; ``accepts`` tells the values that ask for nothing more than the default answer."""

    name: str
    kinds: frozenset[str]
    what: str
    accepts: Callable[[Any], bool] = is_unset


def _field(name: str, kinds: tuple[str, ...], what: str, accepts: Callable[[Any], bool] = is_unset) -> UnsupportedField:
    return UnsupportedField(name=name, kinds=frozenset(kinds), what=what, accepts=accepts)


UNSUPPORTED_FIELDS: tuple[UnsupportedField, ...] = (
    _field(
        "smoothing_intervals",
        (TRENDS, STICKINESS, LIFECYCLE),
        "averages each bucket with the ones before it",
        _unset_or(1),
    ),
    _field(
        "formulas",
        (TRENDS, STICKINESS, LIFECYCLE),
        "adds a formula series for each formula (a single one goes in formula)",
    ),
    _field("formula", (STICKINESS, LIFECYCLE), "combines the series of a trend by a formula"),
    _field("breakdown_histogram_bin_count", (TRENDS, STICKINESS, RETENTION), "buckets a numeric breakdown into ranges"),
    _field("breakdown_hide_other_aggregation", (TRENDS, STICKINESS, RETENTION), "leaves out the Other breakdown value"),
    _field(
        "breakdown_normalize_url",
        (TRENDS, FUNNELS, STICKINESS, RETENTION),
        "reads URL breakdown values without a trailing / ? or #",
    ),
    _field("breakdowns", (TRENDS, FUNNELS, STICKINESS), "breaks down by several properties of their own types"),
    _field(
        "sampling_factor",
        (TRENDS, FUNNELS, RETENTION, PATHS, STICKINESS, LIFECYCLE),
        "counts a sample of the events",
        _unset_or(1),
    ),
    _field(
        "display",
        (STICKINESS, LIFECYCLE),
        "draws a trend's cumulative or aggregated numbers",
        _unset_or(*DRAWN_DISPLAYS),
    ),
    _field("interval_count", (STICKINESS,), "counts intervals of several calendar intervals each", _unset_or(1)),
    _field("compare", (LIFECYCLE,), "compares a trend or stickiness with the previous period"),
    _field("compare_to", (LIFECYCLE,), "compares a trend or stickiness with an earlier period"),
    _field("funnel_aggregate_by_hogql", (FUNNELS,), "counts actors by an expression", _unset_or("person_id")),
    _field("aggregation_group_type_index", (RETENTION,), "counts groups instead of persons"),
    _field("breakdown", (LIFECYCLE,), "splits the series by a property"),
    _field("cumulative", (RETENTION,), "counts actors back in a period or any later one"),
    _field("minimum_occurrences", (RETENTION,), "counts a return only after that many events", _unset_or(1)),
    _field(
        "time_window_mode",
        (RETENTION,),
        "starts periods at each actor's first event",
        _unset_or("strict_calendar_dates"),
    ),
    _field("aggregation_type", (RETENTION,), "sums or averages a property instead of counting", _unset_or("count")),
    _field("aggregation_property", (RETENTION,), "aggregates a property instead of counting"),
    _field("local_path_cleaning_filters", (PATHS,), "rewrites path items by regular expressions before counting"),
)

# Where a query node holds a field of the table (or another the legacy filter refuses), by kind: node path ->
# legacy name. A retention node's ``breakdownFilter.breakdowns`` is refused by the retention filter itself.
NODE_FIELDS: dict[str, dict[str, str]] = {
    TRENDS: {
        "trendsFilter.smoothingIntervals": "smoothing_intervals",
        "breakdownFilter.breakdown_histogram_bin_count": "breakdown_histogram_bin_count",
        "breakdownFilter.breakdown_hide_other_aggregation": "breakdown_hide_other_aggregation",
        "breakdownFilter.breakdowns": "breakdowns",
        "samplingFactor": "sampling_factor",
    },
    FUNNELS: {
        "funnelsFilter.funnelAggregateByHogQL": "funnel_aggregate_by_hogql",
        "breakdownFilter.breakdowns": "breakdowns",
        "samplingFactor": "sampling_factor",
    },
    RETENTION: {
        "retentionFilter.cumulative": "cumulative",
        "retentionFilter.minimumOccurrences": "minimum_occurrences",
        "retentionFilter.timeWindowMode": "time_window_mode",
        "retentionFilter.aggregationType": "aggregation_type",
        "retentionFilter.aggregationProperty": "aggregation_property",
        "breakdownFilter.breakdown_histogram_bin_count": "breakdown_histogram_bin_count",
        "breakdownFilter.breakdown_hide_other_aggregation": "breakdown_hide_other_aggregation",
        "breakdownFilter.breakdowns": "breakdowns",
        "samplingFactor": "sampling_factor",
    },
    PATHS: {
        "pathsFilter.localPathCleaningFilters": "local_path_cleaning_filters",
        "samplingFactor": "sampling_factor",
    },
    STICKINESS: {
        "intervalCount": "interval_count",
        "breakdownFilter.breakdown_histogram_bin_count": "breakdown_histogram_bin_count",
        "breakdownFilter.breakdown_hide_other_aggregation": "breakdown_hide_other_aggregation",
        "breakdownFilter.breakdowns": "breakdowns",
        "samplingFactor": "sampling_factor",
    },
    LIFECYCLE: {
        "compareFilter.compare": "compare",
        "compareFilter.compare_to": "compare_to",
        "samplingFactor": "sampling_factor",
    },
}


def refuse_unsupported_fields(kind: str, data: Mapping[str, Any]) -> None:
    """A 400 ``unsupported`` on the first field of :data:`UNSUPPORTED_FIELDS` that ``data`` (a legacy filter of
    ``kind``) sets to a value asking for more than the default answer."""
    for field in UNSUPPORTED_FIELDS:
        if kind in field.kinds and field.name in data and not field.accepts(data[field.name]):
            shown = json.dumps(data[field.name], default=str)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise ValidationError(
                f"{field.name} {shown} is not supported yet: in PostHog it {field.what}, which this backend does "
                "not calculate. Leave it out to get the answer without it.",
                attr=field.name,
                code="unsupported",
            )


def carry_node_fields(kind: str, source: Mapping[str, Any], legacy: dict[str, Any]) -> None:
    """Copy the fields of :data:`NODE_FIELDS` that the query node ``source`` sets onto ``legacy``, by their legacy
    names, so that the legacy checks see them."""
    for path, name in NODE_FIELDS.get(kind, {}).items():
        value: Any = source
        for part in path.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        if value is not None:
            legacy[name] = value
