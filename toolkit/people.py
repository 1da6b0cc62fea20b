"""`client.people(...)`: the persons behind one point of a trend, stickiness, lifecycle or retention frame, or
behind a people URL the API handed out; `client.path_people(...)`: the persons behind a node or edge of paths.

The frames keep each row's people URL in ``attrs["people_urls"]`` (by row position; see
`toolkit.frames.trend_frame`); `people` follows that URL and its ``next`` links (a retention cell's page lists
``{"person", "appearances"}`` items under ``result``, read as its persons). An answer of the query API carries no
URLs (PostHog's never does): its frame keeps each row's point in ``attrs["actor_points"]`` and the node it was
sent in ``attrs["query"]``, and `people` asks ``/query/`` for an ``ActorsQuery`` over an ``InsightActorsQuery`` of
that point (`toolkit.actors_query`), page after page. Paths answers carry no URLs, as PostHog's: `path_people`
asks ``persons/paths/`` with the request and the node keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from numbers import Integral
from typing import Any
from urllib.parse import urlsplit

import pandas as pd

from .actors_query import actor_pages, insight_actors_source
from .calculations import CalculationsMixin, _people
from .frames import persons_frame
from .insight_requests import PathsRequest

__all__ = ["PeopleMixin", "people_source", "people_url"]

_RETENTION = "/persons/retention"

_NO_PEOPLE = (
    "this frame keeps no people for its rows (no people URLs, no points): wide frames do not; pass a row of the "
    "tidy frame that trend, stickiness, lifecycle or retention returned"
)
_NO_QUERY = (
    "this frame holds no people URLs and not the query it answered, so its people cannot be asked for: get the "
    "frame from client.trend, client.stickiness or client.lifecycle, which keep the query in attrs['query'] and "
    "ask it with an ActorsQuery"
)


def _row(point: Any) -> tuple[Mapping[str, Any], Any]:
    """The ``attrs`` of the frame ``point`` is a row of, and the row's label."""
    if isinstance(point, pd.DataFrame):
        if len(point) != 1:
            raise ValueError(f"people() needs one row of a frame, got {len(point)} rows; pick one with frame.loc[[i]]")
        return point.attrs, point.index[0]
    if isinstance(point, pd.Series):
        return point.attrs, point.name
    raise TypeError(f"people() takes a frame row or a people URL, not {type(point).__name__}")


def _position(label: Any, rows: int) -> int:
    if not isinstance(label, Integral) or isinstance(label, bool) or not 0 <= int(label) < rows:
        raise ValueError(f"row {label!r} is not a row of the tidy frame the toolkit returned (no people for it)")
    return int(label)


def people_source(point: Any) -> str | dict[str, Any]:
    """Where the people of ``point`` come from: its people URL, or, for a row of a frame the query API answered
    (no URLs), the ``InsightActorsQuery`` node of its point over the frame's ``attrs["query"]``.

    ``point`` is a URL string, a row of a tidy trend/stickiness/lifecycle/retention frame (as ``frame.loc[i]``
    or ``frame.iloc[i]`` give it) or a one-row frame (``frame.loc[[i]]``, ``frame.query(...)``).

    Raises
    ------
    TypeError
        For anything else.
    ValueError
        For a frame of several rows, a row whose frame keeps neither a people URL nor a point for it (a wide
        frame), a frame with points but not the query they belong to, or a formula's row (no people of its own).

    Examples
    --------
    >>> from toolkit.frames import stickiness_frame
    >>> frame = stickiness_frame({"results": [{"action": {"order": 0}, "days": [1, 2], "data": [5, 1]}]})
    >>> frame.attrs["query"] = {"kind": "StickinessQuery"}
    >>> people_source(frame.loc[1])
    {'kind': 'InsightActorsQuery', 'source': {'kind': 'StickinessQuery'}, 'series': 0, 'day': 2}
    """
    if isinstance(point, str):
        if not point.strip():
            raise ValueError("people() needs a people URL, got an empty text")
        return point
    attrs, label = _row(point)
    urls = attrs.get("people_urls")
    if urls:
        url = urls[_position(label, len(urls))]
        if url is None:
            raise ValueError(f"row {label!r} has no people URL: its number counts no people of its own")
        return url
    points = attrs.get("actor_points")
    if not points:
        raise ValueError(_NO_PEOPLE)
    query = attrs.get("query")
    if not isinstance(query, Mapping):
        raise ValueError(_NO_QUERY)
    found = points[_position(label, len(points))]
    if found is None:
        raise ValueError(f"row {label!r} is a formula's value: it counts no people of its own")
    return insight_actors_source(query, found)


def people_url(point: Any) -> str:
    """The people URL of ``point`` (see `people_source`).

    Raises
    ------
    TypeError
        For anything but a URL or a frame row.
    ValueError
        As `people_source`, and for a row of a frame the query API answered (its people come by an
        ``ActorsQuery``, not a URL).
    """
    source = people_source(point)
    if not isinstance(source, str):
        raise ValueError("this row has no people URL: its frame came from the query API, ask people(row) instead")
    return source


class PeopleMixin(CalculationsMixin):
    """The people calls of `toolkit.Client`."""

    def people(self, point: Any, /, *, limit: int | None = None, page_size: int | None = None) -> pd.DataFrame:
        """The persons behind one point of a trend, stickiness, lifecycle or retention frame, or behind a
        people URL.

        Where the answer linked its points to their people (the legacy ``insights/trend/`` answer, the local
        backend's), the row's URL is followed through its ``next`` links. Where the query API answered (PostHog's
        ``TrendsQuery``, ``StickinessQuery``, ``LifecycleQuery``, with no URLs), ``/query/`` is asked for an
        ``ActorsQuery`` over an ``InsightActorsQuery`` of the row's point (``day``, ``series``, ``breakdown``,
        ``compare``, ``status``) on the query the frame came from, paged through ``hasMore``/``offset``. Both
        give the same persons.

        Parameters
        ----------
        point : pandas.Series, pandas.DataFrame or str
            A row of a tidy frame from `trend`, `stickiness`, `lifecycle` or `retention` (``frame.loc[i]``, or a
            one-row frame), or a people URL (a ``persons_urls`` entry of an answer). Wide frames keep no people.
        limit : int, optional
            At most this many persons.
        page_size : int, optional
            Persons asked per page (the ``limit`` of each request); the rest come by following ``next`` (or
            the next ``offset``).

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PERSON_COLUMNS`, as `funnel_people` gives.

        Raises
        ------
        ValueError
            For a row of a wide frame, a formula's row, a frame of several rows, or a frame built from a query
            answer by hand (it lacks ``attrs["query"]``); `TypeError` for anything that is neither a row nor a
            URL.

        Examples
        --------
        >>> frame = client.trend(events="signup", date_from="-7d")  # doctest: +SKIP
        >>> client.people(frame.loc[3])  # doctest: +SKIP
        """
        source = people_source(point)
        if limit is not None and limit <= 0:
            return persons_frame([])
        size = min(page_size or limit or 100, limit or page_size or 100)
        if not isinstance(source, str):
            return persons_frame(_people(actor_pages(self.run_query, source, page_size=size), limit))
        pages = (
            self._retention_people(source, size)
            if _RETENTION in urlsplit(source).path
            else self.paginate(source, page_size=size)
        )
        return persons_frame(_people(pages, limit))

    def _retention_people(self, url: str, size: int) -> Iterator[dict[str, Any]]:
        """The persons of a retention cell's pages (their items are ``{"person", "appearances"}``)."""
        next_url: str | None = url
        params: dict[str, Any] | None = None if "limit=" in url else {"limit": size}
        while next_url:
            body = self.request("GET", next_url, params=params)
            params = None  # the next links carry them
            for item in (body or {}).get("result") or []:
                yield item["person"] if isinstance(item, dict) and "person" in item else item
            next_url = (body or {}).get("next")

    def path_people(
        self,
        request: PathsRequest | None = None,
        /,
        *,
        start_key: str | None = None,
        end_key: str | None = None,
        dropoff_key: str | None = None,
        limit: int | None = None,
        **fields: Any,
    ) -> pd.DataFrame:
        """The persons behind a node or an edge of a paths result (each once; an edge's ``value`` counts
        sessions, so it may be more).

        Parameters
        ----------
        request : PathsRequest, optional
            The paths (or its fields as keywords).
        start_key, end_key : str, optional
            Nodes as `paths` names them in ``source`` / ``target`` (``"2_/pricing"``): both, the persons who
            made that edge; ``start_key`` alone, who went on from the node; ``end_key`` alone, who reached it.
        dropoff_key : str, optional
            Alone: the persons whose path ended at this node.
        limit : int, optional
            At most this many persons.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PERSON_COLUMNS`.

        Raises
        ------
        toolkit.ValidationError
            For a key naming no node or edge of the result (its ``attr`` names the key).

        Examples
        --------
        >>> client.path_people(start_point="/home", start_key="1_/home", end_key="2_/pricing")  # doctest: +SKIP
        """
        request = request if request is not None else PathsRequest(**fields)
        keys = {"path_start_key": start_key, "path_end_key": end_key, "path_dropoff_key": dropoff_key}
        params = {
            key: value if isinstance(value, str) else json.dumps(value) for key, value in request.to_dict().items()
        }
        params.update({key: value for key, value in keys.items() if value})
        if limit is not None and limit <= 0:
            return persons_frame([])
        return persons_frame(_people(self.paginate(self.project_path("persons/paths/"), params, limit=limit), limit))
