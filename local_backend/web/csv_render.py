"""``format=csv``: a JSON body flattened into one CSV row, nested keys joined by dots, headers sorted."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from fastapi.responses import Response

__all__ = ["flatten", "csv_response", "CSV_CONTENT", "CSV_RESPONSES"]

# The OpenAPI declaration of a ``format=csv`` answer, merged into a route's 200.
CSV_CONTENT: dict[str, Any] = {"text/csv": {"schema": {"type": "string", "description": "With format=csv"}}}
CSV_RESPONSES: dict[int | str, dict[str, Any]] = {200: {"content": CSV_CONTENT}}


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": [1]}}`` -> ``{"a.b.0": 1}``; empty containers become an empty cell."""
    if isinstance(value, dict) and value:
        items: dict[str, Any] = {}
        for key, inner in value.items():
            items.update(flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return items
    if isinstance(value, list) and value:
        items = {}
        for index, inner in enumerate(value):
            items.update(flatten(inner, f"{prefix}.{index}" if prefix else str(index)))
        return items
    if isinstance(value, dict | list):
        return {prefix: ""}
    return {prefix: value}


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    return value if isinstance(value, str) else json.dumps(value)


def csv_response(body: dict[str, Any]) -> Response:
    row = flatten(body)
    headers = sorted(row)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(headers)
    writer.writerow([_cell(row[h]) for h in headers])
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8")
