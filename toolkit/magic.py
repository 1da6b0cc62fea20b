"""The ``%%sql`` cell magic: a HogQL cell run through `toolkit.Client.sql`, its frame shown.

``%load_ext toolkit`` registers it (``toolkit.load_ipython_extension``)::

    %%sql [NAME] [--client VAR] [--limit N]
    select event, count() as c from events where timestamp >= {since} group by event order by c desc

- The client: ``--client VAR`` names it; else the one chosen with ``%sql_client VAR``; else the only
  `toolkit.Client` in the notebook's namespace (a cell names it when there are several, or none).
- ``{name}`` placeholders are read from the notebook's variables and sent as values, never pasted.
- ``NAME`` keeps the frame in that variable as well as showing it.
- An error of the toolkit (a query that does not parse, an unknown client) shows its message, not a
  traceback, and the cell shows no frame.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

import pandas as pd

from .errors import ToolkitError
from .sql import SqlMixin, placeholder_names

__all__ = ["SqlMagicError", "SqlMagics", "load_ipython_extension", "parse_sql_line"]


class SqlMagicError(ToolkitError):
    """A ``%%sql`` cell could not be run as written: no client, an unknown variable, a malformed line."""


def parse_sql_line(line: str) -> dict[str, Any]:
    """The options of a ``%%sql`` line: ``name``, ``client`` and ``limit`` (None when not given).

    Examples
    --------
    >>> parse_sql_line("daily --client posthog --limit 10")
    {'name': 'daily', 'client': 'posthog', 'limit': 10}
    >>> parse_sql_line("")
    {'name': None, 'client': None, 'limit': None}
    """
    options: dict[str, Any] = {"name": None, "client": None, "limit": None}
    words = shlex.split(line)
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("--client", "--limit"):
            if index + 1 >= len(words):
                raise SqlMagicError(f"%%sql: {word} needs a value")
            value = words[index + 1]
            if word == "--limit":
                if not value.isdigit():
                    raise SqlMagicError(f"%%sql: --limit takes a whole number, not {value!r}")
                options["limit"] = int(value)
            else:
                options["client"] = _identifier(value, "--client")
            index += 2
            continue
        if word.startswith("-") or options["name"] is not None:
            raise SqlMagicError(f"%%sql: unexpected {word!r}; the line is [NAME] [--client VAR] [--limit N]")
        options["name"] = _identifier(word, "the frame's name")
        index += 1
    return options


def _identifier(word: str, what: str) -> str:
    if not word.isidentifier():
        raise SqlMagicError(f"%%sql: {what} must be a Python name, not {word!r}")
    return word


class SqlMagics:
    """The ``%%sql`` and ``%sql_client`` magics of one IPython shell.

    Examples
    --------
    >>> from IPython.testing.globalipapp import start_ipython  # doctest: +SKIP
    >>> SqlMagics(start_ipython()).register()  # doctest: +SKIP
    """

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.client_name: str | None = None

    def register(self) -> None:
        """Register ``%%sql`` and ``%sql_client`` on the shell."""
        self.shell.register_magic_function(self.sql, magic_kind="cell", magic_name="sql")
        self.shell.register_magic_function(self.sql_client, magic_kind="line", magic_name="sql_client")

    def sql_client(self, line: str) -> None:
        """``%sql_client VAR``: the client ``%%sql`` cells use from now on (by variable name)."""
        try:
            name = _identifier(line.strip(), "%sql_client's argument")
            self._client(name)
        except SqlMagicError as error:
            print(error, file=sys.stderr)
            return
        self.client_name = name

    def sql(self, line: str, cell: str) -> pd.DataFrame | None:
        """``%%sql [NAME] [--client VAR] [--limit N]``: run the cell's HogQL and return (show) its frame."""
        try:
            options = parse_sql_line(line)
            client = self._client(options["client"] or self.client_name)
            values = self._values(cell)
            frame = client.sql(cell, limit=options["limit"], values=values)
        except (ToolkitError, TypeError, ValueError) as error:
            print(f"{type(error).__name__}: {error}", file=sys.stderr)
            return None
        if options["name"]:
            self.shell.user_ns[options["name"]] = frame
        return frame

    def _client(self, name: str | None) -> SqlMixin:
        namespace = self.shell.user_ns
        if name is not None:
            if name not in namespace:
                raise SqlMagicError(f"%%sql: no variable {name!r} holds a client")
            if not isinstance(namespace[name], SqlMixin):
                raise SqlMagicError(f"%%sql: {name!r} is a {type(namespace[name]).__name__}, not a toolkit.Client")
            return namespace[name]
        found = sorted(
            key for key, value in namespace.items() if isinstance(value, SqlMixin) and not key.startswith("_")
        )
        if len(found) == 1:
            return namespace[found[0]]
        if not found:
            raise SqlMagicError("%%sql: no toolkit.Client in the notebook; make one, or name it with --client VAR")
        raise SqlMagicError(
            f"%%sql: several clients ({', '.join(found)}); choose one with %sql_client VAR or --client VAR"
        )

    def _values(self, cell: str) -> dict[str, Any]:
        namespace = self.shell.user_ns
        missing = [name for name in placeholder_names(cell) if name not in namespace]
        if missing:
            names = ", ".join("{" + name + "}" for name in missing)
            raise SqlMagicError(f"%%sql: no variable for the placeholder(s) {names}")
        return {name: namespace[name] for name in placeholder_names(cell)}


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%sql`` and ``%sql_client`` (``%load_ext toolkit``).

    Examples
    --------
    >>> %load_ext toolkit  # doctest: +SKIP
    """
    SqlMagics(ipython).register()
