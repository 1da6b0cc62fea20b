"""The ``search`` parameter of list endpoints: every whitespace-separated term must occur, ignoring case."""

from __future__ import annotations

from typing import Any

__all__ = ["search_condition", "MAX_SEARCH_TERMS"]

# A search is for people typing into a box; more terms than this are a mistake or an attack.
MAX_SEARCH_TERMS = 20


def search_condition(columns: list[str], search: str | None) -> tuple[str, list[Any]]:
    """SQL that holds when every term of ``search`` occurs in at least one of ``columns`` (case-insensitive).

    ``columns`` are SQL expressions chosen by the caller, never user input; the terms are bound parameters
    and matched with ``instr``, so ``%`` and ``_`` in a search are plain characters.
    """
    terms = (search or "").split()[:MAX_SEARCH_TERMS]
    if not terms:
        return "1", []
    clauses: list[str] = []
    params: list[Any] = []
    for term in terms:
        alternatives = [f"instr(lower(coalesce({column}, '')), lower(?)) > 0" for column in columns]
        clauses.append("(" + " OR ".join(alternatives) + ")")
        params.extend([term] * len(columns))
    return "(" + " AND ".join(clauses) + ")", params
