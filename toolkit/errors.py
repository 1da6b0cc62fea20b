"""The toolkit's exceptions: one root, so ``except ToolkitError`` catches everything the toolkit raises.

::

    ToolkitError
    ├── ConfigError                  a setting is missing or malformed (names the setting)
    ├── TransportError               no HTTP answer at all (connection refused, DNS, timeout); carries the URL
    ├── APIError                     the server answered with an error status; carries status, type, code,
    │   │                            detail and attr from PostHog's ``{type, code, detail, attr}`` envelope
    │   ├── ValidationError          400
    │   ├── AuthenticationError      401 (and 403 ``authentication_failed``/``not_authenticated``)
    │   ├── PermissionDeniedError    403
    │   ├── NotFoundError            404
    │   ├── MethodNotAllowedError    405
    │   ├── RateLimitError           429 (``retry_after`` in seconds when the server said)
    │   └── ServerError              5xx
    │       └── QueryTimeoutError    504: the calculation ran past the server's time limit (never retried)
    └── LocalBackendError            the embedded local backend could not be started
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "APIError",
    "AuthenticationError",
    "ConfigError",
    "LocalBackendError",
    "MethodNotAllowedError",
    "NotFoundError",
    "PermissionDeniedError",
    "QueryTimeoutError",
    "RateLimitError",
    "ServerError",
    "ToolkitError",
    "TransportError",
    "ValidationError",
    "error_for_response",
]


class ToolkitError(Exception):
    """Root of every exception the toolkit raises."""


class ConfigError(ToolkitError):
    """A required setting is missing or malformed; the message names it and where it can be given."""


class LocalBackendError(ToolkitError):
    """The embedded local backend did not start (the message carries its output)."""


class TransportError(ToolkitError):
    """The request got no HTTP answer: connection refused, DNS failure, timeout, retries exhausted.

    Attributes
    ----------
    url : str
        The URL that was being requested.
    """

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(f"{message} ({url})")
        self.url = url


class APIError(ToolkitError):
    """The server answered with an error status.

    Attributes
    ----------
    status : int
        The HTTP status code.
    type, code, detail, attr : str or None
        The fields of the error envelope ``{"type", "code", "detail", "attr"}``; ``detail`` falls back to the
        response text when the body is not an envelope (PostHog answers some errors with an empty body).
    url : str or None
        The URL that was requested.
    """

    def __init__(
        self,
        status: int,
        *,
        type: str | None = None,
        code: str | None = None,
        detail: str | None = None,
        attr: str | None = None,
        url: str | None = None,
    ) -> None:
        self.status = status
        self.type = type
        self.code = code
        self.detail = detail
        self.attr = attr
        self.url = url
        parts = [f"{status}"]
        if code:
            parts.append(code)
        message = " ".join(parts)
        if detail:
            message += f": {detail}"
        if attr:
            message += f" (field {attr!r})"
        super().__init__(message)


class ValidationError(APIError):
    """400: the request was malformed; ``attr`` names the offending field when the server said."""


class AuthenticationError(APIError):
    """401, or 403 with an authentication code: the personal API key is missing or invalid."""


class PermissionDeniedError(APIError):
    """403: the key lacks a scope or access to the project."""


class NotFoundError(APIError):
    """404: the project, object or endpoint does not exist."""


class MethodNotAllowedError(APIError):
    """405: the method is refused (for example DELETE on an insight; use ``delete_insight``)."""


class RateLimitError(APIError):
    """429 after the retries were spent.

    Attributes
    ----------
    retry_after : float or None
        Seconds the server asked to wait (its ``Retry-After`` header).
    """

    def __init__(self, status: int, *, retry_after: float | None = None, **fields: Any) -> None:
        super().__init__(status, **fields)
        self.retry_after = retry_after


class ServerError(APIError):
    """5xx after the retries were spent."""


class QueryTimeoutError(ServerError):
    """504: the server stopped the calculation when it reached its time limit.

    PostHog answers a query that runs past its limit with 504, and so does the local backend (code
    ``query_timeout``). Asking again runs into the same limit, so the toolkit does not retry it: narrow the
    date range or the filters, or start the local backend with a larger ``--query-timeout``.
    """


_BY_STATUS: dict[int, type[APIError]] = {
    400: ValidationError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    429: RateLimitError,
    504: QueryTimeoutError,
}

# PostHog's insights answer 403 (not 401) for a missing or invalid key; the code tells the two cases apart.
_AUTHENTICATION_CODES = {"authentication_failed", "not_authenticated"}


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def error_for_response(
    status: int, body: Any, *, url: str | None = None, headers: dict[str, str] | None = None
) -> APIError:
    """Build the `APIError` subclass for an error response.

    Parameters
    ----------
    status : int
        HTTP status (>= 400).
    body : Any
        The decoded JSON body (an envelope dict), or the raw text when it was not JSON.
    url : str, optional
        The requested URL, kept on the error.
    headers : dict, optional
        Response headers; ``Retry-After`` is read for 429.

    Returns
    -------
    APIError
        The subclass matching the status.

    Examples
    --------
    >>> error = error_for_response(404, {"type": "invalid_request", "code": "not_found", "detail": "Not found."})
    >>> type(error).__name__, error.detail
    ('NotFoundError', 'Not found.')
    """
    fields: dict[str, Any] = {"url": url}
    if isinstance(body, dict):
        for key in ("type", "code", "detail", "attr"):
            value = body.get(key)
            fields[key] = None if value is None else str(value)
    elif isinstance(body, str) and body.strip():
        fields["detail"] = body.strip()[:500]
    if status in _BY_STATUS:
        cls = _BY_STATUS[status]
    elif status >= 500:
        cls = ServerError
    else:
        cls = APIError
    if status == 403 and fields.get("code") in _AUTHENTICATION_CODES:
        cls = AuthenticationError
    if cls is RateLimitError:
        return RateLimitError(status, retry_after=_retry_after((headers or {}).get("Retry-After")), **fields)
    return cls(status, **fields)
