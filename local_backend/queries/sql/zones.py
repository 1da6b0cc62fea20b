"""``toTimeZone(time, 'Zone')``: the same moment shown in another IANA zone, and the calendar read in it.

The zone must be a text literal naming a zone of the zone database (an unknown name is a 400 naming it; no
other text reaches an engine). The answer's type is ``DateTime64(6, 'Zone')`` and its values carry that
zone's offset. As in ClickHouse, the calendar functions of such a value read it in its own zone:
``toStartOfHour``/``toStartOfDay`` answer a time in that zone, ``toStartOfWeek``/``toStartOfMonth``/``toDate``
and ``dateTrunc`` its day, week or month there; each call is given the zone as its last argument, which both
engines' printers read. ``dateDiff``, interval arithmetic, ``toString`` and ``toDateTime`` over such a value
are a 400 (compute in the project's zone, then convert; the value itself is shown as ISO text).
"""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

from sqlglot import exp

from ...errors import ValidationError
from ...store.engine.interface.sql_tree import hogql_function_name, transform_up
from .types import Scopes, is_datetime, zone_of

__all__ = ["known_zones", "rewrite_zones"]

# the calls whose zone a toTimeZone'd argument decides, written with one argument by the query
_ZONED_CALLS = frozenset({"tostartofhour", "tostartofday", "tostartofweek", "tostartofmonth", "todate"})


@cache
def known_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _fail(message: str) -> ValidationError:
    return ValidationError(message, attr="query")


def _checked_zone(node: exp.Func, scopes: Scopes) -> exp.Expression:
    value, zone = node.expressions
    if not (isinstance(zone, exp.Literal) and zone.is_string):
        raise _fail("toTimeZone's zone must be a text written in the query, such as 'America/New_York'.")
    if zone.this not in known_zones():
        raise _fail(f"Unknown time zone {zone.this[:100]!r} in toTimeZone.")
    if not is_datetime(scopes.type_of(value)):
        raise _fail("toTimeZone reads a DateTime (such as timestamp).")
    return node


class _ZoneRewrite:
    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes

    def _zone(self, value: exp.Expression | None) -> str | None:
        return zone_of(self.scopes.type_of(value)) if isinstance(value, exp.Expression) else None

    def __call__(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Add | exp.Sub) and isinstance(node.expression, exp.Interval):
            if self._zone(node.this):
                raise _fail("Interval arithmetic on a toTimeZone value is not supported; apply toTimeZone last.")
            return node
        if not isinstance(node, exp.Func) or isinstance(node, exp.Binary | exp.Unary):
            return node
        name = hogql_function_name(node).lower()
        if name == "totimezone":
            return _checked_zone(node, self.scopes)
        if name in ("tostring", "todatetime") and self._zone(node.expressions[0]):
            raise _fail(f"{node.name} of a toTimeZone value is not supported; select the value itself.")
        if isinstance(node, exp.DateDiff):
            if self._zone(node.this) or self._zone(node.expression):
                raise _fail("dateDiff of a toTimeZone value is not supported; compare the times themselves.")
            return node
        if isinstance(node, exp.TimestampTrunc | exp.DateTrunc):
            zone = self._zone(node.this)
            if zone:
                node.set("zone", exp.Literal.string(zone))
            return node
        if name in _ZONED_CALLS and len(node.expressions) == 1:
            zone = self._zone(node.expressions[0])
            if zone:
                node.append("expressions", exp.Literal.string(zone))
        return node


def rewrite_zones(tree: exp.Query) -> exp.Query:
    """``tree`` with its ``toTimeZone`` zones checked and the calendar calls over them given their zone."""
    rewritten = transform_up(tree, _ZoneRewrite(Scopes(tree)))
    assert isinstance(rewritten, exp.Query)
    return rewritten
