"""The capture API: ``POST /batch/``, ``/capture/``, ``/e/``, ``/i/v0/e/``, where PostHog's SDKs send events.

Authenticated by the project API token (``phc_...``) in the payload (``api_key`` / ``token``), the first
event (or its properties), the form or the query string, never by a personal API key. The request is answered
only after its events are committed, so an acknowledged event is never lost. See docs/ingestion.md.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from ..errors import AuthenticationFailed, NotAuthenticated
from ..ingestion import IngestReport, check_events, store_events
from ..ingestion.payload import CaptureBatch, decode_body, read_batch
from ..ingestion.writer import SharedWriter
from ..models.capture import CAPTURE_REQUEST_BODY, CaptureResponse
from ..store.projects import get_project_by_token
from ..web.deps import get_engine, get_settings

__all__ = ["router", "CAPTURE_PATHS"]

router = APIRouter(tags=["capture"])

CAPTURE_PATHS = ("/batch", "/capture", "/e", "/i/v0/e")
_TOKEN_HINT = "You can find your project API key (phc_...) in the project's settings: GET /api/projects/@current/."


def _writer(request: Request) -> SharedWriter:
    writer = getattr(request.app.state, "capture_writer", None)
    if writer is None:
        writer = request.app.state.capture_writer = SharedWriter(get_settings(request).db_path, get_engine(request))
    return writer


def _store_batch(request: Request, batch: CaptureBatch, received_at: datetime) -> IngestReport:
    # Reading the events needs no database: done before queueing for the writer, it overlaps another
    # request's insert and commit (SQLite runs those without holding the GIL).
    checked = check_events(
        batch.events, received_at=received_at, sent_at=batch.sent_at, historical_migration=batch.historical_migration
    )
    settings = get_settings(request)

    def store(conn: sqlite3.Connection) -> IngestReport:
        project = get_project_by_token(conn, batch.token or "")
        if project is None:
            raise AuthenticationFailed(
                f"Project API key invalid. No project has the token {(batch.token or '')[:64]!r}. {_TOKEN_HINT}",
                code="invalid_api_key",
            )
        return store_events(conn, project, checked, now=settings.clock.now())

    # Stored with the other requests waiting for the writer, in one transaction; answered after its commit.
    return _writer(request).submit(store)


async def capture(request: Request) -> CaptureResponse:
    """Store a batch of events (or one event) sent by a PostHog SDK."""
    received_at = datetime.now(UTC)  # skew is measured against real time, whatever the server clock says
    compression = request.query_params.get("compression") or request.headers.get("content-encoding", "")
    payload, fields = decode_body(
        await request.body(),
        content_type=request.headers.get("content-type", ""),
        compression=compression,
        limit=get_settings(request).max_request_bytes,
    )
    batch = read_batch(payload, fields, request.query_params)
    if not batch.token:
        raise NotAuthenticated(f"API key not provided. {_TOKEN_HINT}", code="missing_api_key")
    report = await run_in_threadpool(_store_batch, request, batch, received_at)
    return CaptureResponse.model_validate(report.as_dict())


for _path in CAPTURE_PATHS:
    router.add_api_route(
        _path,
        capture,
        methods=["POST"],
        response_model=CaptureResponse,
        summary="Capture events (PostHog SDK wire format)",
        name=f"capture{_path.replace('/', '_')}",
        openapi_extra={"requestBody": CAPTURE_REQUEST_BODY},
    )
