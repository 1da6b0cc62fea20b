"""The funnel request: steps in order, the conversion window, exclusions and attribution.

``to_json()`` is the body of the legacy ``insights/funnel/`` endpoint and ``to_query()`` the ``FunnelsQuery``
node of PostHog's query API, as for the other requests of `toolkit.insight_requests`.

Examples
--------
>>> FunnelRequest(steps=["signup", "purchase"], funnel_order_type="strict").to_dict()["funnel_order_type"]
'strict'
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
    entity_dict,
    entity_node,
    ordered_entities,
    split_entities,
)

__all__ = ["FunnelRequest"]


def _exclusion(value: dict[str, Any] | tuple[Any, int, int]) -> dict[str, Any]:
    if isinstance(value, tuple):
        name, from_step, to_step = value
        value = {**entity_dict(name), "funnel_from_step": from_step, "funnel_to_step": to_step}
    return entity_dict(value)


@dataclass
class FunnelRequest(RequestBase):
    """A funnel calculation (``insights/funnel/``).

    Parameters
    ----------
    steps : list
        Steps in order: event names, `event` dicts, or action ids / `action` dicts. A name given alone
        (``steps="signup"``) is a funnel of that one step, not of its letters.
    funnel_order_type : str, optional
        ``ordered`` (default), ``strict`` or ``unordered``.
    funnel_viz_type : str, optional
        ``steps`` (default), ``trends`` (conversion over time) or ``time_to_convert``.
    funnel_window_interval, funnel_window_interval_unit : optional
        The conversion window, e.g. ``14`` and ``day`` (``second``, ``minute``, ``hour``, ``day``, ``week``,
        ``month``). Sent as PostHog's ``funnel_window_interval_unit`` and as the spec's
        ``funnel_window_interval_type`` (upper case).
    exclusions : list, optional
        Events that remove a person between two steps: dicts ``{"id", "funnel_from_step",
        "funnel_to_step"}`` or tuples ``(event, from_step, to_step)`` (steps 0-based as in PostHog).
    funnel_from_step, funnel_to_step, bin_count : int, optional
        Step range (0-based) for trends and time to convert; histogram bins for time to convert.
    breakdown_attribution_type, breakdown_attribution_value : optional
        ``first_touch`` (default), ``last_touch``, ``all_events`` or ``step`` (with the step index).
    Other parameters as for `TrendRequest`.

    Examples
    --------
    >>> body = FunnelRequest(steps=["signup", "purchase"], funnel_window_interval=1,
    ...                      funnel_window_interval_unit="hour").to_dict()
    >>> body["funnel_window_interval_unit"], body["funnel_window_interval_type"]
    ('hour', 'HOUR')
    """

    steps: list[Entity] | Entity = field(default_factory=list)
    date_from: DateLike | None = None
    date_to: DateLike | None = None
    interval: str | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    breakdown: str | int | list[Any] | None = None
    breakdown_type: str | None = None
    breakdown_limit: int | None = None
    breakdown_attribution_type: str | None = None
    breakdown_attribution_value: int | None = None
    funnel_order_type: str | None = None
    funnel_viz_type: str | None = None
    funnel_window_interval: int | None = None
    funnel_window_interval_unit: str | None = None
    exclusions: list[Any] | None = None
    funnel_from_step: int | None = None
    funnel_to_step: int | None = None
    bin_count: int | None = None
    aggregation_group_type_index: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def viz_type(self) -> str:
        """The visualisation the response will hold: ``steps``, ``trends`` or ``time_to_convert``."""
        return (self.funnel_viz_type or "steps").lower()

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        unit = self.funnel_window_interval_unit
        body: dict[str, Any] = {"insight": "FUNNELS", **split_entities(ordered_entities(self.steps))}
        body.update(
            drop_none(
                {
                    "date_from": self.date_from,
                    "date_to": self.date_to,
                    "interval": self.interval,
                    "properties": self.properties,
                    "filter_test_accounts": self.filter_test_accounts,
                    "breakdown": self.breakdown,
                    "breakdown_type": self.breakdown_type,
                    "breakdown_limit": self.breakdown_limit,
                    "breakdown_attribution_type": self.breakdown_attribution_type,
                    "breakdown_attribution_value": self.breakdown_attribution_value,
                    "funnel_order_type": self.funnel_order_type,
                    "funnel_viz_type": self.funnel_viz_type,
                    "funnel_window_interval": self.funnel_window_interval,
                    "funnel_window_interval_unit": unit.lower() if unit else None,
                    "funnel_window_interval_type": unit.upper() if unit else None,
                    "exclusions": [_exclusion(item) for item in self.exclusions] if self.exclusions else None,
                    "funnel_from_step": self.funnel_from_step,
                    "funnel_to_step": self.funnel_to_step,
                    "bin_count": self.bin_count,
                    "aggregation_group_type_index": self.aggregation_group_type_index,
                }
            )
        )
        return {**body, **self.extra}

    def to_query(self) -> dict[str, Any]:
        """The equivalent ``FunnelsQuery`` node of PostHog's query API.

        Examples
        --------
        >>> FunnelRequest(steps=["a", "b"], exclusions=[("x", 0, 1)]).to_query()["funnelsFilter"]["exclusions"]
        [{'kind': 'EventsNode', 'event': 'x', 'name': 'x', 'funnelFromStep': 0, 'funnelToStep': 1}]
        """
        exclusions = None
        if self.exclusions:
            exclusions = [
                {
                    **entity_node(item, with_math=False),
                    "funnelFromStep": item["funnel_from_step"],
                    "funnelToStep": item["funnel_to_step"],
                }
                for item in map(_exclusion, self.exclusions)
            ]
        unit = self.funnel_window_interval_unit
        funnels_filter = drop_none(
            {
                "funnelOrderType": self.funnel_order_type,
                "funnelVizType": self.funnel_viz_type,
                "funnelWindowInterval": self.funnel_window_interval,
                "funnelWindowIntervalUnit": unit.lower() if unit else None,
                "exclusions": exclusions,
                "funnelFromStep": self.funnel_from_step,
                "funnelToStep": self.funnel_to_step,
                "binCount": self.bin_count,
                "breakdownAttributionType": self.breakdown_attribution_type,
                "breakdownAttributionValue": self.breakdown_attribution_value,
            }
        )
        return drop_none(
            {
                "kind": "FunnelsQuery",
                "series": [entity_node(entity, with_math=False) for entity in ordered_entities(self.steps)],
                "dateRange": date_range_node(self.date_from, self.date_to, None),
                "interval": self.interval,
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
                "breakdownFilter": breakdown_filter_node(self),
                "funnelsFilter": funnels_filter or None,
                "aggregation_group_type_index": self.aggregation_group_type_index,
            }
        )
