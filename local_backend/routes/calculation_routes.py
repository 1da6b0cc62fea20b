"""How a calculation path is declared: one handler answering GET (the filter in the query string) and POST
(the filter as the body), as PostHog's insight endpoints do.

Before the handler reads its filter, the request is checked for fields that change the answer and are not
calculated here yet (:mod:`..queries.unsupported_fields`): those are a 400 naming the field, on every
calculation route alike (on the trend route, for the kind the request asks for: a trend, stickiness or
lifecycle, :mod:`..queries.trend_kinds`). The check runs after the credentials are checked, so a request
without them is still refused for that first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from ..queries.funnels import FunnelFilter
from ..queries.paths import PathFilter
from ..queries.retention import RetentionFilter
from ..queries.trend_kinds import TRENDS, trend_request_kind
from ..queries.trends import TrendsFilter
from ..queries.unsupported_fields import refuse_unsupported_fields
from ..web.filter_request import read_filter_params
from ..web.request_bodies import body_openapi
from .common import InsightReader

__all__ = ["calculation_route", "KIND_OF_FILTER"]

Handler = TypeVar("Handler", bound=Callable[..., Any])
# The insight kind whose fields a calculation route's filter carries.
KIND_OF_FILTER: dict[type[BaseModel], str] = {
    TrendsFilter: TRENDS,
    FunnelFilter: "FUNNELS",
    RetentionFilter: "RETENTION",
    PathFilter: "PATHS",
}


def _fields_check(kind: str) -> Callable[..., Any]:
    """A dependency refusing the request's unsupported fields of ``kind``, once its credentials passed."""

    async def refuse_unsupported(request: Request, access: InsightReader) -> None:
        params = await read_filter_params(request)
        refuse_unsupported_fields(trend_request_kind(params) if kind == TRENDS else kind, params)

    return refuse_unsupported


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
    kind = KIND_OF_FILTER.get(filter_model)
    checks = [Depends(_fields_check(kind))] if kind else []

    def declare(handler: Handler) -> Handler:
        router.get(
            path,
            response_model=response_model,
            summary=f"{title}, the filter in the query string",
            dependencies=checks,
            **options,
        )(handler)
        body = body_openapi(filter_model, form=False, required=body_required)
        router.post(
            path, response_model=response_model, summary=summary, openapi_extra=body, dependencies=checks, **options
        )(handler)
        return handler

    return declare
