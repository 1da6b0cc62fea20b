"""The words of a HogQL expression: numbers, quoted strings, quoted and bare names, operators."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Token", "tokenize", "unquote"]

_TOKEN = re.compile(
    r"\s*(?:(?P<number>\d+(?:\.\d+)?)|(?P<string>'(?:[^'\\]|\\.)*')|(?P<quoted>\"(?:[^\"\\]|\\.)*\"|`[^`]*`)"
    r"|(?P<name>[A-Za-z_$][A-Za-z0-9_$]*)|(?P<op>==|!=|<=|>=|<>|[=<>+\-*/(),.\[\]]))"
)


@dataclass
class Token:
    kind: str
    text: str


def unquote(text: str) -> str:
    body = text[1:-1]
    return re.sub(r"\\(.)", r"\1", body) if text[0] != "`" else body


def tokenize(text: str, fail: Callable[[str], None]) -> list[Token]:
    """The tokens of ``text``; ``fail`` raises the error for a character no token starts with."""
    tokens: list[Token] = []
    position = 0
    while position < len(text):
        if not text[position:].strip():
            break
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            fail(f"Unexpected character at position {position}")
        assert match is not None
        kind = match.lastgroup or "op"
        tokens.append(Token(kind, match.group(kind)))
        position = match.end()
    return tokens
