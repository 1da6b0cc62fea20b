"""A calculation's filter from decoded request data: JSON text decoded, the pydantic model checked.

PostHog's calculation endpoints (``insights/retention/``, ``insights/path/``, ...) take the same filter on GET
and POST: on GET, arrays and objects travel as JSON text in the query string (``target_entity={"id": ...}``);
on POST they are native JSON in the body. Reading the request is the routes' part
(:func:`local_backend.web.filter_request.read_filter_params`); what is here needs no request, so saved insights
computed in the background parse their stored filters the same way.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import pydantic

from ..errors import ValidationError, from_pydantic
from ..models.fields import json_problem

__all__ = ["decode_json_text", "parse_filter", "check_decoded"]

M = TypeVar("M", bound=pydantic.BaseModel)


def check_decoded(value: Any, attr: str | None = None) -> None:
    """A 400 naming the place where decoded JSON holds text that cannot be stored (a lone surrogate) or nests
    too deeply; ``attr`` is the field ``value`` came from, when it is one."""
    found = json_problem(value)
    if found is not None:
        problem, path = found
        where = "__".join(str(part) for part in ([attr] if attr else []) + path) or None
        raise ValidationError(f"JSON {problem}.", attr=where)


def decode_json_text(value: Any, attr: str | None = None) -> Any:
    """A string that holds a JSON array or object, decoded; anything else unchanged.

    Invalid JSON is a ValidationError on ``attr``; without ``attr`` (inside a pydantic validator) a
    ValueError, so that pydantic names the field.
    """
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            decoded = json.loads(value)
        except (ValueError, RecursionError):
            if attr is None:
                raise ValueError("Enter valid JSON") from None
            raise ValidationError("Enter valid JSON.", attr=attr) from None
        if attr is not None:
            check_decoded(decoded, attr)
        else:
            found = json_problem(decoded)
            if found is not None:
                raise ValueError(f"JSON {found[0]}")
        return decoded
    return value


def parse_filter(model: type[M], data: dict[str, Any]) -> M:
    """``data`` as ``model``, or a ValidationError naming the first bad field (nested path joined by ``__``).

    Usable outside a request (saved insights computed in the background) as well as in one.
    """
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise from_pydantic(exc.errors()) from None
