"""`client.people(...)`: the persons behind one point of a trend, stickiness, lifecycle or retention frame, or
behind a people URL the API handed out; `client.path_people(...)`: the persons behind a node or edge of paths.

The frames keep each row's people URL in ``attrs["people_urls"]`` (by row position; see
`toolkit.frames.trend_frame`); `people` follows that URL and its ``next`` links (a retention cell's page lists
``{"person", "appearances"}`` items under ``result``, read as its persons). Paths answers carry no URLs, as
PostHog's: `path_people` asks ``persons/paths/`` with the request and the node keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from numbers import Integral
from typing import Any
from urllib.parse import urlsplit

import pandas as pd

from .calculations import _people
from .frames import persons_frame
from .insight_requests import PathsRequest
from .transport import Transport

__all__ = ["PeopleMixin", "people_url"]

_RETENTION = "/persons/retention"

_NO_URLS = (
    "this frame holds no people URLs: they come with the legacy insights/trend/ answer (the local backend's); "
    "where PostHog answered through the query API, send an ActorsQuery over an InsightActorsQuery with "
    "client.run_query(...)"
)


def people_url(point: Any) -> str:
    """The people URL of ``point``: a URL string, a row of a tidy trend/stickiness/lifecycle frame (as
    ``frame.loc[i]`` or ``frame.iloc[i]`` give it) or a one-row frame (``frame.loc[[i]]``, ``frame.query(...)``).

    Raises
    ------
    TypeError
        For anything else.
    ValueError
        For a frame of several rows, or a row whose frame keeps no people URL for it.
    """
    if isinstance(point, str):
        if not point.strip():
            raise ValueError("people() needs a people URL, got an empty text")
        return point
    if isinstance(point, pd.DataFrame):
        if len(point) != 1:
            raise ValueError(f"people() needs one row of a frame, got {len(point)} rows; pick one with frame.loc[[i]]")
        label = point.index[0]
    elif isinstance(point, pd.Series):
        label = point.name
    else:
        raise TypeError(f"people() takes a frame row or a people URL, not {type(point).__name__}")
    urls = point.attrs.get("people_urls")
    if not urls:
        raise ValueError(_NO_URLS)
    if not isinstance(label, Integral) or isinstance(label, bool) or not 0 <= int(label) < len(urls):
        raise ValueError(f"row {label!r} is not a row of the tidy frame the toolkit returned (no people URL for it)")
    url = urls[int(label)]
    if url is None:
        raise ValueError(f"row {label!r} has no people URL: " + _NO_URLS)
    return url


class PeopleMixin(Transport):
    """The people calls of `toolkit.Client`."""

    def people(self, point: Any, /, *, limit: int | None = None, page_size: int | None = None) -> pd.DataFrame:
        """The persons behind one point of a trend, stickiness or lifecycle frame, or behind a people URL.

        Parameters
        ----------
        point : pandas.Series, pandas.DataFrame or str
            A row of a tidy frame from `trend`, `stickiness` or `lifecycle` (``frame.loc[i]``, or a one-row
            frame), or a people URL (a ``persons_urls`` entry of an answer). Wide frames keep no URLs.
        limit : int, optional
            At most this many persons.
        page_size : int, optional
            Persons asked per page (the ``limit`` of each request); the rest come by following ``next``.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PERSON_COLUMNS`, as `funnel_people` gives.

        Raises
        ------
        ValueError
            For a row with no people URL (a wide frame, a frame PostHog answered through the query API) or a
            frame of several rows; `TypeError` for anything that is neither a row nor a URL.

        Examples
        --------
        >>> frame = client.trend(events="signup", date_from="-7d")  # doctest: +SKIP
        >>> client.people(frame.loc[3])  # doctest: +SKIP
        """
        url = people_url(point)
        if limit is not None and limit <= 0:
            return persons_frame([])
        size = min(page_size or limit or 100, limit or page_size or 100)
        pages = (
            self._retention_people(url, size)
            if _RETENTION in urlsplit(url).path
            else self.paginate(url, page_size=size)
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
