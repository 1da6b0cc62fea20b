"""The stickiness request: in how many intervals of the range each actor did an event.

``to_json()`` is the body of the legacy ``insights/trend/`` endpoint (``insight: STICKINESS`` with PostHog's
``shown_as: Stickiness``) and ``to_query()`` the ``StickinessQuery`` node of PostHog's query API, as for the
other requests of `toolkit.insight_requests`.

Examples
--------
>>> StickinessRequest(events="$pageview", criteria=("gte", 3), cumulative=True).to_query()["stickinessFilter"]
{'computedAs': 'cumulative', 'stickinessCriteria': {'operator': 'gte', 'value': 3}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entities import (
    DateLike,
    Entity,
    RequestBase,
    breakdown_filter_node,
    date_range_node,
    drop_none,
    entity_node,
    ordered_entities,
    split_entities,
)

__all__ = ["CRITERIA_OPERATORS", "StickinessRequest", "as_criteria"]

CRITERIA_OPERATORS = ("gte", "lte", "exact")
"""How a criterion compares an actor's events in an interval with its value: at least, at most, exactly."""


def as_criteria(value: Any) -> dict[str, Any] | None:
    """``stickiness_criteria`` from a dict ``{"operator", "value"}`` or a pair ``(operator, value)``.

    Examples
    --------
    >>> as_criteria(("gte", 3)), as_criteria({"operator": "exact", "value": 1}), as_criteria(None)
    ({'operator': 'gte', 'value': 3}, {'operator': 'exact', 'value': 1}, None)
    """
    if value is None:
        return None
    if isinstance(value, tuple | list) and len(value) == 2:
        operator, count = value
        return {"operator": operator, "value": count}
    if isinstance(value, dict) and set(value) == {"operator", "value"}:
        return dict(value)
    raise TypeError(
        f"criteria must be (operator, value) or {{'operator': ..., 'value': ...}} with an operator of "
        f"{', '.join(CRITERIA_OPERATORS)}; got {value!r}"
    )


def _computed_as(cumulative: bool | None) -> str | None:
    return None if cumulative is None else ("cumulative" if cumulative else "non_cumulative")


@dataclass
class StickinessRequest(RequestBase):
    """A stickiness calculation (``insights/trend/`` with ``insight: STICKINESS``).

    Parameters
    ----------
    events : list
        Series, as for `TrendRequest`: event names, `event` dicts, action ids or `action` dicts; one alone
        is one series.
    date_from, date_to, interval, properties, filter_test_accounts : optional
        As for `TrendRequest` (server defaults ``-7d`` to now, ``day``).
    criteria : tuple or dict, optional
        When an interval counts for an actor: ``("gte", 3)`` (at least 3 events in it), ``("lte", n)``,
        ``("exact", n)``, or the dict ``{"operator", "value"}``. By default any event counts.
    cumulative : bool, optional
        Bucket k counts the actors active in k intervals *or more* (PostHog's ``computed_as: cumulative``).
    breakdown, breakdown_type, breakdown_limit : optional
        One series per value of a property (the local backend's extension of PostHog's stickiness).
    compare, compare_to : optional
        Add the previous period's series (``compare_label`` previous).
    aggregation_group_type_index : int, optional
        Count groups of this type instead of persons.
    extra : dict
        Further body fields sent as they are.

    Examples
    --------
    >>> body = StickinessRequest(events=["signup"], interval="week", criteria=("gte", 2)).to_dict()
    >>> body["insight"], body["interval"], body["stickiness_criteria"]
    ('STICKINESS', 'week', {'operator': 'gte', 'value': 2})
    """

    events: list[Entity] | Entity = field(default_factory=list)
    date_from: DateLike | None = None
    date_to: DateLike | None = None
    interval: str | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    criteria: tuple[str, int] | dict[str, Any] | None = None
    cumulative: bool | None = None
    breakdown: str | int | list[Any] | None = None
    breakdown_type: str | None = None
    breakdown_limit: int | None = None
    compare: bool | None = None
    compare_to: str | None = None
    aggregation_group_type_index: int | None = None
    explicit_date: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.criteria = as_criteria(self.criteria)

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        body: dict[str, Any] = {
            "insight": "STICKINESS",
            "shown_as": "Stickiness",
            **split_entities(ordered_entities(self.events)),
        }
        body.update(
            drop_none(
                {
                    "date_from": self.date_from,
                    "date_to": self.date_to,
                    "explicit_date": self.explicit_date,
                    "interval": self.interval,
                    "properties": self.properties,
                    "filter_test_accounts": self.filter_test_accounts,
                    "stickiness_criteria": self.criteria,
                    "computed_as": _computed_as(self.cumulative),
                    "breakdown": self.breakdown,
                    "breakdown_type": self.breakdown_type,
                    "breakdown_limit": self.breakdown_limit,
                    "compare": self.compare,
                    "compare_to": self.compare_to,
                    "aggregation_group_type_index": self.aggregation_group_type_index,
                }
            )
        )
        return {**body, **self.extra}

    def to_query(self) -> dict[str, Any]:
        """The equivalent ``StickinessQuery`` node of PostHog's query API.

        Examples
        --------
        >>> StickinessRequest(events="a", compare=True).to_query()["compareFilter"]
        {'compare': True}
        """
        compare = drop_none({"compare": self.compare, "compare_to": self.compare_to})
        stickiness_filter = drop_none(
            {"computedAs": _computed_as(self.cumulative), "stickinessCriteria": self.criteria}
        )
        return drop_none(
            {
                "kind": "StickinessQuery",
                "series": [entity_node(entity) for entity in ordered_entities(self.events)],
                "dateRange": date_range_node(self.date_from, self.date_to, self.explicit_date),
                "interval": self.interval,
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
                "breakdownFilter": breakdown_filter_node(self),
                "compareFilter": compare or None,
                "stickinessFilter": stickiness_filter or None,
                "aggregation_group_type_index": self.aggregation_group_type_index,
            }
        )

    @classmethod
    def from_filters(cls, filters: dict[str, Any]) -> StickinessRequest:
        """Rebuild a request from a legacy body or a saved STICKINESS insight's ``filters``.

        Examples
        --------
        >>> StickinessRequest.from_filters({"insight": "STICKINESS", "events": [{"id": "a", "order": 0}],
        ...     "computed_as": "cumulative", "stickiness_criteria": {"operator": "gte", "value": 2}}).criteria
        {'operator': 'gte', 'value': 2}
        """
        values = {key: value for key, value in filters.items() if key not in ("shown_as", "computed_as")}
        if "stickiness_criteria" in values:
            values["criteria"] = values.pop("stickiness_criteria")
        if filters.get("computed_as") is not None:
            values["cumulative"] = filters["computed_as"] == "cumulative"
        return super().from_filters(values)
