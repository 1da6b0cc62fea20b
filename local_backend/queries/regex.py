"""User regexes, run by RE2: linear time in the text, so no pattern can hang a query.

PostHog evaluates ``regex``/``not_regex`` with ClickHouse's ``match``, which is RE2 too, so the same pattern
means the same thing here (an unanchored search; no backreferences or lookarounds). A pattern that RE2 does not
accept, or one longer than :data:`MAX_PATTERN_LENGTH`, is a 400 when the filter is read, before any query runs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2

from ..errors import ValidationError

__all__ = ["compile_pattern", "regex_search", "MAX_PATTERN_LENGTH"]

MAX_PATTERN_LENGTH = 1_000
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    return re2.compile(pattern, _OPTIONS)


def compile_pattern(pattern: Any, *, attr: str) -> Any:
    """The compiled pattern, or a 400 on ``attr`` explaining why it cannot be used."""
    if not isinstance(pattern, str):
        raise ValidationError("A regular expression must be a string.", attr=attr)
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise ValidationError(f"Regular expressions are limited to {MAX_PATTERN_LENGTH} characters.", attr=attr)
    try:
        return _compiled(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValidationError(f"'{pattern}' is not a valid regular expression: {reason}.", attr=attr) from None


def regex_search(text: Any, pattern: Any) -> int | None:
    """SQL function ``il_regex(text, pattern)``: 1 when the pattern occurs in the text, NULL for NULLs."""
    if text is None or pattern is None:
        return None
    try:
        compiled = _compiled(str(pattern))
    except re2.error:
        return 0
    return 1 if compiled.search(str(text)) is not None else 0
