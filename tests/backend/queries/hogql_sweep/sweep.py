"""The events the HogQL expressions are read on, the generated expressions by family, and the check that none of
them fails with anything but a 400 (:class:`~local_backend.errors.ValidationError`), as a breakdown or a filter."""

from __future__ import annotations

from typing import Any

from local_backend.errors import ValidationError
from local_backend.queries.trends import TrendsFilter, compute_trends
from tests.factories import add_events

DAY = "2026-01-14"
# one event per person; the expression is read on each
PROPERTIES: dict[str, dict[str, Any]] = {
    "ann": {"name": "MiXed ä", "padded": "  a b  ", "n": 5, "price": 1.25, "delta": -2.5, "paid": True, "big": 10},
    "ben": {"name": "plain", "n": "12", "price": "2.5", "delta": "-4", "paid": False},
    "cy": {"n": "abc", "paid": "yes"},
    "di": {"n": 2.5, "paid": 2},
}
PERSONS = {"ann": {"age": 25}, "ben": {"age": "40"}, "cy": {"age": "old"}}

# numbers, numeric text, other text, booleans, null and missing values on the events above
OPERANDS = ["properties.n", "properties.paid", "properties.nothing", "person.properties.age"]
OTHERS = ["1", "2.5", "'7'", "'a'", "null", "true", "properties.n", "event", "(properties.n > 1)"]
COMPARISONS = ["=", "!=", "<", "<=", ">", ">="]
ARITHMETIC = ["+", "-", "*", "/"]
LOGIC_AND_LIKE = ["and", "or", "like", "ilike"]
UNARY_FUNCTIONS = ["lower", "upper", "length", "trim", "toString", "toFloat", "toInt", "round", "abs", "concat"]

# The server engine runs the very SQL chdb runs (one ClickHouse dialect), through another client: every fifth
# expression of a family there checks its binding and decoding, all of them run on SQLite and chdb.
SERVER_SAMPLE = 5


def binary_expressions(operators: list[str]) -> list[str]:
    """Each of ``operators`` between a property operand and every other value, each way round."""
    return [
        expression
        for operand in OPERANDS
        for other in OTHERS
        for expression in [f"{operand} {op} {other}" for op in operators]
        + [f"{other} {op} {operand}" for op in operators]
    ]


def unary_and_function_expressions() -> list[str]:
    """Negation, ``not``, ``in`` lists and every function of the subset over property operands."""
    expressions = [f"{prefix}{operand}" for operand in OPERANDS for prefix in ("-", "not ")]
    for operand in OPERANDS:
        for other in OTHERS:
            expressions += [f"{operand} in ({other}, 1)", f"{operand} not in ('x', {other})", f"{other} in ({operand})"]
            expressions += [f"{name}({operand}, {other})" for name in ("concat", "coalesce", "ifNull", "round")]
            expressions += [f"if({operand}, {other}, 1)", f"if({other}, {operand}, 'x')", f"round({other}, {operand})"]
        expressions += [f"{name}({operand})" for name in UNARY_FUNCTIONS]
    return expressions


def failures(conn, project: dict[str, Any], clock, engine: str, expressions: list[str]) -> list[str]:
    """Each of ``expressions`` (every fifth on the server engine) that failed with anything but a 400, as a
    hogql breakdown or as a hogql filter of a one-day trend over :data:`PROPERTIES`' events."""
    events = [("e", who, f"{DAY}T10:00:00Z", props) for who, props in PROPERTIES.items()]
    add_events(conn, project["id"], events, persons=PERSONS)
    failed = []
    for expression in expressions[::SERVER_SAMPLE] if engine == "clickhouse-http" else expressions:
        for breakdown, properties in ((expression, []), (None, [{"key": expression, "type": "hogql"}])):
            filter = TrendsFilter(
                events=[{"id": "e"}],
                breakdown=breakdown,
                breakdown_type="hogql" if breakdown else None,
                properties=properties,
                date_from=DAY,
                date_to=DAY,
            )
            try:
                compute_trends(conn, project, filter, clock.now())
            except ValidationError:
                continue
            except Exception as error:  # noqa: BLE001 - every other failure is a 500
                failed.append(f"{expression} ({'breakdown' if breakdown else 'filter'}): {str(error)[:80]}")
    return failed
