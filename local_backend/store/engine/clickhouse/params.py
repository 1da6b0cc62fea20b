"""Fragments with ``?`` placeholders turned into ClickHouse statements with server-side parameters.

Calculations hand the store SQL with ``?`` marks and their values in order (:data:`~..interface.Fragment`).
ClickHouse binds ``{name:Type}`` placeholders instead: :func:`bind` reads the text once, skipping quoted
literals and identifiers (a ``?`` inside ``'...'`` is text, not a mark), and replaces each mark with
``{pN:Type}``, the type read from the Python value. A value is never pasted into the text; only NULL, which
has no value to bind, is written as the keyword ``NULL``.

``il_cohort_members(?)`` (:data:`COHORT_MEMBERS`, which the dialect writes) is bound differently: its value is a static
cohort's id, and the parameter becomes that cohort's member ids (``Array(Int64)``), read by ``members``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["COHORT_MEMBERS", "bind", "clickhouse_type", "string_literal"]

COHORT_MEMBERS = "il_cohort_members(?)"
"""Stands for a static cohort's member ids (the bound parameter is the cohort id); the store replaces it."""

_COHORT_PREFIX = COHORT_MEMBERS.removesuffix("?)")


def string_literal(text: str) -> str:
    """A text the backend writes itself (a regular expression, a file's path) as a quoted ClickHouse literal;
    values from users are bound, never pasted."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def clickhouse_type(value: Any) -> str:
    """The ClickHouse type a Python value is bound as."""
    if isinstance(value, bool):
        return "Bool"
    if isinstance(value, int):
        return "Int64"
    if isinstance(value, float):
        return "Float64"
    if isinstance(value, str):
        return "String"
    if isinstance(value, list | tuple):
        present = [item for item in value if item is not None]
        inner = clickhouse_type(present[0]) if present else "String"
        return f"Array(Nullable({inner}))" if len(present) < len(value) else f"Array({inner})"
    raise TypeError(f"cannot bind a {type(value).__name__} as a ClickHouse parameter")


# A quoted literal or identifier (a backslash escapes the next character, a doubled quote is one quote
# character), a ? mark, or a quote that opens no complete literal. The regex engine skips everything else.
_MARKS = re.compile(
    r"""'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|`(?:[^`\\]|\\.|``)*`|(?P<mark>\?)|(?P<open>['"`])""",
    re.DOTALL,
)


def bind(
    sql: str, params: Sequence[Any], members: Callable[[int], list[int]] | None = None
) -> tuple[str, dict[str, Any]]:
    """``sql`` with each ``?`` replaced by a named placeholder, and the values by name.

    ``members(cohort_id)`` gives a static cohort's member ids for ``il_cohort_members(?)``.
    """
    pieces: list[str] = []
    bound: dict[str, Any] = {}
    values = iter(params)
    used = 0
    start = 0
    for found in _MARKS.finditer(sql):
        if found["open"] is not None:
            raise ValueError("unterminated quoted literal in SQL")
        if found["mark"] is None:  # a literal: its ? marks are text
            continue
        index = found.start()
        try:
            value = next(values)
        except StopIteration:
            raise ValueError("more ? marks than parameters") from None
        cohort = sql.endswith(_COHORT_PREFIX, 0, index) and sql.startswith(")", index + 1)
        if cohort:
            if members is None:
                raise ValueError("a static cohort needs the store's member lookup")
            # the whole il_cohort_members(?) becomes the array of the cohort's member ids
            pieces.append(sql[start : index - len(_COHORT_PREFIX)])
            value = [int(person) for person in members(int(value))]
            kind = "Array(Int64)"
        else:
            pieces.append(sql[start:index])
            kind = "" if value is None else clickhouse_type(value)
        if value is None:
            pieces.append("NULL")
        else:
            name = f"p{used}"
            bound[name] = list(value) if isinstance(value, tuple) else value
            pieces.append(f"{{{name}:{kind}}}")
            used += 1
        start = index + (2 if cohort else 1)
    if next(values, _END) is not _END:
        raise ValueError("fewer ? marks than parameters")
    pieces.append(sql[start:])
    return "".join(pieces), bound


_END = object()
