"""A test-only ClickHouse HTTP server that runs every query in chdb, for testing the clickhouse-connect path.

No ClickHouse server can be installed where the tests run, so this speaks the part of ClickHouse's HTTP
interface that clickhouse-connect uses and hands each statement to a real ClickHouse engine (chdb): nothing is
answered without running it. It understands:

* ``GET /ping`` -> ``Ok.``;
* a query in the ``query`` URL parameter, the request body, or both (ClickHouse joins them), or in the
  ``query`` field of a multipart form (clickhouse-connect moves long parameters there);
* ``param_NAME`` values for ``{NAME:Type}`` placeholders, passed to chdb as the same escaped text the server
  parses; ``database`` as the current database; ``default_format`` and ``FORMAT`` clauses;
* ``INSERT INTO t [(cols)] FORMAT F`` with the rows as the body (Arrow, Native, ...), read through ``file()``;
* request bodies compressed with lz4 or gzip (``Content-Encoding``); answers go back uncompressed;
* query-level settings (``output_format_arrow_string_as_string`` and the like) applied to that query only.

Errors come back as ClickHouse sends them: status 500, the text ``Code: N. DB::Exception: ...`` and the
``X-ClickHouse-Exception-Code`` header, so the client raises its own ``DatabaseError``.

Run it as its own process (``python -m tests.clickhouse_shim --path DIR``, it prints the port), which gives it
its own chdb session like a separate server; :func:`start_shim` does that for the tests. With ``--cluster NAME``
the engine knows a cluster of that name with one shard, itself, so ``Distributed`` tables over it run for real
(chdb cannot run ``ON CLUSTER`` or replication: there is no Keeper).
"""

from __future__ import annotations

import argparse
import email.parser
import email.policy
import gzip
import json
import os
import re
import subprocess
import sys
import threading
import uuid
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

__all__ = ["ShimRequest", "parse_request", "run_request", "serve", "start_shim"]

#: Parameters of the HTTP interface that are about the transport, not ClickHouse settings.
TRANSPORT_PARAMS = frozenset(
    {
        "query",
        "database",
        "default_format",
        "query_id",
        "session_id",
        "session_timeout",
        "session_check",
        "compress",
        "decompress",
        "enable_http_compression",
        "wait_end_of_query",
        "send_progress_in_http_headers",
        "http_headers_progress_interval_ms",
        "client_protocol_version",
        "buffer_size",
        "quota_key",
        "user",
        "password",
        "role",
    }
)

INSERT_WITH_DATA = re.compile(
    r"^\s*INSERT\s+INTO\s+(?P<target>.+?)\s+FORMAT\s+(?P<format>\w+)\s*$", re.IGNORECASE | re.DOTALL
)
SETTING_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ERROR_CODE = re.compile(r"Code: (\d+)")


@dataclass
class ShimRequest:
    """One HTTP request as ClickHouse reads it: the statement, its parameters and any rows sent with it."""

    query: str
    database: str = "default"
    default_format: str = "TabSeparated"
    params: dict[str, str] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    data: bytes | None = None


def decompress(body: bytes, encoding: str | None) -> bytes:
    """The request body without its ``Content-Encoding``."""
    if not encoding or not body:
        return body
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    if encoding == "lz4":
        import lz4.frame

        return lz4.frame.decompress(body)
    raise ValueError(f"unsupported Content-Encoding {encoding!r}")


def form_fields(body: bytes, content_type: str) -> dict[str, str]:
    """The fields of a ``multipart/form-data`` body."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    fields: dict[str, str] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        fields[str(name)] = payload.decode()
    return fields


def parse_request(url: str, headers: dict[str, str], body: bytes) -> ShimRequest:
    """Read a query request the way ClickHouse's HTTP handler does (pure, tested without a socket)."""
    values = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
    body = decompress(body, headers.get("content-encoding"))
    content_type = headers.get("content-type", "")
    query = values.get("query", "")
    data: bytes | None = None
    if content_type.startswith("multipart/form-data"):
        values.update(form_fields(body, content_type))
        query = values.get("query", "")
    elif query and INSERT_WITH_DATA.match(query):
        data = body
    elif body:
        query = f"{query} {body.decode()}" if query else body.decode()
    params = {key[len("param_") :]: value for key, value in values.items() if key.startswith("param_")}
    settings = {
        key: value
        for key, value in values.items()
        if key not in TRANSPORT_PARAMS and not key.startswith("param_") and SETTING_NAME.match(key)
    }
    return ShimRequest(
        query=query,
        database=values.get("database") or "default",
        default_format=values.get("default_format") or "TabSeparated",
        params=params,
        settings=settings,
        data=data,
    )


class ShimError(Exception):
    """A statement chdb refused, carried back as ClickHouse's error answer."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        match = ERROR_CODE.search(message)
        self.code = match.group(1) if match else "1001"


def with_settings(session: Any, settings: dict[str, str]) -> list[str]:
    """``SET`` each query-level setting and return what undoes them (chdb's settings live in the session)."""
    undo: list[str] = []
    for name, value in settings.items():
        try:
            session.query(f"SET {name} = {quote_setting(value)}")
        except Exception:  # noqa: BLE001 - a setting chdb does not know is ignored, as clients expect of older servers
            continue
        undo.append(f"SET {name} = DEFAULT")
    return undo


def quote_setting(value: str) -> str:
    if re.fullmatch(r"-?\d+(\.\d+)?", value):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def run_request(session: Any, request: ShimRequest, scratch: str) -> bytes:
    """Run the request's statement in ``session`` and return the body ClickHouse would answer with."""
    undo: list[str] = []
    try:
        session.query("USE `" + request.database.replace("\\", "\\\\").replace("`", "\\`") + "`")
        undo = with_settings(session, request.settings)
        insert = INSERT_WITH_DATA.match(request.query) if request.data is not None else None
        if insert is not None:
            path = os.path.join(scratch, f"insert-{uuid.uuid4().hex}")
            with open(path, "wb") as handle:
                handle.write(request.data or b"")
            try:
                statement = f"INSERT INTO {insert['target']} SELECT * FROM file('{path}', '{insert['format']}')"
                session.query(statement, "CSV")
            finally:
                os.unlink(path)
            return b""
        result = session.query(request.query, request.default_format, params=request.params or None)
        return result.bytes()
    except Exception as exc:  # noqa: BLE001 - every engine error goes back to the client as ClickHouse's
        raise ShimError(str(exc)) from None
    finally:
        for statement in undo:
            session.query(statement)


def handler_for(session: Any, scratch: str, log: list[dict[str, Any]] | None) -> type[BaseHTTPRequestHandler]:
    engine_lock = threading.Lock()  # one chdb session: statements run one at a time, like a tiny server

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # an answer goes out as two writes (headers, then body): with Nagle's algorithm the body waits for the
        # client's delayed acknowledgement of the headers, 40 ms on Linux, on every statement
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            """Quiet: the tests read ``log`` instead."""

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if urlsplit(self.path).path == "/ping":
                self.answer(200, b"Ok.\n")
                return
            self.handle_query(b"")

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                body = self.read_chunked()
            else:
                body = self.rfile.read(length) if length else b""
            self.handle_query(body)

        def read_chunked(self) -> bytes:
            chunks = []
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()

        def handle_query(self, body: bytes) -> None:
            headers = {key.lower(): value for key, value in self.headers.items()}
            request = parse_request(self.path, headers, body)
            if log is not None:
                log.append({"url": self.path, "query": request.query, "params": request.params})
            try:
                with engine_lock:
                    answer = run_request(session, request, scratch)
            except ShimError as exc:
                self.answer(500, f"{exc}\n".encode(), {"X-ClickHouse-Exception-Code": exc.code})
                return
            summary = json.dumps({"read_rows": "0", "written_rows": "0"})
            self.answer(200, answer, {"X-ClickHouse-Summary": summary, "X-ClickHouse-Timezone": "UTC"})

        def answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-ClickHouse-Query-Id", str(uuid.uuid4()))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

    return Handler


def serve(
    session: Any,
    scratch: str,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    log: list[dict[str, Any]] | None = None,
) -> Any:
    """An HTTP server answering from ``session`` (call ``serve_forever`` on it), staging inserted data in the folder
    ``scratch``; ``log`` collects requests."""
    server = ThreadingHTTPServer((host, port), handler_for(session, scratch, log))
    server.daemon_threads = True
    return server


CLUSTER_CONFIG = """<clickhouse>
  <tcp_port>9000</tcp_port>
  <remote_servers><{name}><shard><replica><host>localhost</host><port>9000</port></replica></shard></{name}>
  </remote_servers>
  <macros><shard>01</shard><replica>shim</replica></macros>
</clickhouse>
"""


def open_session(path: str, cluster: str | None) -> Any:
    """A chdb session on ``path``; with ``cluster``, one whose config names a one-shard cluster of itself."""
    from chdb import session as chdb_session

    if not cluster:
        return chdb_session.Session(path)
    config = f"{path.rstrip(os.sep)}.cluster.xml"
    with open(config, "w") as handle:
        handle.write(CLUSTER_CONFIG.format(name=cluster))
    return chdb_session.Session(f"file:{path}?config-file={config}")


@contextmanager
def start_shim(path: str, *, cluster: str | None = None) -> Iterator[int]:
    """Run the shim in its own process (its own chdb session, data in ``path``) and yield its port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.clickhouse_shim", "--path", path, *(["--cluster", cluster] if cluster else [])],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.strip().isdigit():
            raise RuntimeError(f"the ClickHouse shim did not start: {line!r}")
        yield int(line)
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", required=True, help="folder for chdb's data")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cluster", help="name of a one-shard cluster of this engine, for Distributed tables")
    args = parser.parse_args(argv)
    # beside the data folder, so that whoever removes the one (a test's temporary folder) removes the other
    scratch = f"{args.path.rstrip(os.sep)}.scratch"
    os.makedirs(scratch, exist_ok=True)
    server = serve(open_session(args.path, args.cluster), scratch, port=args.port)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
