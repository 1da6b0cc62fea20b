"""Schemathesis against the app's own schema, in process: every answer must be what /api/schema/ declares.

Path ids are pinned to real objects of a test project and every request carries a key with all scopes, so the
generated cases reach the routes' logic instead of stopping at 401/404. Examples are bounded and derandomized
so the run is deterministic and short.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.python.asgi import ASGIClient
from schemathesis.specs.openapi.checks import positive_data_acceptance

from local_backend.app import create_app
from local_backend.clock import FixedClock
from local_backend.config import Settings
from local_backend.store.accounts import create_personal_api_key, get_or_create_user
from local_backend.store.engine.choice import open_database
from local_backend.store.projects import create_project

MAX_EXAMPLES = 8
# Operations where a request the schema calls valid may still be refused, for a reason JSON Schema cannot state
# (a rule across fields, or an id naming an object that does not exist). For them schemathesis' acceptance check
# is replaced by a narrower one: the refusal is the error envelope with one of the listed codes, naming a field.
# Every other check (status codes, content types, bodies, negative data rejected) still applies.
SOFT_DELETE = {"method_not_allowed"}  # DELETE is declared so that clients see the refusal: PATCH {"deleted": true}
MISSING = {"does_not_exist"}  # an id that names no object of the project
# A property condition's key or value read by a grammar: a regex must compile, a HogQL key parse, a date condition's
# value be a date; and rules across a condition's fields (element and session conditions take their own keys, a
# number for gt/gte/lt/lte, a cohort id for cohorts, in/not_in only for cohorts).
CONDITION_GRAMMARS = {"invalid_input"}
DECLARED_REFUSALS: dict[str, set[str]] = {
    "DELETE /api/projects/{project_id}/actions/{id}": SOFT_DELETE,
    "DELETE /api/projects/{project_id}/cohorts/{id}": SOFT_DELETE,
    "DELETE /api/projects/{project_id}/insights/{id}": SOFT_DELETE,
    "GET /api/projects/{project_id}/insights/{id}": MISSING,  # from_dashboard
    "POST /api/projects/{project_id}/insights": MISSING,  # dashboards
    "PATCH /api/projects/{project_id}/insights/{id}": MISSING,  # dashboards
    # cohort; properties is JSON text in a query parameter: a schema can say it is text, not what the text holds
    "GET /api/projects/{project_id}/persons": MISSING | {"invalid_input"},
    # plugin; config holds the fields of the plugin named by plugin (its own config schema, one per plugin)
    "POST /api/projects/{project_id}/plugin_configs": MISSING | {"invalid_input", "required"},
    # the keys of orders are the ids of the project's enabled plugin configs
    "PATCH /api/projects/{project_id}/plugin_configs/rearrange": MISSING,
    # a name is required on create (the body is shared with update) and unique in the project; the steps' regexes
    # and property conditions must parse
    "POST /api/projects/{project_id}/actions": {"required", "unique"} | CONDITION_GRAMMARS,
    "PATCH /api/projects/{project_id}/actions/{id}": {"unique"} | CONDITION_GRAMMARS,
    # fields declared so that clients learn they are refused (retention's several breakdowns) or that need one
    # another (a breakdown and its type's needs; paths within a funnel: the kind, the funnel and its step)
    "POST /api/projects/{project_id}/insights/retention": {"invalid_input", "does_not_exist"} | CONDITION_GRAMMARS,
    "POST /api/projects/{project_id}/insights/path": {"unsupported", "required", "invalid_input", "does_not_exist"}
    | CONDITION_GRAMMARS,
    # members only for a static cohort; a property-based cohort's rules (free-form JSON) must be person property
    # conditions the person filter parser reads
    "POST /api/projects/{project_id}/cohorts": {"invalid_input"},
    # persons are added only to a static cohort, and only persons the project holds (rules against stored rows)
    "PATCH /api/projects/{project_id}/cohorts/{id}/add_persons_to_static_cohort": {"invalid_input"},
    # is_static cannot change: a rule against the stored cohort
    "PATCH /api/projects/{project_id}/cohorts/{id}": {"invalid_input"},
    # the calculation routes read their filter from query parameters the schema does not list one by one (the
    # POST body's fields, as JSON text): a request without a series is refused
    "GET /api/projects/{project_id}/insights/trend": {"invalid_input"},
    "GET /api/projects/{project_id}/insights/funnel": {"required"},
    "GET /api/projects/{project_id}/insights/funnel/correlation": {"required"},
    "GET /api/projects/{project_id}/persons/funnel": {"required", "invalid_input"},
    "GET /api/projects/{project_id}/persons/funnel/correlation": {"required"},
    "GET /api/projects/{project_id}/persons/retention": {"invalid_input"},  # selected_* beyond the intervals
    # a point the calculation does not show (a series, breakdown value, bucket, interval or path node not on it)
    "GET /api/projects/{project_id}/persons/trends": {"invalid_input"},
    "GET /api/projects/{project_id}/persons/stickiness": {"invalid_input"},
    "GET /api/projects/{project_id}/persons/lifecycle": {"invalid_input"},
    "GET /api/projects/{project_id}/persons/paths": {"invalid_input"},
    # a series of type actions names an action of the project; a funnel's funnel_from_step, funnel_to_step and
    # exclusions lie within the steps it was given; correlation of group funnels is not supported
    "POST /api/projects/{project_id}/insights/funnel/correlation": MISSING
    | {"unsupported", "required"}
    | CONDITION_GRAMMARS,
    "POST /api/projects/{project_id}/insights/trend": MISSING | CONDITION_GRAMMARS,
    "POST /api/projects/{project_id}/insights/funnel": MISSING | CONDITION_GRAMMARS,
    # group_type_index only with type=group; filter_by_event_names needs event_names
    "GET /api/projects/{project_id}/property_definitions": {"invalid_input"},
    # before_id only with before
    "GET /api/projects/{project_id}/events": {"invalid_input"},
    # the query node is free-form in the schema; each kind (TrendsQuery, ...) has its own rules
    "POST /api/projects/{project_id}/query": {"invalid_input", "required"},
}


def _build() -> tuple[Any, dict[str, str], dict[str, Any]]:
    db_path = Path(tempfile.mkdtemp()) / "contract.db"
    clock = FixedClock(datetime(2026, 1, 15, 12, tzinfo=UTC))
    app = create_app(Settings(db_path=db_path, clock=clock))
    conn = open_database(db_path)
    now = "2026-01-15T12:00:00.000000Z"
    project = create_project(conn, name="Main", timezone="UTC", now=now)
    user = get_or_create_user(conn, email="analyst@example.com", now=now, current_project_id=project["id"])
    key = create_personal_api_key(conn, user_id=user["id"], scopes=["*"], scoped_projects=None, label="t", now=now)
    conn.commit()
    headers = {"Authorization": f"Bearer {key}"}
    base = f"/api/projects/{project['id']}"
    client = TestClient(app)

    def made(path: str, body: dict[str, Any]) -> Any:
        response = client.post(base + path, json=body, headers=headers)
        assert response.status_code in (200, 201), response.text
        return response.json()["id"]

    # insights, actions and cohorts all name their id {id}: one of each, made first, shares the pinned number
    items = {
        made("/insights/", {"name": "P", "filters": {"insight": "TRENDS", "events": [{"id": "a"}]}}),
        made("/actions/", {"name": "Signed up", "steps": [{"event": "signup"}]}),
        made("/cohorts/", {"name": "Static", "is_static": True}),
    }
    assert len(items) == 1, items
    pins: dict[str, Any] = {
        "project_id": project["id"],
        "organization_id": "@current",
        "id": items.pop(),
        "dashboard_id": 1,
    }
    return app, headers, pins


APP, HEADERS, PINS = _build()
schema = schemathesis.openapi.from_asgi("/api/schema", APP)
# Pinned in the config so that every phase uses them; the coverage phase still mutates a path id into a negative
# case before putting the pinned value back (see _mutates_a_pinned_id).
schema.config.update(headers=HEADERS, parameters={f"path.{name}": value for name, value in PINS.items()})
# One seed for every phase: without it schemathesis draws a new one each run, and its coverage and fuzzing phases
# then generate other cases from run to run however Hypothesis itself is derandomized.
schema.config.seed = 20261201


@pytest.fixture(scope="module")
def client() -> Any:
    """One in-process client for every case (schemathesis makes one per call otherwise), which does not look up
    proxies and netrc in the environment (``requests`` does on every call): the same requests reach the app."""
    with ASGIClient(APP) as session:
        session.trust_env = False
        yield session


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_answers_as_its_schema_declares(case: Any, client: Any) -> None:
    if _mutates_a_pinned_id(case) or _miscomputed_boundary(case) or _lone_text_of_a_query_list(case):
        return
    refusal = DECLARED_REFUSALS.get(case.operation.label)
    if refusal is None:
        case.call_and_validate(headers=HEADERS, session=client)
        return
    response = case.call_and_validate(headers=HEADERS, session=client, excluded_checks=[positive_data_acceptance])
    if case.meta is not None and case.meta.generation.mode == "positive" and response.status_code in (400, 405):
        assert response.json()["code"] in refusal, response.text


def _miscomputed_boundary(case: Any) -> bool:
    """A "valid" case holding an integer beyond 64 bits: every integer the schema declares is bounded to 64 bits,
    but the coverage phase computes near-boundary values past 2**53 in floating point and can step over the bound."""
    positive = case.meta is not None and case.meta.generation.mode == "positive"
    return positive and any(_beyond_int64(part) for part in (case.body, case.query))


def _beyond_int64(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_beyond_int64(item) for item in value.values())
    if isinstance(value, list):
        return any(_beyond_int64(item) for item in value)
    return isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63


def _lone_text_of_a_query_list(case: Any) -> bool:
    """A "violating" case whose only fault is a query list of texts given as one text: in a query string one
    value of a repeated parameter is a list of one, so the request is valid as it travels."""
    negative = case.meta is not None and case.meta.generation.mode == "negative"
    if not negative or not isinstance(case.query, dict):
        return False
    schemas = {parameter.name: parameter.definition.get("schema", {}) for parameter in case.operation.query}
    travelled = dict(case.query)
    for name, value in case.query.items():
        if isinstance(value, str) and _takes_texts(schemas.get(name, {})):
            travelled[name] = [value]
    if travelled == case.query:
        return False
    properties = {name: schemas.get(name, {}) for name in travelled}
    required = [parameter.name for parameter in case.operation.query if parameter.definition.get("required")]
    query_schema = {"type": "object", "properties": properties, "required": required}
    return jsonschema.Draft202012Validator(query_schema).is_valid(travelled)


def _takes_texts(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf", [schema])
    return any(option.get("type") == "array" and option.get("items") == {"type": "string"} for option in options)


def _mutates_a_pinned_id(case: Any) -> bool:
    """A negative case whose invalid part was a path id the pin has since replaced by a valid one."""
    data = getattr(case.meta.phase, "data", None) if case.meta else None
    location = getattr(data, "parameter_location", None)
    return getattr(location, "value", None) == "path" and getattr(data, "parameter", None) in PINS
