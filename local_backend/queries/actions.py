"""Actions compiled to SQL over ``events e``: an event matches an action when it matches any of its steps.

A step (``actions.steps``) may name an ``event``, a ``url`` with ``url_matching`` ``contains`` (default),
``exact`` or ``regex`` (against ``$current_url``), element matchers (``tag_name``, ``text``, ``href``,
``selector``) and ``properties``; every given part must match.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from ..errors import ValidationError
from ..models.property_filters import Property
from ..safe_regex import compile_pattern
from ..store.actions import action_id_of, live_actions
from .elements import element_condition
from .properties import PropertyCompiler, Sql

__all__ = ["action_condition", "event_names", "load_action", "UnknownAction"]


class UnknownAction(ValidationError):
    """The filter names an action this project does not have (or that was deleted)."""


def load_action(conn: sqlite3.Connection, project_id: int, action_id: Any) -> dict[str, Any] | None:
    """The project's live action ``action_id`` (its ``id``, ``name`` and ``steps``), or None."""
    number = action_id_of(action_id)
    return live_actions(conn, project_id, [number]).get(number) if number is not None else None


def event_names(conn: sqlite3.Connection, project_id: int, series: Iterable[tuple[str, Any]]) -> list[str] | None:
    """The event names that can match any of ``series`` (each ``(type, id)``: ``"events"`` and a name, None for
    every event, or ``"actions"`` and an action id), sorted; None when one of them matches any event."""
    series = list(series)
    names: list[str] = []
    actions = live_actions(conn, project_id, [id for kind, id in series if kind != "events"])
    for kind, id in series:
        if kind == "events":
            if id is None:
                return None
            names.append(str(id))
            continue
        action = actions.get(action_id_of(id) or 0)
        for step in action["steps"] if action is not None else []:
            if not step.get("event"):
                return None
            names.append(str(step["event"]))
    return sorted(set(names))


def _step(step: dict[str, Any], compiler: PropertyCompiler, attr: str) -> Sql:
    parts: list[str] = []
    params: list[Any] = []
    if step.get("event"):
        parts.append("e.event = ?")
        params.append(str(step["event"]))
    if step.get("url"):
        matching = step.get("url_matching") or "contains"
        url_prop = {"exact": "exact", "contains": "icontains", "regex": "regex"}.get(matching)
        if url_prop is None:
            raise ValidationError(f"Unknown url_matching '{matching}'.", attr=f"{attr}__url_matching")
        if matching == "regex":
            compile_pattern(step["url"], attr=f"{attr}__url")
        value = step["url"] if matching != "contains" else str(step["url"])
        sql, url_params = compiler.compile([{"key": "$current_url", "value": value, "operator": url_prop}], attr)
        parts.append(sql)
        params.extend(url_params)
    for key in ("tag_name", "text", "href", "selector"):
        if step.get(key):
            sql, element_params = element_condition(
                Property(key=key, value=step[key], type="element"), compiler.dialect
            )
            parts.append(sql)
            params.extend(element_params)
    sql, prop_params = compiler.compile(step.get("properties"), f"{attr}__properties")
    parts.append(sql)
    params.extend(prop_params)
    return "(" + " AND ".join(parts) + ")", params


def action_condition(compiler: PropertyCompiler, action_id: Any, attr: str) -> Sql:
    """SQL matching the action's events; :class:`UnknownAction` (a 400) when there is no such action."""
    action = compiler.action(action_id)
    if action is None:
        raise UnknownAction(f"Action {action_id} does not exist.", attr=attr, code="does_not_exist")
    steps = [_step(step, compiler, f"{attr}__steps__{index}") for index, step in enumerate(action["steps"])]
    if not steps:
        return "0", []
    return "(" + " OR ".join(sql for sql, _ in steps) + ")", [p for _, params in steps for p in params]
