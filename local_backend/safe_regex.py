"""User regexes, run by RE2: linear time in the text, so no pattern can hang a query.

PostHog evaluates ``regex``/``not_regex`` with ClickHouse's ``match``, which is RE2 too, so the same pattern
means the same thing here (an unanchored search; no backreferences or lookarounds). A pattern that RE2 does not
accept, or one over the limits of :mod:`local_backend.limits` (length, nesting of groups, size of the compiled
program), is a 400 when the filter is read, before any query runs. Patterns are compiled without capturing
groups: only whether the pattern occurs matters, and RE2 can then always use its fast automaton (a pattern with
hundreds of groups would otherwise track every group on every row).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2

from .errors import ValidationError
from .limits import MAX_PATTERN_LENGTH, MAX_PATTERN_NESTING, MAX_PATTERN_PROGRAM_SIZE

__all__ = ["compile_pattern", "regex_search", "pattern_nesting", "MAX_PATTERN_LENGTH"]

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.never_capture = True


def pattern_nesting(pattern: str) -> int:
    """How deeply the pattern's groups nest (escapes and character classes skipped)."""
    depth = deepest = 0
    index, length = 0, len(pattern)
    while index < length:
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index += 1
            if index < length and pattern[index] == "^":
                index += 1
            if index < length and pattern[index] == "]":  # a leading ] is a member of the class
                index += 1
            while index < length and pattern[index] != "]":
                index += 2 if pattern[index] == "\\" else 1
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth = max(depth - 1, 0)
        index += 1
    return deepest


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    return re2.compile(pattern, _OPTIONS)


def compile_pattern(pattern: Any, *, attr: str) -> Any:
    """The compiled pattern, or a 400 on ``attr`` explaining why it cannot be used."""
    if not isinstance(pattern, str):
        raise ValidationError("A regular expression must be a string.", attr=attr)
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise ValidationError(f"Regular expressions are limited to {MAX_PATTERN_LENGTH} characters.", attr=attr)
    if pattern_nesting(pattern) > MAX_PATTERN_NESTING:
        raise ValidationError(f"Regular expressions may nest groups {MAX_PATTERN_NESTING} deep at most.", attr=attr)
    try:
        compiled = _compiled(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValidationError(f"'{pattern}' is not a valid regular expression: {reason}.", attr=attr) from None
    if compiled.programsize > MAX_PATTERN_PROGRAM_SIZE:
        raise ValidationError(
            "The regular expression is too complex (large repetition counts or alternations); simplify it.",
            attr=attr,
        )
    return compiled


def regex_search(text: Any, pattern: Any) -> int | None:
    """SQL function ``il_regex(text, pattern)``: 1 when the pattern occurs in the text, NULL for NULLs."""
    if text is None or pattern is None:
        return None
    try:
        compiled = _compiled(str(pattern))
    except re2.error:
        return 0
    return 1 if compiled.search(str(text)) is not None else 0
