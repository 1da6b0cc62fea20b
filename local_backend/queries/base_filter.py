"""The typed filter trends and funnels share, read once from a request's query string and body.

``BaseFilter`` holds what both calculations read: the entities (``events`` and ``actions``), the date range,
``interval``, the global ``properties``, ``filter_test_accounts``, the breakdown and the aggregation group.
On GET every array or object travels as JSON text in the query string, on POST natively in the body; the
route merges both (:func:`local_backend.web.filter_request.read_filter_params`, the body wins) and calls
:func:`.filter_parsing.parse_filter` with a subclass of this model. A bad value is a 400 whose ``attr`` names
the field (``events__0__math``, ``properties__1__operator``). The size of the whole filter is bounded
(:mod:`local_backend.limits`): series, property conditions and regex conditions of the request together.

Entities are ordered as PostHog orders them: actions first, then events, stably sorted by ``order`` where a
missing or zero ``order`` sorts as -1; ``index`` is the position after sorting (formula letter A is index 0).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from ..errors import ValidationError
from ..limits import MAX_CONDITIONS_PER_REQUEST, MAX_ENTITIES, MAX_REGEX_CONDITIONS_PER_REQUEST
from ..models.fields import Flag, Int64, Integer, NameOrId, PropertyKey, check_int64, key_problem, or_absent
from ..models.property_filters import EMPTY_GROUP, PropertyFilter, PropertyGroup, count_conditions, parse_properties
from ..store.engine.choice import event_store
from ..store.materialized import materialized_columns
from .actions import action_condition, load_action
from .dates import INTERVALS, DateRange, resolve_date_range
from .filter_parsing import decode_json_text
from .properties import PropertyCompiler, Sql

__all__ = [
    "Entity",
    "BaseFilter",
    "MATHS",
    "PROPERTY_MATHS",
    "BREAKDOWN_TYPES",
    "DEFAULT_BREAKDOWN_LIMIT",
    "NEEDS_A_SERIES",
    "entity_condition",
    "entity_labels",
    "global_condition",
    "compiler_for",
]

PROPERTY_MATHS = ("sum", "avg", "min", "max", "median", "p75", "p90", "p95", "p99")
COUNT_PER_ACTOR_MATHS = tuple(
    f"{name}_count_per_actor" for name in ("avg", "min", "max", "median", "p75", "p90", "p95", "p99")
)
MATHS = (
    "total",
    "dau",
    "weekly_active",
    "monthly_active",
    "unique_group",
    "unique_session",
    *PROPERTY_MATHS,
    *COUNT_PER_ACTOR_MATHS,
)
BREAKDOWN_TYPES = ("event", "person", "cohort", "group", "session", "hogql")
DEFAULT_BREAKDOWN_LIMIT = 25
# The schema of a filter that needs a series (trends and funnels): events or actions holds one.
NEEDS_A_SERIES: dict[str, Any] = {
    "anyOf": [{"required": [kind], "properties": {kind: {"minItems": 1}}} for kind in ("events", "actions")]
}
MAX_BREAKDOWN_LIMIT = 1_000


class Entity(BaseModel):
    """One series: an event (``id`` its name, null for all events) or an action (``id`` the action id)."""

    model_config = ConfigDict(extra="ignore")

    id: NameOrId | None = None
    type: Literal["events", "actions"] = "events"
    order: Int64 | None = None
    name: str | None = None
    custom_name: str | None = None
    math: str | None = None
    math_property: PropertyKey | None = None
    math_hogql: str | None = None
    math_group_type_index: Integer | None = Field(None, ge=0, le=4)
    properties: PropertyFilter = EMPTY_GROUP
    index: Integer = 0

    @field_validator("math")
    @classmethod
    def _known_math(cls, value: str | None) -> str | None:
        if value is not None and value not in MATHS:
            raise ValueError(f"Unknown math '{value}': use one of {', '.join(MATHS)}")
        return value

    @model_validator(mode="after")
    def _math_needs(self) -> Entity:
        if self.math in PROPERTY_MATHS and not self.math_property:
            raise ValueError(f"Math '{self.math}' needs a math_property")
        if self.math == "unique_group" and self.math_group_type_index is None:
            raise ValueError("Math 'unique_group' needs a math_group_type_index")
        if self.type == "actions":
            if isinstance(self.id, str) and self.id.isascii() and self.id.isdigit() and len(self.id) < 19:
                self.id = int(self.id)
            if not isinstance(self.id, int):
                raise ValueError("An action entity needs the action's integer id")
        elif isinstance(self.id, int):
            self.id = str(self.id)
        return self

    def echo(self) -> dict[str, Any]:
        """The ``action`` object of a series (PostHog's keys); an event entity without a name is named by its id."""
        name = self.name
        if name is None and self.type == "events":
            name = str(self.id) if self.id is not None else "All events"
        return {
            "id": self.id,
            "type": self.type,
            "order": self.order,
            "name": name,
            "custom_name": self.custom_name,
            "math": self.math,
            "math_hogql": self.math_hogql,
            "math_property": self.math_property,
            "math_group_type_index": self.math_group_type_index,
            "properties": [],
        }


def _prepare_entities(data: dict[str, Any]) -> None:
    for kind in ("events", "actions"):
        items = decode_json_text(data.get(kind), kind)
        if items is None:
            continue
        if not isinstance(items, list):
            raise ValidationError(f"Expected a list of {kind}.", attr=kind)
        if len(items) > MAX_ENTITIES:
            raise ValidationError(f"A request holds at most {MAX_ENTITIES} {kind}.", attr=kind)
        prepared = []
        for index, item in enumerate(items):
            if isinstance(item, dict):
                item = dict(item)
                item.setdefault("type", kind)
                item["properties"] = parse_properties(item.get("properties"), f"{kind}__{index}__properties")
                if item.get("math") in PROPERTY_MATHS and not item.get("math_property"):
                    raise ValidationError(
                        f"Math '{item['math']}' needs a math_property.", attr=f"{kind}__{index}__math_property"
                    )
                if item.get("math") == "unique_group" and item.get("math_group_type_index") is None:
                    raise ValidationError(
                        "Math 'unique_group' needs a math_group_type_index.",
                        attr=f"{kind}__{index}__math_group_type_index",
                    )
            prepared.append(item)
        data[kind] = prepared


class BaseFilter(BaseModel):
    """The filter trends and funnels share (module docstring). Unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")
    # whether ``breakdown`` may name several properties at once (funnels break down by a list)
    breakdown_lists: ClassVar[bool] = False

    events: list[Entity] = Field(default_factory=list, max_length=MAX_ENTITIES)
    actions: list[Entity] = Field(default_factory=list, max_length=MAX_ENTITIES)
    date_from: str | None = None
    date_to: str | None = None
    explicit_date: Flag = False
    interval: Literal["hour", "day", "week", "month"] = "day"
    properties: PropertyFilter = EMPTY_GROUP
    filter_test_accounts: Flag = False
    breakdown: Annotated[str | Int64 | list[str | Int64] | None, BeforeValidator(check_int64)] = None
    breakdown_type: Literal["event", "person", "cohort", "group", "session", "hogql"] | None = None
    breakdown_limit: Integer = Field(DEFAULT_BREAKDOWN_LIMIT, ge=1, le=MAX_BREAKDOWN_LIMIT, json_schema_extra=or_absent)
    breakdown_group_type_index: Integer | None = Field(None, ge=0, le=4)
    aggregation_group_type_index: Integer | None = Field(None, ge=0, le=4)

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        _prepare_entities(data)
        data["properties"] = parse_properties(decode_json_text(data.get("properties"), "properties"), "properties")
        data["breakdown"] = decode_json_text(data.get("breakdown"), "breakdown")
        if isinstance(data.get("interval"), str):
            interval = data["interval"].lower()
            data["interval"] = "hour" if interval == "minute" else interval
        for key in ("date_from", "date_to"):
            if data.get(key) is not None and not isinstance(data[key], str):
                data[key] = str(data[key])
        if data.get("breakdown_limit") in (None, ""):
            data.pop("breakdown_limit", None)
        return data

    @field_validator("interval", mode="before")
    @classmethod
    def _known_interval(cls, value: Any) -> Any:
        if value is not None and value not in INTERVALS:
            raise ValueError(f"Unknown interval '{value}': use one of {', '.join(INTERVALS)}")
        return value

    @field_validator("breakdown_type", mode="before")
    @classmethod
    def _known_breakdown_type(cls, value: Any) -> Any:
        if value is not None and value not in BREAKDOWN_TYPES:
            raise ValueError(f"Unknown breakdown_type '{value}': use one of {', '.join(BREAKDOWN_TYPES)}")
        return value

    @model_validator(mode="after")
    def _breakdown_needs(self) -> BaseFilter:
        if self.breakdown in (None, "", []):
            self.breakdown = None
            return self
        kind = self.breakdown_type or "event"
        self.breakdown_type = kind
        if kind == "group" and self.breakdown_group_type_index is None:
            raise ValidationError(
                "A group breakdown needs breakdown_group_type_index.", attr="breakdown_group_type_index"
            )
        names = self.breakdown if self.breakdown_lists and isinstance(self.breakdown, list) else [self.breakdown]
        if kind != "cohort" and not all(isinstance(name, str) and name for name in names):
            shape = "a property name or a list of them" if self.breakdown_lists else "a property name (a string)"
            raise ValidationError(f"A breakdown of type {kind} is {shape}.", attr="breakdown")
        if kind not in ("cohort", "hogql"):
            for name in names:
                problem = key_problem(name)
                if problem is not None:
                    raise ValidationError(f"A breakdown property name {problem}.", attr="breakdown")
        return self

    def property_groups(self) -> list[PropertyGroup]:
        """Every property filter of the request: its own and each series'."""
        return [self.properties, *(entity.properties for entity in [*self.events, *self.actions])]

    @model_validator(mode="after")
    def _bounded_size(self) -> BaseFilter:
        groups = self.property_groups()
        if sum(count_conditions(group) for group in groups) > MAX_CONDITIONS_PER_REQUEST:
            raise ValidationError(
                f"A request holds at most {MAX_CONDITIONS_PER_REQUEST} property conditions in all.", attr="properties"
            )
        regexes = sum(count_conditions(group, ("regex", "not_regex")) for group in groups)
        if regexes > MAX_REGEX_CONDITIONS_PER_REQUEST:
            raise ValidationError(
                f"A request holds at most {MAX_REGEX_CONDITIONS_PER_REQUEST} regex conditions in all.",
                attr="properties",
            )
        return self

    @property
    def entities(self) -> list[Entity]:
        """Actions then events, stably sorted by ``order`` (missing or 0 as -1), ``index`` set."""
        merged = [*self.actions, *self.events]
        ordered = sorted(merged, key=lambda entity: entity.order if entity.order else -1)
        return [entity.model_copy(update={"index": index}) for index, entity in enumerate(ordered)]


def entity_condition(compiler: PropertyCompiler, entity: Entity, attr: str) -> Sql:
    """SQL over ``events e`` for one entity: its event (any event when ``id`` is null) or action, and its
    own properties."""
    if entity.type == "actions":
        sql, params = action_condition(compiler, entity.id, f"{attr}__id")
    elif entity.id is None:
        sql, params = "1", []
    else:
        sql, params = "e.event = ?", [str(entity.id)]
    props_sql, props_params = compiler.compile(entity.properties, f"{attr}__properties")
    if props_sql == "1":
        return sql, params
    return f"({sql} AND {props_sql})", [*params, *props_params]


def entity_labels(conn: sqlite3.Connection, project_id: int, entities: list[Entity]) -> dict[int, str] | None:
    """Each entity's label by index (action name, event name, "All events"); None when an action does not exist."""
    labels: dict[int, str] = {}
    for entity in entities:
        if entity.type == "actions":
            action = load_action(conn, project_id, entity.id)
            if action is None:
                return None
            labels[entity.index] = str(action["name"])
        else:
            labels[entity.index] = entity.name or (str(entity.id) if entity.id is not None else "All events")
    return labels


def global_condition(compiler: PropertyCompiler, filter: BaseFilter, project: dict[str, Any]) -> Sql:
    """The filter's own properties, ANDed with the project's ``test_account_filters`` when asked for."""
    sql, params = compiler.compile(filter.properties, "properties")
    if filter.filter_test_accounts and project.get("test_account_filters"):
        extra_sql, extra_params = compiler.compile(project["test_account_filters"], "filter_test_accounts")
        if sql == "1":
            return extra_sql, extra_params
        if extra_sql != "1":
            return f"({sql} AND {extra_sql})", [*params, *extra_params]
    return sql, params


def compiler_for(conn: sqlite3.Connection, project: dict[str, Any]) -> PropertyCompiler:
    """A property compiler for ``project`` writing the dialect of the event store of ``conn`` (which makes its
    functions available there)."""
    dialect = event_store(conn).dialect
    project_id = int(project["id"])
    materialized = materialized_columns(conn, project_id)
    return PropertyCompiler(
        conn=conn, project_id=project_id, dialect=dialect, materialized=materialized, record_uses=True
    )


def filter_date_range(
    conn: sqlite3.Connection, project: dict[str, Any], filter: BaseFilter, now: datetime
) -> DateRange:
    """The range a trend or funnel filter covers, by the shared date rules, in the project's timezone and week;
    ``date_from: "all"`` starts at the project's first plausible event."""
    return resolve_date_range(
        date_from=filter.date_from,
        date_to=filter.date_to,
        interval=filter.interval,
        explicit_date=filter.explicit_date,
        tz=ZoneInfo(project.get("timezone") or "UTC"),
        now=now,
        week_start_day=1 if project.get("week_start_day") == 1 else 0,
        earliest_event=lambda: event_store(conn).earliest_event(int(project["id"])),
    )
