"""The envelope every legacy calculation endpoint answers with, and the timings it reports.

``insights/trend/``, ``funnel/``, ``retention/`` and ``path/`` answer ``{result, timezone, last_refresh,
is_cached, ..., timings}`` as PostHog does; ``timings`` lists how long parsing the filter, querying and
formatting took, so a slow answer says where its time went::

    calc = await read_calculation(request, FunnelFilter)            # "./filter" ends here
    counts = await calculate(request, conn, calc, lambda: compute(conn, project, calc.filter, calc.now))
    return calculation_envelope(request, access, shape(counts), calc.timer)   # "./query", then "./format"
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import urlencode

from fastapi import APIRouter, Request

from ..queries.filter_parsing import parse_filter
from .deps import get_settings, now_iso
from .filter_request import read_filter_params
from .off_loop import compute_off_loop

__all__ = ["PhaseTimer", "Calculation", "read_calculation", "calculate", "calculation_envelope", "link_to"]

F = TypeVar("F")
T = TypeVar("T")


@dataclass
class PhaseTimer:
    """Seconds spent in each named phase of answering one request, in order."""

    started: float = field(default_factory=time.perf_counter)
    phases: list[tuple[str, float]] = field(default_factory=list)

    def mark(self, name: str) -> None:
        """End the phase ``name`` now; the next phase starts here."""
        now = time.perf_counter()
        self.phases.append((name, now - self.started))
        self.started = now

    def timings(self) -> list[dict[str, Any]]:
        return [{"k": name, "t": seconds} for name, seconds in self.phases]


@dataclass
class Calculation(Generic[F]):
    """One calculation request as read: its typed filter, the raw parameters, the server's now, its timer."""

    filter: F
    params: dict[str, Any]
    now: datetime
    timer: PhaseTimer


async def read_calculation(request: Request, model: type[F]) -> Calculation[F]:
    """The request's filter (query string and body) parsed as ``model``: a 400 naming the field otherwise."""
    timer = PhaseTimer()
    params = await read_filter_params(request)
    filter = parse_filter(model, params)
    timer.mark("./filter")
    return Calculation(filter, params, get_settings(request).clock.now(), timer)


async def calculate(request: Request, conn: sqlite3.Connection, calc: Calculation[Any], compute: Callable[[], T]) -> T:
    """``compute()`` run off the event loop under the calculation's time limit, timed as the query phase."""
    result = await compute_off_loop(request, conn, compute)
    calc.timer.mark("./query")
    return result


class ProjectOfRequest(Protocol):
    """What the envelope reads of the request's access (:class:`local_backend.auth.ProjectAccess`): its project."""

    project: dict[str, Any]


def calculation_envelope(
    request: Request, access: ProjectOfRequest, result: Any, timer: PhaseTimer, **extra: Any
) -> dict[str, Any]:
    """The response of a calculation computed now; ``extra`` fields (``next``, ...) go before ``timings``."""
    timer.mark("./format")
    return {
        "result": result,
        "timezone": access.project.get("timezone") or "UTC",
        "last_refresh": now_iso(request),
        "is_cached": False,
        **extra,
        "timings": timer.timings(),
    }


def link_to(router: APIRouter, handler: str, project_id: int) -> Callable[[dict[str, Any]], str]:
    """The URL of the route ``handler`` of ``router`` in the project, with the query a calculation gives it.

    Calculations return the query of each link in their answer (a funnel step's people, a retention cell's);
    the route module that owns the handler makes the URL, its path read from the router (so the path is written
    once, in the handler's decorator)::

        link_to(funnels.router, "funnel_people_route", 2)({"funnel_step": 1})
        # '/api/projects/2/persons/funnel/?funnel_step=1'
    """
    base = router.url_path_for(handler, project_id=str(project_id))
    # A calculation's links repeat its filter in every point (a 30-day breakdown makes hundreds): each parameter
    # is quoted once, as urlencode quotes it, keyed by its type too (True and 1 are equal keys, not equal text).
    quoted: dict[tuple[str, type, Any], str] = {}

    def pair(key: str, value: Any) -> str:
        try:
            return quoted[(key, type(value), value)]
        except KeyError:
            text = quoted[(key, type(value), value)] = urlencode({key: value})
            return text
        except TypeError:  # an unhashable value
            return urlencode({key: value})

    return lambda params: f"{base}/?{'&'.join(pair(key, value) for key, value in params.items())}"
