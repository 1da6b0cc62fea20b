"""HogQL's arrays checked by type and made calls each engine prints: ``[...]``, ``groupArray``, ``has``,
``indexOf``, ``length``, ``empty``/``notEmpty``, ``arr[i]``, ``splitByChar``, ``arrayStringConcat``, ``arraySort``.

An array's elements share one type (ClickHouse's supertype: numbers with numbers, text with text); arrays of
arrays are not supported, nor arrays anywhere but in a select list, a GROUP BY or an array function's array
argument (a comparison or an ORDER BY of arrays would order them differently on SQLite, where an array is JSON
text). Where a function reads an array or a text alike (``length``, ``empty``), the array form becomes its own
call (``hogql_array_length``, ...); ``arr[i]`` becomes ``hogql_array_element(arr, i, default)``, the index as
written (1-based, negative from the end) and the element type's default for an index out of range or NULL: ``''``,
``0`` or ``false`` as in ClickHouse, NULL for times, dates and elements that may be NULL.
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import ValidationError
from ...store.engine.interface.sql_tree import hogql_function_name, transform_up
from .types import Scopes, common_type, element_of, is_array, is_datetime, output_columns

__all__ = ["MAX_ARRAY_ELEMENTS", "rewrite_arrays"]

MAX_ARRAY_ELEMENTS = 1_000
_TEXT = ("String", "Nullable(String)", "UUID", "Nothing", "Nullable(Nothing)")
# calls whose first argument may be an array
_READS_ARRAY = frozenset(
    {
        "has",
        "indexof",
        "arraystringconcat",
        "arraysort",
        "hogql_array_element",
        "hogql_array_length",
        "hogql_array_empty",
        "hogql_array_not_empty",
    }
)


def _fail(message: str) -> ValidationError:
    return ValidationError(message, attr="query")


def _call(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _default(element: str) -> exp.Expression:
    if element in ("String", "UUID"):
        return exp.Literal.string("")
    if element in ("Int64", "UInt64"):
        return exp.Literal.number(0)
    if element == "Float64":
        return exp.Literal.number("0.0")
    if element == "Bool":
        return exp.false()
    return exp.Null()


def _written_index(index: exp.Expression) -> exp.Expression:
    """The index as the query wrote it: the parser takes 1 from a constant index (sqlglot counts from 0)."""
    negative = isinstance(index, exp.Neg)
    literal = index.this if negative else index
    if isinstance(literal, exp.Literal) and not literal.is_string and str(literal.this).isdigit():
        written = (-1 if negative else 1) * int(literal.this) + 1
        return exp.Literal.number(written) if written >= 0 else exp.Neg(this=exp.Literal.number(-written))
    return index


def _array_argument(array: exp.Expression, name: str, scopes: Scopes) -> str:
    kind = scopes.type_of(array)
    if not is_array(kind):
        raise _fail(f"{name} reads an array, not {kind}.")
    return element_of(kind)


def _check_value(name: str, element: str, value: exp.Expression, scopes: Scopes) -> None:
    kind = scopes.type_of(value)
    if common_type([element, kind]) is None:
        raise _fail(f"{name} looks for a {kind} in an array of {element}: they cannot be compared.")


class _ArrayRewrite:
    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes

    def __call__(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Array):
            return self._literal(node)
        if isinstance(node, exp.Bracket):
            return self._element(node)
        if isinstance(node, exp.ArrayContains):  # has(arr, x), a predicate to the parser
            _check_value("has", _array_argument(node.this, "has", self.scopes), node.expression, self.scopes)
            return node
        if not isinstance(node, exp.Func) or isinstance(node, exp.Binary | exp.Unary):
            return node
        name = hogql_function_name(node).lower()
        if name == "grouparray":
            return self._group_array(node)
        if isinstance(node, exp.Split):
            return self._split(node.expression, node.this, node.args.get("limit") is None)
        if name == "splitbychar":  # the parser keeps a call it cannot read as a split by its name
            arguments = list(node.expressions) + [exp.Null()] * 2
            return self._split(arguments[0], arguments[1], len(node.expressions) == 2)
        if name == "indexof":
            array, value = node.expressions
            _check_value("indexOf", _array_argument(array, "indexOf", self.scopes), value, self.scopes)
        elif name == "arraystringconcat":
            self._string_concat(node)
        elif name == "arraysort":
            _array_argument(node.expressions[0], "arraySort", self.scopes)
        elif isinstance(node, exp.Length) and is_array(self.scopes.type_of(node.this)):
            return _call("hogql_array_length", node.this)
        elif name in ("empty", "notempty"):
            return self._empty(node, name)
        return node

    def _literal(self, node: exp.Array) -> exp.Expression:
        if len(node.expressions) > MAX_ARRAY_ELEMENTS:
            raise _fail(f"An array literal holds at most {MAX_ARRAY_ELEMENTS} elements.")
        kinds = [self.scopes.type_of(element) for element in node.expressions]
        if any(is_array(kind) for kind in kinds):
            raise _fail("Arrays of arrays are not supported.")
        if common_type(kinds) is None:
            raise _fail(f"The elements of an array must share one type, not {', '.join(sorted(set(kinds)))}.")
        return node

    def _element(self, node: exp.Bracket) -> exp.Expression:
        kind = self.scopes.type_of(node.this)
        if not is_array(kind) or len(node.expressions) != 1:
            raise _fail("Brackets read an array's element (arr[1]) or a property (properties['name']).")
        index = _written_index(node.expressions[0])
        if self.scopes.type_of(index) not in ("Int64", "UInt64"):
            raise _fail("An array's index must be a whole number (1 is the first element, -1 the last).")
        element = element_of(kind)
        default = exp.Null() if is_datetime(element) else _default(element)
        return _call("hogql_array_element", node.this, index, default)

    def _group_array(self, node: exp.Func) -> exp.Expression:
        value = node.expressions[0]
        if isinstance(value, exp.Distinct):
            raise _fail("groupArray(DISTINCT ...) is not supported; group by the value first.")
        if isinstance(node.parent, exp.Window):
            raise _fail("groupArray over a window is not supported.")
        kind = self.scopes.type_of(value)
        if is_array(kind):
            raise _fail("Arrays of arrays are not supported.")
        if kind == "Nullable(Nothing)":
            raise _fail("groupArray of NULL is not supported: it collects no values.")
        return node

    def _split(self, separator: exp.Expression, text: exp.Expression, two_arguments: bool) -> exp.Expression:
        if not two_arguments:
            raise _fail("splitByChar takes a separator and a text.")
        if not (isinstance(separator, exp.Literal) and separator.is_string and len(separator.this) == 1):
            raise _fail("splitByChar's separator must be a text of one character, written in the query.")
        if not separator.this.isascii():
            raise _fail("splitByChar's separator must be one ASCII character.")
        if self.scopes.type_of(text) not in _TEXT:
            raise _fail("splitByChar splits a text.")
        return _call("hogql_split_by_char", separator, text)

    def _string_concat(self, node: exp.Func) -> None:
        element = _array_argument(node.expressions[0], "arrayStringConcat", self.scopes)
        if element not in _TEXT:
            raise _fail(f"arrayStringConcat joins an array of text, not of {element}.")
        if len(node.expressions) == 2:
            separator = node.expressions[1]
            if not (isinstance(separator, exp.Literal) and separator.is_string):
                raise _fail("arrayStringConcat's separator must be a text written in the query.")

    def _empty(self, node: exp.Func, name: str) -> exp.Expression:
        value = node.expressions[0]
        kind = self.scopes.type_of(value)
        if is_array(kind):
            return _call("hogql_array_empty" if name == "empty" else "hogql_array_not_empty", value)
        if kind not in _TEXT:
            raise _fail(f"{node.name} reads an array or a text, not {kind}.")
        return node


def _reads_arrays_here(node: exp.Expression) -> bool:
    """Whether an array may stand at ``node``: a select list's column, a GROUP BY key, or an array function's
    array argument (through parentheses and aliases)."""
    parent = node.parent
    while isinstance(parent, exp.Paren | exp.Alias):
        node, parent = parent, parent.parent
    if isinstance(parent, exp.Select):
        return node.arg_key == "expressions"
    if isinstance(parent, exp.Group):
        return True
    if isinstance(parent, exp.Func):
        first = parent.this if isinstance(parent.this, exp.Expression) else (parent.expressions or [None])[0]
        return first is node and hogql_function_name(parent).lower() in _READS_ARRAY
    return False


def rewrite_arrays(tree: exp.Query) -> exp.Query:
    """``tree`` with its array reads checked and rewritten; a 400 naming what cannot be read."""
    scopes = Scopes(tree)
    rewritten = transform_up(tree, _ArrayRewrite(scopes))
    assert isinstance(rewritten, exp.Query)
    fresh = Scopes(rewritten)
    for node in rewritten.walk():
        if isinstance(node, exp.Column | exp.Array | exp.Func) and not isinstance(node, exp.Binary | exp.Unary):
            if isinstance(node, exp.Column) and node.is_star:
                continue
            if is_array(fresh.type_of(node)) and not _reads_arrays_here(node):
                shown = node.sql(dialect="clickhouse")[:80]
                raise _fail(
                    f"An array ({shown}) may be selected, grouped by or read by an array function, not compared,"
                    " ordered or computed with."
                )
    for union in rewritten.find_all(exp.Union):
        ctes = {cte.alias_or_name.lower(): cte.this for cte in rewritten.find_all(exp.CTE)}
        left, right = output_columns(union.left, ctes), output_columns(union.right, ctes)
        if any(is_array(a) != is_array(b) for (_, a), (_, b) in zip(left, right, strict=False)):
            raise _fail("UNION ALL joins an array column with a column that is no array.")
    return rewritten
