"""PostHog's current query nodes, translated onto the legacy filters the engines read.

One engine, two front doors: ``POST /query/`` with a ``TrendsQuery`` computes exactly what
``insights/trend/`` computes for the equivalent legacy filter. This module only renames and reshapes;
the engines validate values (unknown math, bad dates, ...).

=================  =====================  ==================================================
node               legacy ``insight``     notable renames
=================  =====================  ==================================================
TrendsQuery        TRENDS                 series -> events/actions, trendsFilter.display/formula,
                                          compareFilter.compare/compare_to
FunnelsQuery       FUNNELS                funnelsFilter.funnelOrderType -> funnel_order_type, ...
RetentionQuery     RETENTION              retentionFilter.targetEntity -> target_entity, ...
PathsQuery         PATHS                  pathsFilter.includeEventTypes -> include_event_types, ...,
                                          funnelPathsFilter -> funnel_paths, funnel_step and
                                          funnel_filter (its funnelSource translated)
StickinessQuery    STICKINESS             series -> events/actions, stickinessFilter.computedAs ->
                                          computed_as, stickinessFilter.stickinessCriteria ->
                                          stickiness_criteria, compareFilter.compare/compare_to
LifecycleQuery     LIFECYCLE              series -> events/actions (one)
=================  =====================  ==================================================

Every node takes ``dateRange`` (date_from, date_to, explicitDate), ``properties``, ``filterTestAccounts``,
``breakdownFilter`` and ``aggregation_group_type_index``; an ``InsightVizNode`` is unwrapped to its ``source``.
Node fields that change the answer and are not calculated here are carried onto their legacy names
(:func:`..queries.unsupported_fields.carry_node_fields`), where the calculation refuses them by name.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationError
from ..models.fields import check_int64
from ..queries.unsupported_fields import carry_node_fields

__all__ = ["QUERY_KINDS", "translate_query", "insight_kind_of", "node_object"]

QUERY_KINDS = {
    "TrendsQuery": "TRENDS",
    "FunnelsQuery": "FUNNELS",
    "RetentionQuery": "RETENTION",
    "PathsQuery": "PATHS",
    "StickinessQuery": "STICKINESS",
    "LifecycleQuery": "LIFECYCLE",
}
_FUNNEL_FIELDS = {
    "funnelOrderType": "funnel_order_type",
    "funnelVizType": "funnel_viz_type",
    "funnelWindowInterval": "funnel_window_interval",
    "funnelFromStep": "funnel_from_step",
    "funnelToStep": "funnel_to_step",
    "breakdownAttributionType": "breakdown_attribution_type",
    "breakdownAttributionValue": "breakdown_attribution_value",
    "binCount": "bin_count",
}
_RETENTION_FIELDS = {
    "period": "period",
    "totalIntervals": "total_intervals",
    "retentionType": "retention_type",
    "retentionReference": "retention_reference",
}
_PATHS_FIELDS = {
    "includeEventTypes": "include_event_types",
    "startPoint": "start_point",
    "endPoint": "end_point",
    "stepLimit": "step_limit",
    "pathGroupings": "path_groupings",
    "excludeEvents": "exclude_events",
    "edgeLimit": "edge_limit",
    "minEdgeWeight": "min_edge_weight",
    "maxEdgeWeight": "max_edge_weight",
}
_STICKINESS_FIELDS = {
    "computedAs": "computed_as",
    "stickinessCriteria": "stickiness_criteria",
    "display": "display",
}
_ENTITY_FIELDS = ("custom_name", "math", "math_property", "math_group_type_index", "math_hogql", "properties")


def node_object(value: Any, attr: str) -> dict[str, Any]:
    """A node field that is an object (an absent one as empty); a 400 at ``attr`` for anything else."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError("Expected an object.", attr=attr)
    return value


def _entity(node: Any, order: int, attr: str) -> tuple[str, dict[str, Any]]:
    """A series node as a legacy entity: ("events" | "actions", entity)."""
    node = node_object(node, attr)
    kind = node.get("kind", "EventsNode")
    entity: dict[str, Any] = {"order": order}
    for field in _ENTITY_FIELDS:
        if node.get(field) is not None:
            entity[field] = node[field]
    if kind == "EventsNode":
        entity.update(id=node.get("event"), name=node.get("name") or node.get("event"), type="events")
        return "events", entity
    if kind == "ActionsNode":
        if node.get("id") is None:
            raise ValidationError("An ActionsNode needs the action's id.", attr=f"{attr}__id")
        try:
            check_int64(node["id"])
        except ValueError:
            raise ValidationError("An action id must fit in 64 bits.", attr=f"{attr}__id") from None
        entity.update(id=node["id"], name=node.get("name"), type="actions")
        return "actions", entity
    raise ValidationError(f"Unsupported series kind '{kind}'.", attr=f"{attr}__kind")


def _series(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    series = source.get("series")
    if not isinstance(series, list):
        raise ValidationError("Expected a list of series.", attr="query__series")
    legacy["events"], legacy["actions"] = [], []
    for order, node in enumerate(series):
        bucket, entity = _entity(node, order, f"query__series__{order}")
        legacy[bucket].append(entity)


def _common(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    date_range = node_object(source.get("dateRange"), "query__dateRange")
    for key in ("date_from", "date_to"):
        if date_range.get(key) is not None:
            legacy[key] = date_range[key]
    if date_range.get("explicitDate") is not None:
        legacy["explicit_date"] = date_range["explicitDate"]
    if source.get("properties") is not None:
        legacy["properties"] = source["properties"]
    if source.get("filterTestAccounts") is not None:
        legacy["filter_test_accounts"] = source["filterTestAccounts"]
    if source.get("interval") is not None:
        legacy["interval"] = source["interval"]
    if source.get("aggregation_group_type_index") is not None:
        legacy["aggregation_group_type_index"] = source["aggregation_group_type_index"]
    breakdown = node_object(source.get("breakdownFilter"), "query__breakdownFilter")
    for key in (
        "breakdown",
        "breakdown_type",
        "breakdown_limit",
        "breakdown_group_type_index",
        "breakdown_normalize_url",
    ):
        if breakdown.get(key) is not None:
            legacy[key] = breakdown[key]


def _renamed(block: dict[str, Any], names: dict[str, str], legacy: dict[str, Any]) -> None:
    for new, old in names.items():
        if block.get(new) is not None:
            legacy[old] = block[new]


def _compare(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    compare = node_object(source.get("compareFilter"), "query__compareFilter")
    if compare.get("compare") is not None:
        legacy["compare"] = compare["compare"]
    if compare.get("compare_to") is not None:
        legacy["compare_to"] = compare["compare_to"]


def _trends(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    _series(source, legacy)
    trends = node_object(source.get("trendsFilter"), "query__trendsFilter")
    for key in ("display", "formula"):
        if trends.get(key) is not None:
            legacy[key] = trends[key]
    _formulas(trends, legacy)
    _compare(source, legacy)


def _stickiness(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    _series(source, legacy)
    stickiness = node_object(source.get("stickinessFilter"), "query__stickinessFilter")
    _renamed(stickiness, _STICKINESS_FIELDS, legacy)
    _compare(source, legacy)


def _lifecycle(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    _series(source, legacy)
    lifecycle = node_object(source.get("lifecycleFilter"), "query__lifecycleFilter")
    if lifecycle.get("display") is not None:
        legacy["display"] = lifecycle["display"]


def _formulas(trends: dict[str, Any], legacy: dict[str, Any]) -> None:
    """``formulaNodes`` / ``formulas`` (PostHog's current spelling): one formula is ``formula``; more stay a list,
    which the trend refuses (one formula series is calculated here)."""
    nodes = trends.get("formulaNodes")
    if nodes is not None:
        if not isinstance(nodes, list):
            raise ValidationError("Expected a list of formula nodes.", attr="query__trendsFilter__formulaNodes")
        formulas = [node_object(node, "query__trendsFilter__formulaNodes").get("formula") for node in nodes]
    else:
        formulas = trends.get("formulas")
    if not isinstance(formulas, list) or not formulas:
        return
    if len(formulas) == 1 and legacy.get("formula") is None:
        legacy["formula"] = formulas[0]
    elif len(formulas) > 1:
        legacy["formulas"] = formulas


def _funnels(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    _series(source, legacy)
    funnels = node_object(source.get("funnelsFilter"), "query__funnelsFilter")
    _renamed(funnels, _FUNNEL_FIELDS, legacy)
    if funnels.get("funnelWindowIntervalUnit") is not None:
        legacy["funnel_window_interval_type"] = str(funnels["funnelWindowIntervalUnit"]).upper()
    exclusions = funnels.get("exclusions") or []
    if not isinstance(exclusions, list):
        raise ValidationError("Expected a list of exclusions.", attr="query__funnelsFilter__exclusions")
    legacy["exclusions"] = []
    for index, node in enumerate(exclusions):
        attr = f"query__funnelsFilter__exclusions__{index}"
        _, entity = _entity(node, index, attr)
        entity["funnel_from_step"] = node_object(node, attr).get("funnelFromStep")
        entity["funnel_to_step"] = node_object(node, attr).get("funnelToStep")
        legacy["exclusions"].append(entity)


def _retention_entity(node: Any, attr: str) -> dict[str, Any]:
    node = node_object(node, attr)
    entity = {key: node[key] for key in ("id", "name", "type", "order", "properties") if node.get(key) is not None}
    entity.setdefault("type", "events")
    return entity


def _retention(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    retention = node_object(source.get("retentionFilter"), "query__retentionFilter")
    _renamed(retention, _RETENTION_FIELDS, legacy)
    for new, old in (("targetEntity", "target_entity"), ("returningEntity", "returning_entity")):
        if retention.get(new) is not None:
            legacy[old] = _retention_entity(retention[new], f"query__retentionFilter__{new}")


def _paths(source: dict[str, Any], legacy: dict[str, Any]) -> None:
    paths = node_object(source.get("pathsFilter"), "query__pathsFilter")
    _renamed(paths, _PATHS_FIELDS, legacy)
    funnel = node_object(source.get("funnelPathsFilter"), "query__funnelPathsFilter")
    if funnel.get("funnelPathType") is not None:
        legacy["funnel_paths"] = funnel["funnelPathType"]
    if funnel.get("funnelStep") is not None:
        legacy["funnel_step"] = funnel["funnelStep"]
    if funnel.get("funnelSource") is not None:
        kind, inner = translate_query(funnel["funnelSource"])
        if kind != "FUNNELS":
            raise ValidationError("funnelSource is a FunnelsQuery.", attr="query__funnelPathsFilter__funnelSource")
        legacy["funnel_filter"] = inner


_TRANSLATORS = {
    "TRENDS": _trends,
    "FUNNELS": _funnels,
    "RETENTION": _retention,
    "PATHS": _paths,
    "STICKINESS": _stickiness,
    "LIFECYCLE": _lifecycle,
}


def insight_kind_of(query: Any) -> str:
    """The legacy ``insight`` kind a query node computes (``InsightVizNode`` unwrapped)."""
    node = node_object(query, "query")
    if node.get("kind") == "InsightVizNode":
        node = node_object(node.get("source"), "query__source")
    kind = node.get("kind")
    if kind not in QUERY_KINDS:
        supported = ", ".join(sorted(QUERY_KINDS))
        raise ValidationError(f"Unsupported query kind '{kind}': supported kinds are {supported}.", attr="query__kind")
    return QUERY_KINDS[kind]


def translate_query(query: Any) -> tuple[str, dict[str, Any]]:
    """(legacy insight kind, legacy filter) for a query node."""
    kind = insight_kind_of(query)
    source = query["source"] if query.get("kind") == "InsightVizNode" else query
    legacy: dict[str, Any] = {"insight": kind}
    _common(source, legacy)
    _TRANSLATORS[kind](source, legacy)
    carry_node_fields(kind, source, legacy)
    return kind, legacy
