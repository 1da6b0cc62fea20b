"""Stickiness and lifecycle: how regularly the actors of an event come back.

Both are trend kinds: the legacy endpoint is ``insights/trend/`` (``insight: STICKINESS`` / ``LIFECYCLE``),
and where it is gone the ``StickinessQuery`` / ``LifecycleQuery`` node goes to ``/query/``, as
`toolkit.calculations.CalculationsMixin.calculate` does for every calculation.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .calculations import CalculationsMixin, keep_request
from .entities import Entity
from .frames import lifecycle_frame, stickiness_frame
from .lifecycle_request import LifecycleRequest
from .stickiness_request import StickinessRequest

__all__ = ["EngagementMixin"]


class EngagementMixin(CalculationsMixin):
    """The stickiness and lifecycle functions of `toolkit.Client`."""

    def stickiness(
        self,
        request: StickinessRequest | None = None,
        /,
        *,
        wide: bool = False,
        all_breakdowns: bool = False,
        **fields: Any,
    ) -> pd.DataFrame:
        """Count the actors of each series by the number of intervals they were active in.

        Parameters
        ----------
        request : StickinessRequest, optional
            A prepared request; or give its fields as keywords: ``events``, ``interval``, ``date_from``,
            ``date_to``, ``properties``, ``criteria`` (``("gte", 3)``: an interval counts with at least 3
            events), ``cumulative``, ``breakdown``, ``compare``, ...
        wide : bool
            One column per series, indexed by the number of intervals, instead of the tidy frame.
        all_breakdowns : bool
            Follow the response's ``next`` link to fetch every page of breakdown values.
        **fields
            `StickinessRequest` fields.

        Returns
        -------
        pandas.DataFrame
            Tidy: ``intervals`` (Int64, 1..N), ``interval_label`` (``1 day``, ...), ``series``,
            ``breakdown_value`` (with a breakdown), ``compare_label`` (with compare), ``value`` (Int64,
            actors); see `toolkit.frames.stickiness_frame`. ``attrs["request"]`` holds the request body.

        Examples
        --------
        >>> client.stickiness(events="$pageview", date_from="2026-01-01", date_to="2026-01-14")  # doctest: +SKIP
        """
        request = request if request is not None else StickinessRequest(**fields)
        response = self.calculate("trend", request)
        self._warn_unseen(request)
        if all_breakdowns:
            response = self._every_page(response)
        frame = stickiness_frame(response, wide=wide)
        keep_request(frame, request, response)
        return frame

    def lifecycle(
        self,
        event_or_action: Entity | LifecycleRequest | None = None,
        /,
        *,
        wide: bool = False,
        **fields: Any,
    ) -> pd.DataFrame:
        """Count, per interval, the actors of one event who were new, returning, resurrecting or went dormant.

        Parameters
        ----------
        event_or_action : str, int, dict or LifecycleRequest
            The event name, an `event` dict, an action id or `action` dict; or a prepared request.
        wide : bool
            One column per status with a DatetimeIndex instead of the tidy frame.
        **fields
            `LifecycleRequest` fields: ``interval``, ``date_from``, ``date_to``, ``properties``, ...

        Returns
        -------
        pandas.DataFrame
            Tidy: ``date`` (datetime64[ns, <project tz>]), ``status`` (``new``, ``returning``,
            ``resurrecting``, ``dormant``), ``value`` (Int64, actors; dormant negative); see
            `toolkit.frames.lifecycle_frame`. ``attrs["request"]`` holds the request body.

        Examples
        --------
        >>> client.lifecycle("$pageview", interval="week", date_from="2025-12-01")  # doctest: +SKIP
        """
        if isinstance(event_or_action, LifecycleRequest):
            request = event_or_action
        else:
            event = event_or_action if event_or_action is not None else fields.pop("event", None)
            request = LifecycleRequest(event, **fields)
        response = self.calculate("trend", request)
        self._warn_unseen(request)
        frame = lifecycle_frame(response, wide=wide)
        keep_request(frame, request, response)
        return frame
