"""Negation, ``not``, ``in`` lists and every function of the subset over property operands, on every engine."""

from __future__ import annotations

from tests.backend.queries.hogql_sweep.sweep import failures, unary_and_function_expressions


def test_no_unary_operator_or_function_over_a_property_fails(conn, project, clock, engine) -> None:
    failed = failures(conn, project, clock, engine, unary_and_function_expressions())
    assert failed == [], "\n".join(failed)
