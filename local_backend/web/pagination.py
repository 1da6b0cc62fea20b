"""Limit/offset pagination with absolute ``next`` and ``previous`` links, as PostHog's list endpoints."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from fastapi import Query, Request

from ..config import MAX_PAGE_SIZE
from ..errors import ValidationError
from .deps import get_settings
from .query_params import integer_text

__all__ = ["Page", "page_params", "paginated", "replace_query", "parse_int_param", "request_url"]

MAX_OFFSET = 2**62
_INTEGER = re.compile(r"-?[0-9]{1,20}")


@dataclass(frozen=True)
class Page:
    limit: int
    offset: int


def parse_int_param(value: str | None, *, name: str, default: int, minimum: int, maximum: int) -> int:
    """An integer query parameter within bounds, or a 400 naming it."""
    if value is None or value == "":
        return default
    # ASCII digits only: int() would also take "٢", "1_000" and surrounding spaces
    if not _INTEGER.fullmatch(value):
        raise ValidationError(f"'{name}' must be an integer.", attr=name)
    number = int(value)
    if number < minimum or number > maximum:
        raise ValidationError(f"'{name}' must be between {minimum} and {maximum}.", attr=name)
    return number


def page_params(
    request: Request,
    # the schema states the default bound; a server started with another max_page_size enforces its own
    limit: integer_text(1, MAX_PAGE_SIZE) | None = Query(None, description="Number of results to return per page."),
    offset: integer_text(0, MAX_OFFSET) | None = Query(
        None, description="The initial index from which to return the results."
    ),
) -> Page:
    settings = get_settings(request)
    return Page(
        limit=parse_int_param(
            limit, name="limit", default=settings.default_page_size, minimum=1, maximum=settings.max_page_size
        ),
        offset=parse_int_param(offset, name="offset", default=0, minimum=0, maximum=MAX_OFFSET),
    )


def request_url(request: Request) -> str:
    """The URL the client asked for, with the trailing slash it used."""
    original = request.scope.get("insightlab.original_path")
    url = request.url
    return str(url.replace(path=original)) if original else str(url)


def replace_query(url: str, **params: Any) -> str:
    """``url`` with the given query parameters set (a value of None removes the parameter)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    query += [(k, str(v)) for k, v in params.items() if v is not None]
    return urlunsplit(parts._replace(query=urlencode(query)))


def paginated(request: Request, page: Page, count: int, results: list[Any]) -> dict[str, Any]:
    url = request_url(request)
    next_url = None
    if page.offset + page.limit < count:
        next_url = replace_query(url, limit=page.limit, offset=page.offset + page.limit)
    previous_url = None
    if page.offset > 0:
        previous_offset = page.offset - page.limit
        previous_url = replace_query(url, limit=page.limit, offset=previous_offset if previous_offset > 0 else None)
    return {"count": count, "next": next_url, "previous": previous_url, "results": results}
