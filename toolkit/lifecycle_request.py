"""The lifecycle request: per interval, who was new, returning, resurrecting or went dormant, for one event.

``to_json()`` is the body of the legacy ``insights/trend/`` endpoint (``insight: LIFECYCLE`` with PostHog's
``shown_as: Lifecycle``) and ``to_query()`` the ``LifecycleQuery`` node of PostHog's query API, as for the
other requests of `toolkit.insight_requests`.

Examples
--------
>>> LifecycleRequest("$pageview", interval="week").to_query()["series"]
[{'kind': 'EventsNode', 'event': '$pageview', 'name': '$pageview'}]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entities import (
    DateLike,
    Entity,
    RequestBase,
    as_entities,
    date_range_node,
    drop_none,
    entity_node,
    ordered_entities,
    split_entities,
)

__all__ = ["LifecycleRequest"]


@dataclass
class LifecycleRequest(RequestBase):
    """A lifecycle calculation (``insights/trend/`` with ``insight: LIFECYCLE``).

    Parameters
    ----------
    event : str, int or dict
        The one event or action whose actors are followed: an event name, an `event` dict, an action id or
        an `action` dict. A list of exactly one is read as that one.
    date_from, date_to, interval, properties, filter_test_accounts : optional
        As for `TrendRequest` (server defaults ``-7d`` to now, ``day``).
    aggregation_group_type_index : int, optional
        Follow groups of this type instead of persons.
    extra : dict
        Further body fields sent as they are.

    Raises
    ------
    ValueError
        For no event, or more than one: a lifecycle follows one.

    Examples
    --------
    >>> body = LifecycleRequest("signup", date_from="2026-01-01").to_dict()
    >>> body["insight"], body["events"]
    ('LIFECYCLE', [{'id': 'signup', 'type': 'events', 'order': 0}])
    """

    event: Entity | None = None
    date_from: DateLike | None = None
    date_to: DateLike | None = None
    interval: str | None = None
    properties: list[dict[str, Any]] | dict[str, Any] | None = None
    filter_test_accounts: bool | None = None
    aggregation_group_type_index: int | None = None
    explicit_date: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        events = as_entities(self.event, "event")
        if len(events) != 1:
            raise ValueError(f"a lifecycle follows exactly one event or action; got {len(events)}")
        self.event = events[0]

    def _entities(self) -> list[dict[str, Any]]:
        return ordered_entities([self.event] if self.event is not None else [])

    def to_dict(self) -> dict[str, Any]:
        """The legacy request body as a dict."""
        body: dict[str, Any] = {"insight": "LIFECYCLE", "shown_as": "Lifecycle", **split_entities(self._entities())}
        body.update(
            drop_none(
                {
                    "date_from": self.date_from,
                    "date_to": self.date_to,
                    "explicit_date": self.explicit_date,
                    "interval": self.interval,
                    "properties": self.properties,
                    "filter_test_accounts": self.filter_test_accounts,
                    "aggregation_group_type_index": self.aggregation_group_type_index,
                }
            )
        )
        return {**body, **self.extra}

    def to_query(self) -> dict[str, Any]:
        """The equivalent ``LifecycleQuery`` node of PostHog's query API."""
        return drop_none(
            {
                "kind": "LifecycleQuery",
                "series": [entity_node(entity) for entity in self._entities()],
                "dateRange": date_range_node(self.date_from, self.date_to, self.explicit_date),
                "interval": self.interval,
                "properties": self.properties,
                "filterTestAccounts": self.filter_test_accounts,
                "aggregation_group_type_index": self.aggregation_group_type_index,
            }
        )

    @classmethod
    def from_filters(cls, filters: dict[str, Any]) -> LifecycleRequest:
        """Rebuild a request from a legacy body or a saved LIFECYCLE insight's ``filters``.

        Examples
        --------
        >>> LifecycleRequest.from_filters({"insight": "LIFECYCLE", "events": [{"id": "a", "order": 0}]}).event
        {'id': 'a', 'order': 0}
        """
        entities = sorted(
            [*filters.get("events", []), *filters.get("actions", [])], key=lambda entity: entity.get("order") or 0
        )
        values = {key: value for key, value in filters.items() if key not in ("events", "actions", "shown_as")}
        values["event"] = entities[0] if len(entities) == 1 else entities
        return super().from_filters(values)
