"""The parsed trees :func:`parse_hogql` keeps: each call rewrites a tree of its own, and a bad text is refused
every time it is sent."""

from __future__ import annotations

import pytest
from sqlglot import exp

from local_backend.errors import ValidationError
from local_backend.queries.sql.parse import parse_hogql

TEXT = "select event, count() from events group by event limit 5"


def test_a_text_sent_again_is_a_tree_of_its_own():
    first = parse_hogql(TEXT)
    first.args["limit"].set("expression", exp.Literal.number(1))
    first.set("where", exp.Where(this=exp.false()))
    second = parse_hogql(TEXT)
    assert second is not first
    assert second.sql(dialect="clickhouse") == "SELECT event, count() FROM events GROUP BY event LIMIT 5"


@pytest.mark.parametrize("attempt", [1, 2])
def test_a_bad_text_is_refused_each_time(attempt):
    with pytest.raises(ValidationError, match="Only SELECT"):
        parse_hogql("drop table events")
