"""How a calculation path is declared: one handler answering GET (the filter in the query string) and POST
(the filter as the body), as PostHog's insight endpoints do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter
from pydantic import BaseModel

from ..web.request_bodies import body_openapi

__all__ = ["calculation_route"]

Handler = TypeVar("Handler", bound=Callable[..., Any])


def calculation_route(
    router: APIRouter,
    path: str,
    *,
    response_model: type[BaseModel],
    filter_model: type[BaseModel],
    title: str,
    summary: str,
    body_required: bool = True,
    **options: Any,
) -> Callable[[Handler], Handler]:
    """Declare the decorated handler for ``GET path`` and ``POST path``.

    ``title`` names the calculation in the GET's summary; ``summary`` describes the POST, whose body schema is
    ``filter_model`` (optional when ``body_required`` is False: an empty body is the default filter).
    ``options`` go to both declarations (``response_model_exclude_unset``, ``responses``, ...).
    """

    def declare(handler: Handler) -> Handler:
        router.get(path, response_model=response_model, summary=f"{title}, the filter in the query string", **options)(
            handler
        )
        body = body_openapi(filter_model, form=False, required=body_required)
        router.post(path, response_model=response_model, summary=summary, openapi_extra=body, **options)(handler)
        return handler

    return declare
