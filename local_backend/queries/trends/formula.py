"""Trend formulas: arithmetic over series letters, parsed into a tree and evaluated element-wise (no eval).

``A`` is the first series after ordering (:attr:`..base_filter.BaseFilter.entities`), ``B`` the second, ... Numbers,
``+ - * /``, unary minus and parentheses are accepted; a division by zero (and any other non-finite result)
gives 0, as PostHog does. Anything else is a 400 on ``formula`` naming the problem.

With a breakdown the series are joined on their breakdown value (PostHog's legacy formula query joins each
series to the first with a full outer join): one result per value found in any series, a series without the
value counting 0 there. :func:`formula_breakdown_order` gives their order: PostHog's query does not sort the
joined rows, so they come in the first series' order (its rows sorted by breakdown value, ascending, cohorts
by id with ``all`` first), followed by the values the first series lacks. Those come in an order PostHog's
SQL leaves to the join; here, series by series (B's before C's), each in the order that series ranked its
values (event count, then value, both descending). No total is compared, so there are no ties to break.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from ...errors import ValidationError

__all__ = ["Formula", "parse_formula", "formula_breakdown_order", "MAX_FORMULA_LENGTH"]

MAX_FORMULA_LENGTH = 500
_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?|\.\d+)|([A-Za-z][A-Za-z0-9_]*)|([-+*/()]))")
Vector = list[float]


@dataclass(frozen=True)
class Formula:
    text: str
    letters: frozenset[int]
    evaluate: Callable[[Sequence[Vector], int], Vector]


def _fail(text: str, problem: str) -> ValidationError:
    return ValidationError(f"Invalid formula '{text}': {problem}.", attr="formula")


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def _divide(left: float, right: float) -> float:
    return left / right if right else 0.0


def parse_formula(text: str, series_count: int) -> Formula:
    """The formula over ``series_count`` series; a 400 on ``formula`` for anything unreadable."""
    if not text.strip():
        raise _fail(text, "it is empty")
    if len(text) > MAX_FORMULA_LENGTH:
        raise _fail(text[:40] + "...", f"formulas are limited to {MAX_FORMULA_LENGTH} characters")
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        if not text[position:].strip():
            break
        match = _TOKEN.match(text, position)
        if match is None:
            raise _fail(text, f"unexpected '{text[position:].strip()[0]}'")
        number, letter, symbol = match.groups()
        if letter and len(letter) > 1:
            raise _fail(text, f"'{letter}' is not a series letter (use A, B, ...)")
        tokens.append(("n", number) if number else ("l", letter.upper()) if letter else ("s", symbol))
        position = match.end()
    letters: set[int] = set()
    index = 0
    depth = 0

    Node = Callable[[Sequence[Vector], int], float]

    def peek() -> tuple[str, str] | None:
        return tokens[index] if index < len(tokens) else None

    def expression() -> Node:
        nonlocal index
        node = term()
        while peek() is not None and peek()[1] in ("+", "-"):  # type: ignore[index]
            operator = tokens[index][1]
            index += 1
            right = term()
            left = node
            node = (
                (lambda a, b: lambda s, i: a(s, i) + b(s, i))(left, right)
                if operator == "+"
                else (lambda a, b: lambda s, i: a(s, i) - b(s, i))(left, right)
            )
        return node

    def term() -> Node:
        nonlocal index
        node = unary()
        while peek() is not None and peek()[1] in ("*", "/"):  # type: ignore[index]
            operator = tokens[index][1]
            index += 1
            right = unary()
            left = node
            node = (
                (lambda a, b: lambda s, i: a(s, i) * b(s, i))(left, right)
                if operator == "*"
                else (lambda a, b: lambda s, i: _divide(a(s, i), b(s, i)))(left, right)
            )
        return node

    def unary() -> Node:
        nonlocal index
        token = peek()
        if token is not None and token[1] == "-":
            index += 1
            inner = unary()
            return lambda s, i: -inner(s, i)
        if token is not None and token[1] == "+":
            index += 1
            return unary()
        return primary()

    def primary() -> Node:
        nonlocal index, depth
        token = peek()
        if token is None:
            raise _fail(text, "it ends too early")
        index += 1
        kind, value = token
        if kind == "n":
            number = float(value)
            return lambda s, i: number
        if kind == "l":
            position = ord(value) - ord("A")
            if position >= series_count:
                raise _fail(text, f"{value} refers to no series (there are {series_count})")
            letters.add(position)
            return lambda s, i: s[position][i]
        if value == "(":
            depth += 1
            if depth > 50:
                raise _fail(text, "too many nested parentheses")
            node = expression()
            depth -= 1
            if peek() is None or peek()[1] != ")":  # type: ignore[index]
                raise _fail(text, "a parenthesis is not closed")
            index += 1
            return node
        raise _fail(text, f"unexpected '{value}'")

    tree = expression()
    if index < len(tokens):
        raise _fail(text, f"unexpected '{tokens[index][1]}'")

    def evaluate(series: Sequence[Vector], length: int) -> Vector:
        return [_finite(tree(series, position)) for position in range(length)]

    return Formula(text=text, letters=frozenset(letters), evaluate=evaluate)


def _value_order(value: Hashable) -> tuple[int, int, str]:
    """Ascending breakdown-value order: PostHog compares the value text byte by byte (code points here, the
    same order); cohort breakdowns compare ids, ``all`` (id 0 there) first."""
    if value == "all":
        return (0, 0, "")
    if isinstance(value, int) and not isinstance(value, bool):
        return (1, value, "")
    return (2, 0, str(value))


def formula_breakdown_order(values_by_series: Sequence[Sequence[Hashable]]) -> list[Hashable]:
    """The breakdown values of a formula's result, in order (module docstring).

    ``values_by_series[i]`` lists the values series i found, in the order it ranked them.

    >>> formula_breakdown_order([["Paris", "London"], ["London", "Belo Horizonte", "$$_posthog_breakdown_null_$$"]])
    ['London', 'Paris', 'Belo Horizonte', '$$_posthog_breakdown_null_$$']
    """
    if not values_by_series:
        return []
    order = sorted(dict.fromkeys(values_by_series[0]), key=_value_order)
    seen = set(order)
    for values in values_by_series[1:]:
        for value in values:
            if value not in seen:
                seen.add(value)
                order.append(value)
    return order
