"""ASGI middleware: one canonical path per route, a cap on request body size, and the last-resort 500."""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import APIError, PayloadTooLarge, ServerError, error_body

__all__ = ["TrailingSlashMiddleware", "BodySizeLimitMiddleware", "UnexpectedErrorMiddleware"]

log = logging.getLogger("local_backend")


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
        await send_error(send, PayloadTooLarge(f"Request body is larger than {self.max_bytes} bytes."))


class UnexpectedErrorMiddleware:
    """The last resort: an exception no handler took becomes the 500 envelope, logged once with its request line.

    Starlette's own handler for ``Exception`` answers and then re-raises to the server, which logs the traceback
    a second time and may drop the keep-alive connection; here nothing is raised past the app.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except ClientDisconnect:
            pass  # the client left before sending all of its body: nobody to answer, nothing went wrong here
        except Exception:
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            if not started:
                await send_error(send, ServerError())


async def send_error(send: Send, error: APIError) -> None:
    """Answer ``error`` in the envelope from ASGI code that runs outside the app's exception handlers."""
    body = json.dumps(error_body(error)).encode()
    headers: list[Any] = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": error.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass
