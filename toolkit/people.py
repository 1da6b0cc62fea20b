"""`client.people(...)`: the persons behind one point of a trend, stickiness or lifecycle frame, or behind a
people URL the API handed out.

The frames keep each row's people URL in ``attrs["people_urls"]`` (by row position; see
`toolkit.frames.trend_frame`); this follows that URL and its ``next`` links.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import pandas as pd

from .calculations import _people
from .frames import persons_frame
from .transport import Transport

__all__ = ["PeopleMixin", "people_url"]

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
    """The people call of `toolkit.Client`."""

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
        return persons_frame(_people(self.paginate(url, page_size=size), limit))
