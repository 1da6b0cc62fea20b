"""The app factory: settings in, ASGI app out, with the route table and the one error renderer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path

from . import __version__
from .config import Settings
from .errors import APIError, MethodNotAllowed, NotFound, ParseError, error_body, from_pydantic
from .ingestion.writer import settle_interrupted_writes
from .models.common import ErrorResponse
from .results.runner import QueryRunner
from .routes import ROUTERS
from .store.db import connect
from .store.engine.choice import open_database, open_engine
from .store.engine.interface import EventEngine
from .store.engine.pool import ConnectionPool
from .store.materialize_schedule import AutoMaterializeSchedule
from .store.migrations import migrate
from .web.middleware import BodySizeLimitMiddleware, TrailingSlashMiddleware, UnexpectedErrorMiddleware
from .web.request_bodies import hoist_body_definitions, standard_bounds

__all__ = ["create_app"]


API_DESCRIPTION = """
A local, PostHog-compatible analytics API over SQLite: projects, plugin configs, insights, sharing and activity.

Authenticate with a personal API key: `Authorization: Bearer phx_...`. Every error has the body
`{"type", "code", "detail", "attr"}`.
"""
# Every route may answer these in the error envelope: bad input, no or bad key, missing scope, unknown project
# or object, a method the path does not take, a body over the size limit.
DECLARED_ERROR_STATUSES = (400, 401, 403, 404, 405, 413)


def create_app(settings: Settings, engine: EventEngine | None = None) -> FastAPI:
    """Build the backend for ``settings``; the database is created and migrated here, and its event engine
    opened (``engine``, when the caller opened it: a test choosing the engine it runs on). Every connection the
    app makes carries that engine."""
    migrate(settings.db_path)
    engine = engine if engine is not None else open_engine(settings.db_path)
    conn = open_database(settings.db_path, engine)
    try:
        settle_interrupted_writes(conn)  # a ClickHouse write a crash cut short is taken back first
    finally:
        conn.close()
    runner = QueryRunner(
        db_path=settings.db_path, engine=engine, clock=settings.clock, timeout_seconds=settings.query_timeout_seconds
    )
    connections = ConnectionPool(settings.db_path, engine)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Held open while the app serves: as long as one connection is open SQLite keeps the WAL file and its
        # index, so each request's connection opens, records property usage and closes in a tenth of a
        # millisecond, where the last connection to close checkpoints and removes the WAL (about 25 ms a request).
        keeper = connect(settings.db_path)
        schedule = None
        if settings.materialize_auto_interval > 0:
            schedule = AutoMaterializeSchedule(
                settings.db_path,
                engine,
                interval=settings.materialize_auto_interval,
                limit=settings.materialize_auto_limit,
                clock=settings.clock,
            )
            schedule.start()
        yield
        if schedule is not None:
            schedule.stop()
        runner.shutdown()
        connections.close_idle()
        keeper.close()

    app = FastAPI(
        lifespan=lifespan,
        title="insightlab local backend",
        version=__version__,
        description=API_DESCRIPTION,
        openapi_url="/api/schema",
        docs_url="/api/schema/swagger-ui",
        redoc_url="/api/schema/redoc",
        redirect_slashes=False,
        responses={status: {"model": ErrorResponse} for status in DECLARED_ERROR_STATUSES},
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.query_runner = runner
    app.state.connections = connections
    _install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    _hoist_body_definitions_in_schema(app)
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_request_bytes)
    app.add_middleware(TrailingSlashMiddleware)
    app.add_middleware(UnexpectedErrorMiddleware)  # outermost of ours: nothing raises past it to the server
    return app


def _hoist_body_definitions_in_schema(app: FastAPI) -> None:
    """The OpenAPI schema with the models of hand-documented bodies under ``components/schemas``, bad input
    declared as it is answered (a 400 envelope, never FastAPI's default 422 ``HTTPValidationError``), and every
    numeric bound under its JSON Schema name."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = standard_bounds(_without_default_422(hoist_body_definitions(build())))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _without_default_422(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop the 422 FastAPI declares on every operation with parameters: the app answers bad input with the
    400 envelope (see ``_validation_error``), which every operation declares."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict):
                operation.get("responses", {}).pop("422", None)
    components = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    return schema


def render_error(error: APIError) -> JSONResponse:
    """The only function that turns an error into a response."""
    return JSONResponse(error_body(error), status_code=error.status_code, headers=error.headers or None)


def _validation_error(exc: RequestValidationError) -> APIError:
    return from_pydantic(exc.errors(), skip=1)


def _allowed_methods(app: FastAPI, request: Request) -> str:
    """The methods this path takes, for the ``Allow`` header a 405 must carry (RFC 9110).

    The first template that matches is the path's own, as in routing (``insights/my_last_viewed`` comes before
    ``insights/{insight_id}``)."""
    for template, operations in app.openapi()["paths"].items():
        if compile_path(template)[0].match(request.scope["path"]):
            return ", ".join(sorted(method.upper() for method in operations))
    return ""


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(APIError)
    async def api_error(request: Request, exc: APIError) -> JSONResponse:
        return render_error(exc)

    @app.exception_handler(RequestValidationError)
    async def request_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return render_error(_validation_error(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return render_error(NotFound("Endpoint not found."))
        if exc.status_code == 405:
            return render_error(
                MethodNotAllowed(method=request.method, headers={"Allow": _allowed_methods(app, request)})
            )
        if exc.status_code == 400:  # FastAPI could not decode the body (e.g. JSON nested too deeply)
            return render_error(ParseError(f"JSON parse error - {exc.detail}"))
        return render_error(APIError(str(exc.detail), status=exc.status_code, code="error"))
