"""The documented HogQL subset: expressions over one event, compiled to SQL with every value bound.

Accepted (anything else is a 400 naming what is not supported)::

    fields      event, distinct_id, timestamp, properties.<key>, properties['<key>'],
                person.properties.<key>, person.properties['<key>']
    literals    'text', 12, 1.5, true, false, null
    operators   = == != < <= > >= + - * / and or not, like, ilike, not like, not ilike, in (...), not in (...)
    functions   lower upper length trim concat coalesce ifNull toString toFloat toInt round abs if

Keys are letters, digits, ``_`` and ``$`` unquoted, or anything in quotes. ``timestamp`` is the stored
UTC microseconds.

Functions take any value and answer the same on every engine (a property's value is text on ClickHouse, typed
on SQLite, so each function says how it reads one): ``lower``, ``upper``, ``trim``, ``length`` and ``concat``
read their arguments as text; ``abs`` and ``round`` read a value that is not already a number as ``toFloat``
does (NULL unless it reads as a number); ``if(c, a, b)`` takes ``a`` when ``c`` is a true condition or a value
reading as a non-zero number, else ``b`` (NULL and text that is not a number are false); ``coalesce``,
``ifNull`` and ``if`` whose values mix text with numbers answer them all as text.

Operators read their operands alike on every engine: ``+ - * /`` and unary ``-`` read a value that is not a
number as ``toFloat`` does; a comparison or ``in (...)`` with a number among its values reads them all so (a
property that is no number compares as unknown: ``properties.n > 3`` and ``properties.n != 3`` are both false
for ``"abc"``), one among text and properties compares their text (``'10' < '5'``), and an ``in (...)`` list
mixing text with numbers compares as text; ``like`` reads both sides as text; ``and``, ``or``, ``not`` and a
filter read a value as ``if`` reads its condition.

Used by property filters of ``type: hogql`` (a boolean expression) and by the hogql breakdown (any expression;
its value is the breakdown value). Expressions are bounded (:mod:`local_backend.limits`): length, nesting of
parentheses, calls and unary operators, the number of operands, integer literals to 64 bits.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationError
from ..limits import MAX_EXPRESSION_DEPTH, MAX_EXPRESSION_LENGTH, MAX_EXPRESSION_TERMS, MAX_INT64
from ..store.engine.interface import Dialect
from ..store.engine.sqlite.dialect import SQLiteDialect
from .fields import text_problem
from .hogql_tokens import Token, tokenize, unquote

__all__ = ["compile_expression", "compile_condition", "check_expression", "MAX_EXPRESSION_LENGTH"]
_FUNCTIONS: dict[str, tuple[int, int]] = {
    # name: (min args, max args); the dialect writes each (the interface's ``HOGQL_SCALARS`` and the ones below)
    "lower": (1, 1),
    "upper": (1, 1),
    "length": (1, 1),
    "trim": (1, 1),
    "concat": (1, 20),
    "coalesce": (1, 20),
    "ifnull": (2, 2),
    "tostring": (1, 1),
    "tofloat": (1, 1),
    "toint": (1, 1),
    "round": (1, 2),
    "abs": (1, 1),
    "if": (3, 3),
}
# what kind of value an expression gives, as far as its text shows: a condition (1/0), a number, text, a
# property's value (typed on SQLite, text on ClickHouse), NULL, or anything
BOOL, NUMBER, TEXT, VALUE, NULL, ANY = "bool", "number", "text", "value", "null", "any"
_NUMERIC = (BOOL, NUMBER)
_TEXTUAL = (TEXT, VALUE)
_COMPARE = {"=": "=", "==": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_FIELDS = {"event": "e.event", "distinct_id": "e.distinct_id", "timestamp": "e.timestamp"}


class _Parser:
    def __init__(self, text: str, attr: str, dialect: Dialect) -> None:
        self.attr = attr
        self.dialect = dialect
        self.tokens = tokenize(text, self.fail)
        self.index = 0
        self.depth = 0
        self.terms = 0
        self.params: list[Any] = []
        # the kind of the expression parsed last: each rule that builds a value sets it, one that hands a
        # value through leaves it
        self.kind = ANY

    def enter(self) -> None:
        """One level deeper (parentheses, a call, a unary operator): bounded, so parsing never recurses far."""
        self.depth += 1
        if self.depth > MAX_EXPRESSION_DEPTH:
            self.fail(f"Expressions nest at most {MAX_EXPRESSION_DEPTH} levels deep")

    def fail(self, message: str) -> None:
        raise ValidationError(f"{message} in the HogQL expression.", attr=self.attr)

    def peek(self, offset: int = 0) -> Token | None:
        index = self.index + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def is_word(self, word: str, offset: int = 0) -> bool:
        token = self.peek(offset)
        return token is not None and token.kind == "name" and token.text.lower() == word

    def take(self, text: str) -> None:
        token = self.peek()
        if token is None or token.text != text:
            self.fail(f"Expected '{text}'")
        self.index += 1

    def parse(self) -> str:
        if not self.tokens:
            self.fail("Empty expression")
        sql = self.disjunction()
        if self.peek() is not None:
            self.fail(f"Unexpected '{self.peek().text}'")  # type: ignore[union-attr]
        return sql

    def disjunction(self) -> str:
        sql = self.conjunction()
        while self.is_word("or"):
            self.index += 1
            left = self.truth(sql, self.kind)
            right = self.conjunction()
            sql = f"({left} OR {self.truth(right, self.kind)})"
            self.kind = BOOL
        return sql

    def conjunction(self) -> str:
        sql = self.negation()
        while self.is_word("and"):
            self.index += 1
            left = self.truth(sql, self.kind)
            right = self.negation()
            sql = f"({left} AND {self.truth(right, self.kind)})"
            self.kind = BOOL
        return sql

    def negation(self) -> str:
        if self.is_word("not"):
            self.index += 1
            self.enter()
            operand = self.negation()
            sql = f"(NOT {self.truth(operand, self.kind)})"
            self.depth -= 1
            self.kind = BOOL
            return sql
        return self.comparison()

    def comparison(self) -> str:
        start = len(self.params)
        left = self.additive()
        left_kind, left_end = self.kind, len(self.params)
        token = self.peek()
        if token is not None and token.text in _COMPARE:
            self.index += 1
            right = self.additive()
            left, right = self.comparable([left, right], [left_kind, self.kind])
            self.kind = BOOL
            return f"({left} {_COMPARE[token.text]} {right})"
        negated = self.is_word("not") and (self.is_word("like", 1) or self.is_word("ilike", 1) or self.is_word("in", 1))
        if negated:
            self.index += 1
        if self.is_word("like") or self.is_word("ilike"):
            case_blind = self.is_word("ilike")
            self.index += 1
            left = self.as_text(left, left_kind)
            right = self.as_text(self.additive(), self.kind)
            sql = self.dialect.ilike(left, right) if case_blind else self.dialect.like(left, right)
            self.kind = BOOL
            return f"(NOT {sql})" if negated else sql
        if self.is_word("in"):
            self.index += 1
            self.take("(")
            items, kinds = [left, self.additive()], [left_kind, self.kind]
            while self.peek() is not None and self.peek().text == ",":  # type: ignore[union-attr]
                self.index += 1
                items.append(self.additive())
                kinds.append(self.kind)
            self.take(")")
            left, *items = self.comparable(items, kinds)
            self.kind = BOOL
            self.params[start:start] = self.params[start:left_end]  # the value is written twice
            # ClickHouse answers 0 where SQLite answers NULL for a NULL value, so NULL is spelled out
            test = f"{left} {'NOT IN' if negated else 'IN'} ({', '.join(items)})"
            return f"(CASE WHEN {left} IS NULL THEN NULL WHEN {test} THEN 1 ELSE 0 END)"
        return left

    def additive(self) -> str:
        sql = self.multiplicative()
        while self.peek() is not None and self.peek().text in ("+", "-"):  # type: ignore[union-attr]
            operator = self.peek().text  # type: ignore[union-attr]
            self.index += 1
            left = self.as_number(sql, self.kind)
            right = self.multiplicative()
            sql = f"({left} {operator} {self.as_number(right, self.kind)})"
            self.kind = NUMBER
        return sql

    def multiplicative(self) -> str:
        sql = self.unary()
        while self.peek() is not None and self.peek().text in ("*", "/"):  # type: ignore[union-attr]
            operator = self.peek().text  # type: ignore[union-attr]
            self.index += 1
            left = self.as_number(sql, self.kind)
            right = self.unary()
            right = self.as_number(right, self.kind)
            sql = f"({left} * {right})" if operator == "*" else self.dialect.divide(left, right)
            self.kind = NUMBER
        return sql

    def unary(self) -> str:
        token = self.peek()
        if token is not None and token.text == "-":
            self.index += 1
            self.enter()
            operand = self.unary()
            sql = f"(-{self.as_number(operand, self.kind)})"
            self.depth -= 1
            self.kind = NUMBER
            return sql
        return self.primary()

    def primary(self) -> str:
        token = self.peek()
        if token is None:
            self.fail("Unexpected end")
        assert token is not None
        self.index += 1
        self.terms += 1
        if self.terms > MAX_EXPRESSION_TERMS:
            self.fail(f"Expressions hold at most {MAX_EXPRESSION_TERMS} operands")
        if token.kind == "number":
            number = float(token.text) if "." in token.text else int(token.text)
            if isinstance(number, int) and number > MAX_INT64:
                self.fail(f"Integer {token.text[:30]} is out of range (64 bits)")
            self.params.append(number)
            self.kind = NUMBER
            return "?"
        if token.kind == "string":
            self.params.append(unquote(token.text))
            self.kind = TEXT
            return "?"
        if token.text == "(":
            self.enter()
            sql = self.disjunction()
            self.depth -= 1
            self.take(")")
            return sql
        if token.kind in ("name", "quoted"):
            return self.name(token)
        self.fail(f"Unexpected '{token.text}'")
        return ""

    def key(self) -> str:
        token = self.peek()
        if token is not None and token.text == ".":
            self.index += 1
            token = self.peek()
            if token is None or token.kind not in ("name", "quoted"):
                self.fail("Expected a property key after '.'")
            self.index += 1
            return token.text if token.kind == "name" else unquote(token.text)  # type: ignore[union-attr]
        if token is not None and token.text == "[":
            self.index += 1
            inner = self.peek()
            if inner is None or inner.kind != "string":
                self.fail("Expected a quoted property key in [...]")
            self.index += 1
            self.take("]")
            return unquote(inner.text)  # type: ignore[union-attr]
        self.fail("Expected a property key")
        return ""

    def prop(self, column: str) -> str:
        sql, params = self.dialect.extract(column, self.key())
        self.params.extend(params)
        self.kind = VALUE
        return sql

    def name(self, token: Token) -> str:
        word = token.text.lower()
        following = self.peek()
        if token.kind == "name" and following is not None and following.text == "(":
            return self.call(word)
        if word in ("true", "false"):
            self.kind = BOOL
            return "1" if word == "true" else "0"
        if word == "null":
            self.kind = NULL
            return "NULL"
        if word == "properties":
            return self.prop("e.properties")
        if word == "person":
            self.take(".")
            if not self.is_word("properties"):
                self.fail("Only person.properties.<key> is supported")
            self.index += 1
            return self.prop(self.dialect.person_properties())
        if word in _FIELDS:
            self.kind = NUMBER if word == "timestamp" else TEXT
            return _FIELDS[word]
        self.fail(f"Unknown field '{token.text}'")
        return ""

    def call(self, word: str) -> str:
        if word not in _FUNCTIONS:
            self.fail(f"Function '{word}' is not supported (supported: {', '.join(sorted(_FUNCTIONS))})")
        self.take("(")
        self.enter()
        args: list[str] = []
        kinds: list[str] = []
        if self.peek() is not None and self.peek().text != ")":  # type: ignore[union-attr]
            args.append(self.disjunction())
            kinds.append(self.kind)
            while self.peek() is not None and self.peek().text == ",":  # type: ignore[union-attr]
                self.index += 1
                args.append(self.disjunction())
                kinds.append(self.kind)
        self.take(")")
        self.depth -= 1
        least, most = _FUNCTIONS[word]
        if not least <= len(args) <= most:
            self.fail(f"Function '{word}' takes {least} to {most} arguments")
        sql, self.kind = self.function(word, args, kinds)
        return sql

    def function(self, word: str, args: list[str], kinds: list[str]) -> tuple[str, str]:
        """The SQL of a call of ``word`` with arguments already parsed, and the kind of its value."""
        dialect = self.dialect
        if word == "concat":
            return dialect.concat(args), TEXT
        if word == "tostring":
            return dialect.to_text(args[0]), TEXT
        if word == "tofloat":
            return dialect.number(args[0]), NUMBER
        if word == "toint":
            return dialect.integer(args[0]), NUMBER
        if word in ("lower", "upper", "trim"):
            return dialect.scalar(word, [self.as_text(args[0], kinds[0])]), TEXT
        if word == "length":
            return dialect.scalar(word, args), NUMBER
        if word in ("abs", "round"):
            numbers = [arg if kind in _NUMERIC else dialect.number(arg) for arg, kind in zip(args, kinds, strict=True)]
            return dialect.scalar(word, numbers), NUMBER
        if word == "if":
            (branches, kind) = self.alike(args[1:], kinds[1:])
            return f"(CASE WHEN {self.truth(args[0], kinds[0])} THEN {branches[0]} ELSE {branches[1]} END)", kind
        values, kind = self.alike(args, kinds)
        return dialect.scalar(word, values), kind  # coalesce, ifnull

    def as_text(self, sql: str, kind: str) -> str:
        return sql if kind in _TEXTUAL else self.dialect.to_text(sql)

    def as_number(self, sql: str, kind: str) -> str:
        """``sql`` as an operand of arithmetic: a number as it is, anything else read as ``toFloat`` reads it."""
        return sql if kind in (*_NUMERIC, NULL) else self.dialect.number(sql)

    def truth(self, sql: str, kind: str) -> str:
        """A condition that holds when ``sql`` is a true condition or a value reading as a non-zero number;
        unknown (NULL) when it is NULL or reads as no number."""
        if kind in (BOOL, NULL):
            return sql
        return f"({self.as_number(sql, kind)} != 0)"

    def comparable(self, args: list[str], kinds: list[str]) -> list[str]:
        """Values compared with one another: all as numbers when a number is among them (a property or text
        read as ``toFloat`` reads it, so one that is no number compares as unknown), else all as text (SQLite
        keeps a property's type, ClickHouse has only its text)."""
        present = {kind for kind in kinds if kind != NULL}
        if present & set(_NUMERIC) and present & set(_TEXTUAL):
            if all(kind in _NUMERIC or kind == NULL for kind in kinds[1:]) or kinds[0] in _NUMERIC:
                return [self.as_number(arg, kind) for arg, kind in zip(args, kinds, strict=True)]
            # in (...) whose items mix text with numbers: all as text, as coalesce answers them
            return [arg if kind == NULL else self.dialect.to_text(arg) for arg, kind in zip(args, kinds, strict=True)]
        if VALUE in present:
            return [self.dialect.to_text(arg) if kind == VALUE else arg for arg, kind in zip(args, kinds, strict=True)]
        return args

    def alike(self, args: list[str], kinds: list[str]) -> tuple[list[str], str]:
        """Values that can stand in one column (one of them is the answer): all as text when text mixes with
        numbers (ClickHouse has no common type for them), else as they are; and the kind of the answer."""
        present = {kind for kind in kinds if kind != NULL}
        if present <= set(_NUMERIC):
            return args, NUMBER if present else NULL
        if present <= set(_TEXTUAL):
            return args, TEXT if present == {TEXT} else VALUE
        return [arg if kind == NULL else self.dialect.to_text(arg) for arg, kind in zip(args, kinds, strict=True)], TEXT


def _parsed(text: str, attr: str, dialect: Dialect) -> tuple[_Parser, str]:
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("A HogQL expression must be a non-empty string.", attr=attr)
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise ValidationError(f"HogQL expressions are limited to {MAX_EXPRESSION_LENGTH} characters.", attr=attr)
    problem = text_problem(text)
    if problem is not None:
        raise ValidationError(f"A HogQL expression {problem}.", attr=attr)
    parser = _Parser(text, attr, dialect)
    return parser, parser.parse()


def compile_expression(text: str, *, attr: str, dialect: Dialect) -> tuple[str, list[Any]]:
    """SQL over ``events e``, in ``dialect``, for a HogQL expression of the supported subset, with its bound
    parameters."""
    parser, sql = _parsed(text, attr, dialect)
    return sql, parser.params


def compile_condition(text: str, *, attr: str, dialect: Dialect) -> tuple[str, list[Any]]:
    """:func:`compile_expression` as a filter reads it: 1 when the expression is a true condition or a value
    reading as a non-zero number, else 0 (``properties.paid`` keeps the events where paid is true)."""
    parser, sql = _parsed(text, attr, dialect)
    return f"coalesce({parser.truth(sql, parser.kind)}, 0)", parser.params


def check_expression(text: str, *, attr: str) -> None:
    """A 400 on ``attr`` unless ``text`` is in the supported subset (the same whatever the engine: any dialect
    can render it, and the rendering is thrown away)."""
    compile_expression(text, attr=attr, dialect=SQLiteDialect())
