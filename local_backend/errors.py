"""The backend's error tree and the one place that renders an error body.

Every error a client sees has the body ``{"type", "code", "detail", "attr"}``, the envelope PostHog's API uses::

    APIError                      (400 validation_error / invalid_input)
    ├── ValidationError           400 validation_error   (code: invalid_input, required, does_not_exist, ...)
    ├── ParseError                400 invalid_request    parse_error
    ├── NotAuthenticated          401 authentication_error not_authenticated   (403 on some resources)
    ├── AuthenticationFailed      401 authentication_error authentication_failed (403 on some resources)
    ├── PermissionDenied          403 authentication_error permission_denied
    ├── NotFound                  404 invalid_request    not_found
    ├── MethodNotAllowed          405 invalid_request    method_not_allowed
    ├── PayloadTooLarge           413 invalid_request    payload_too_large
    ├── UnsupportedMediaType      415 invalid_request    unsupported_media_type
    ├── QueryCancelled            400 invalid_request    query_cancelled
    ├── ServerError               500 server_error       error
    └── QueryTimeout              504 server_error       query_timeout   (the calculation ran out of time)

Routes raise these; they never build error JSON themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

__all__ = [
    "APIError",
    "ValidationError",
    "ParseError",
    "NotAuthenticated",
    "AuthenticationFailed",
    "PermissionDenied",
    "NotFound",
    "MethodNotAllowed",
    "PayloadTooLarge",
    "UnsupportedMediaType",
    "ServerError",
    "QueryCancelled",
    "QueryTimeout",
    "error_body",
    "from_pydantic",
]


class APIError(Exception):
    status: ClassVar[int] = 400
    type: ClassVar[str] = "validation_error"
    default_code: ClassVar[str] = "invalid_input"
    default_detail: ClassVar[str] = "Invalid input."

    def __init__(
        self,
        detail: str | None = None,
        *,
        attr: str | None = None,
        code: str | None = None,
        status: int | None = None,
        headers: dict[str, str] | None = None,
        **values: Any,
    ) -> None:
        # ``values`` fill the placeholders of ``default_detail`` (MethodNotAllowed(method="GET")) and stay readable
        # as attributes of the error.
        self.detail = detail if detail is not None else self.default_detail.format(**values)
        self.__dict__.update(values)
        self.attr = attr
        self.code = code or self.default_code
        self.status_code = status or self.status
        self.headers = headers or {}
        super().__init__(self.detail)


class ValidationError(APIError):
    pass


class ParseError(APIError):
    status = 400
    type = "invalid_request"
    default_code = "parse_error"
    default_detail = "Malformed request."


class NotAuthenticated(APIError):
    status = 401
    type = "authentication_error"
    default_code = "not_authenticated"
    default_detail = "Authentication credentials were not provided."


class AuthenticationFailed(APIError):
    status = 401
    type = "authentication_error"
    default_code = "authentication_failed"
    default_detail = "Incorrect authentication credentials."


class PermissionDenied(APIError):
    status = 403
    type = "authentication_error"
    default_code = "permission_denied"
    default_detail = "You do not have permission to perform this action."


class NotFound(APIError):
    status = 404
    type = "invalid_request"
    default_code = "not_found"
    default_detail = "Not found."


class MethodNotAllowed(APIError):
    status = 405
    type = "invalid_request"
    default_code = "method_not_allowed"
    default_detail = 'Method "{method}" not allowed.'


class PayloadTooLarge(APIError):
    status = 413
    type = "invalid_request"
    default_code = "payload_too_large"
    default_detail = "Request body is too large."


class UnsupportedMediaType(APIError):
    status = 415
    type = "invalid_request"
    default_code = "unsupported_media_type"
    default_detail = "Unsupported media type in request."


class ServerError(APIError):
    status = 500
    type = "server_error"
    default_code = "error"
    default_detail = "A server error occurred."


class QueryCancelled(APIError):
    status = 400
    type = "invalid_request"
    default_code = "query_cancelled"
    default_detail = "The calculation was cancelled."


class QueryTimeout(APIError):
    """A calculation ran past the server's time limit (PostHog answers its query timeouts with 504 too)."""

    status = 504
    type = "server_error"
    default_code = "query_timeout"
    default_detail = (
        "The calculation took longer than the server's limit of {limit_seconds:g} seconds and was stopped."
        " Narrow the date range or the filters, or raise the limit with"
        " `insightlab serve --query-timeout SECONDS`."
    )


def _sendable(text: str | None) -> str | None:
    # details and attrs echo what the client sent, which may hold a lone surrogate that UTF-8 cannot encode
    if text is None or text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def error_body(error: APIError) -> dict[str, Any]:
    """The JSON body of an error response: the only place this shape is built."""
    return {"type": error.type, "code": error.code, "detail": _sendable(error.detail), "attr": _sendable(error.attr)}


def from_pydantic(errors: Sequence[Mapping[str, Any]], *, skip: int = 0) -> APIError:
    """The first problem pydantic found, as the envelope names it: ``attr`` is the field's path joined by
    ``__`` (after the first ``skip`` parts: FastAPI puts ``body`` or ``query`` in front). The only place that
    turns pydantic's errors into the API's, for request bodies and parameters as for filters parsed later."""
    first: Mapping[str, Any] = errors[0] if errors else {}
    kind = first.get("type", "")
    if kind == "json_invalid":
        return ParseError(f"JSON parse error - {first.get('ctx', {}).get('error', 'invalid JSON')}")
    attr = "__".join(str(part) for part in list(first.get("loc", ()))[skip:]) or None
    if kind == "missing":
        return ValidationError("This field is required.", attr=attr, code="required")
    if kind in ("model_attributes_type", "dict_type") and attr is None:
        return ValidationError("Invalid data. Expected a dictionary.", code="invalid_input")
    message = str(first.get("msg", "Invalid input.")).removeprefix("Value error, ")
    return ValidationError(message if message.endswith(".") else message + ".", attr=attr, code="invalid_input")
