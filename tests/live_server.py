"""A real uvicorn server on a loopback port, for the tests that need a socket (disconnects, keep-alive)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import uvicorn
from fastapi import FastAPI

__all__ = ["free_port", "serve_app", "START_SECONDS"]

START_SECONDS = 10


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_app(app: FastAPI) -> Iterator[str]:
    """Serve ``app`` in a thread while the generator is open; yields its base URL (for ``yield from`` in fixtures)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_SECONDS
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
