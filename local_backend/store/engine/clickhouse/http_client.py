"""A ClickHouse server, a cluster or a ClickHouse Cloud service over HTTP, through clickhouse-connect.

:class:`HttpClient` gives the event engine the same five operations as :class:`.client.ChdbClient`; the engine
cannot tell them apart. It is built from an engine URL::

    clickhouse://USER:PASSWORD@HOST:PORT/DATABASE[?cluster=NAME][&secure=1]
    clickhouses://USER:PASSWORD@HOST/DATABASE            (TLS, as ClickHouse Cloud requires; port 8443)

Parameters travel as ClickHouse's server-side ``param_NAME`` values for the ``{NAME:Type}`` placeholders in the
SQL, so a user's value is parsed by the server as data and never becomes SQL text. Results come back in
ClickHouse's Arrow format and inserts go in as Arrow, so columns cross the wire without a loop per row.

Threads: one clickhouse-connect client serves every thread. Its HTTP connections come from a urllib3 pool,
and each query keeps its state in its own context object; what is not safe to share is a ClickHouse *session*
(the server refuses two queries at once in one session, and the client raises before sending). So the client
is made without a session id: nothing the engine runs depends on session state (no temporary tables, no
``SET``), and stateless requests also spread over the replicas behind a load balancer.

With a cluster, inserts into the ``Distributed`` tables wait until every shard has its rows
(``distributed_foreground_insert``), so a stored event is visible to the next query as on one server, and a
subquery over a ``Distributed`` table inside another runs once and is sent to the shards
(``distributed_product_mode = 'global'``) instead of being refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from ....errors import APIError, ValidationError
from .client import require, timeout_settings

__all__ = ["HttpClient", "ServerAddress", "ServerUnavailable", "parse_server_url"]

SCHEMES = {"clickhouse": False, "clickhouses": True}
DEFAULT_DATABASE = "insightlab"
DEFAULT_USER = "default"
HTTP_PORT = 8123
HTTPS_PORT = 8443
URL_OPTIONS = frozenset({"cluster", "secure"})
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
CLUSTER_SETTINGS = {"distributed_foreground_insert": 1, "distributed_product_mode": "global"}
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PLACEHOLDER = re.compile(r"\{\s*[A-Za-z_][A-Za-z0-9_]*\s*:")


@dataclass(frozen=True)
class ServerAddress:
    """Where a ClickHouse server is and which database and cluster the events live in."""

    host: str
    port: int
    user: str
    password: str
    database: str
    secure: bool
    cluster: str | None = None

    def __repr__(self) -> str:
        # never print the password (an engine URL may end up in a log line)
        cluster = f", cluster={self.cluster!r}" if self.cluster else ""
        scheme = "https" if self.secure else "http"
        return f"ServerAddress({scheme}://{self.user}@{self.host}:{self.port}/{self.database}{cluster})"


class ServerUnavailable(APIError):
    """The ClickHouse server an engine URL names could not be reached or refused the connection."""

    status = 503
    type = "server_error"
    default_code = "engine_unavailable"


def invalid(detail: str) -> ValidationError:
    return ValidationError(detail, attr="engine", code="invalid_engine")


def parse_server_url(url: str) -> ServerAddress:
    """Read an engine URL (``clickhouse://`` or ``clickhouses://``); a bad one is a 400 naming ``engine``.

    >>> parse_server_url("clickhouses://default:s%40cret@abc.clickhouse.cloud/analytics")
    ServerAddress(https://default@abc.clickhouse.cloud:8443/analytics)
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise invalid(
            f"A ClickHouse engine URL starts with clickhouse:// or clickhouses://, not {url.split(':')[0]!r}."
        )
    if not parts.hostname:
        raise invalid("The ClickHouse engine URL names no host: clickhouse://USER:PASSWORD@HOST:PORT/DATABASE.")
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(options) - URL_OPTIONS)
    if unknown:
        raise invalid(f"Unknown option(s) in the ClickHouse engine URL: {', '.join(unknown)} (known: cluster, secure).")
    secure = SCHEMES[scheme]
    if "secure" in options:
        word = options["secure"].lower()
        if word not in TRUE_WORDS | FALSE_WORDS:
            raise invalid(f"secure= takes 1 or 0, not {options['secure']!r}.")
        secure = secure or word in TRUE_WORDS
    database = unquote(parts.path.strip("/")) or DEFAULT_DATABASE
    cluster = options.get("cluster") or None
    for label, name in (("database", database), ("cluster", cluster)):
        if name is not None and not IDENTIFIER.match(name):
            raise invalid(f"The {label} name {name!r} must be letters, digits and underscores.")
    try:
        port = parts.port or (HTTPS_PORT if secure else HTTP_PORT)
    except ValueError:
        raise invalid("The port in the ClickHouse engine URL is not a number.") from None
    return ServerAddress(
        host=parts.hostname,
        port=port,
        user=unquote(parts.username) if parts.username else DEFAULT_USER,
        password=unquote(parts.password) if parts.password else "",
        database=database,
        secure=secure,
        cluster=cluster,
    )


def plain(value: Any) -> Any:
    """Booleans as 1 and 0, which Bool and integer parameters both parse (as :func:`.client.bind_text` sends)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, list | tuple):
        return type(value)(plain(item) for item in value)
    return value


class HttpClient:
    """One database on a ClickHouse server or cluster; safe to use from several threads (see the module)."""

    def __init__(self, client: Any, database: str, *, cluster: str | None = None) -> None:
        self._client = client
        self.database = database
        self.cluster = cluster

    @classmethod
    def connect(cls, url: str, **options: Any) -> HttpClient:
        """Connect to the server ``url`` names and create its database if missing.

        ``options`` go to ``clickhouse_connect.get_client`` (``connect_timeout``, ``verify``, ``ca_cert``...).
        """
        address = parse_server_url(url)
        clickhouse_connect = require("clickhouse_connect")
        require("pyarrow")
        on_cluster = f" ON CLUSTER `{address.cluster}`" if address.cluster else ""
        try:
            client = clickhouse_connect.get_client(
                host=address.host,
                port=address.port,
                username=address.user,
                password=address.password,
                secure=address.secure,
                autogenerate_session_id=False,
                settings=dict(CLUSTER_SETTINGS) if address.cluster else None,
                **options,
            )
            client.command(f"CREATE DATABASE IF NOT EXISTS `{address.database}`{on_cluster}")
        except clickhouse_connect.driver.exceptions.ClickHouseError as exc:
            reason = str(exc).replace(address.password, "***") if len(address.password) >= 4 else str(exc)
            raise ServerUnavailable(
                f"The ClickHouse server {address!r} did not accept the connection: {reason}"
            ) from None
        client.database = address.database
        return cls(client, address.database, cluster=address.cluster)

    def _bound(self, sql: str, params: Mapping[str, Any] | None) -> dict[str, Any] | None:
        # Without a {name:Type} placeholder clickhouse-connect would %-format the SQL client-side instead
        if not params or not PLACEHOLDER.search(sql):
            return None
        return {name: plain(value) for name, value in params.items()}

    def command(self, sql: str, params: Mapping[str, Any] | None = None) -> None:
        self._client.command(sql, parameters=self._bound(sql, params))

    def query_arrow(self, sql: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        # the limit is a setting of this query alone, so it holds on whichever replica answers
        settings = timeout_settings(timeout) or None
        return self._client.query_arrow(sql, parameters=self._bound(sql, params), settings=settings, use_strings=True)

    def query_rows(
        self, sql: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> list[tuple[Any, ...]]:
        table = self.query_arrow(sql, params, timeout=timeout)
        return list(zip(*(column.to_pylist() for column in table.columns), strict=True)) if table.num_columns else []

    def insert_arrow(self, table: str, data: Any) -> None:
        """Insert ``data`` into ``table`` (a name in this database, or ``db.table``) as one Arrow insert."""
        self._client.insert_arrow(table, data, database=self.database)

    def close(self) -> None:
        self._client.close()
