"""The logic and like operators between a property and every other kind of value, each way round, on every engine."""

from __future__ import annotations

from tests.backend.queries.hogql_sweep.sweep import LOGIC_AND_LIKE, binary_expressions, failures


def test_no_logic_and_like_operator_over_a_property_fails(conn, project, clock, engine) -> None:
    failed = failures(conn, project, clock, engine, binary_expressions(LOGIC_AND_LIKE))
    assert failed == [], "\n".join(failed)
