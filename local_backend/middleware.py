"""ASGI middleware: one canonical path per route, and a cap on request body size."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import PayloadTooLarge, error_body

__all__ = ["TrailingSlashMiddleware", "BodySizeLimitMiddleware"]


class TrailingSlashMiddleware:
    """Every route answers with and without its trailing slash, never with a redirect.

    Routes are declared without the slash; a request path ending in one is routed without it, and the path as
    sent is kept in the scope so that pagination links repeat what the client used.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path: str = scope["path"]
            if len(path) > 1 and path.endswith("/"):
                scope = dict(scope)
                scope["insightlab.original_path"] = path
                scope["path"] = path.rstrip("/") or "/"
                scope["raw_path"] = scope["path"].encode()
        await self.app(scope, receive, send)


class BodySizeLimitMiddleware:
    """Refuse bodies over ``max_bytes`` with a 413 envelope before any of it reaches a route."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        error = PayloadTooLarge(f"Request body is larger than {self.max_bytes} bytes.")
        body = json.dumps(error_body(error)).encode()
        headers: list[Any] = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": error.status_code, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass
