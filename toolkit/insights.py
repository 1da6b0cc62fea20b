"""Saved insights: list, retrieve, create, update, soft delete, favourite, views, activity, sharing."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import pandas as pd

from .frames import activity_frame, insights_frame, sharing_frame
from .transport import Transport

__all__ = ["InsightsMixin"]


def _flag(value: bool | None) -> str | None:
    return None if value is None else ("true" if value else "false")


class InsightsMixin(Transport):
    """The insight functions of `toolkit.Client`."""

    def _insight_id(self, id_or_short_id: int | str) -> int:
        if isinstance(id_or_short_id, int) or str(id_or_short_id).isdigit():
            return int(id_or_short_id)
        found = list(self.paginate(self.project_path("insights/"), {"short_id": id_or_short_id}, limit=1))
        if not found:
            from .errors import NotFoundError

            raise NotFoundError(404, code="not_found", detail=f"No insight with short_id {id_or_short_id!r}.")
        return int(found[0]["id"])

    def iter_insights(
        self,
        *,
        limit: int | None = None,
        short_id: str | None = None,
        created_by: int | None = None,
        saved: bool | None = None,
        favorited: bool | None = None,
        mine: bool | None = None,
        search: str | None = None,
        insight: str | None = None,
        dashboards: Sequence[int] | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        basic: bool | None = None,
        refresh: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Yield insight objects one by one, following pagination; parameters as for `insights`.

        Examples
        --------
        >>> next(client.iter_insights(search="signup"))["name"]  # doctest: +SKIP
        'Signups per week'
        """
        params = {
            "short_id": short_id,
            "created_by": created_by,
            "saved": _flag(saved),
            # the server filters on the key's presence, so only send these when asked for
            "favorited": "true" if favorited else None,
            "user": "true" if mine else None,
            "search": search,
            "insight": insight,
            "dashboards": json.dumps(list(dashboards)) if dashboards is not None else None,
            "date_from": date_from,
            "date_to": date_to,
            "basic": _flag(basic),
            "refresh": refresh,
        }
        return self.paginate(self.project_path("insights/"), params, limit=limit)

    def insights(
        self,
        *,
        limit: int | None = None,
        short_id: str | None = None,
        created_by: int | None = None,
        saved: bool | None = None,
        favorited: bool | None = None,
        mine: bool | None = None,
        search: str | None = None,
        insight: str | None = None,
        dashboards: Sequence[int] | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        basic: bool | None = None,
        refresh: str | None = None,
    ) -> pd.DataFrame:
        """List the project's saved insights as a frame.

        Parameters
        ----------
        limit : int, optional
            At most this many insights (all by default; pages are followed).
        short_id, created_by, search, insight : optional
            Server-side filters: exact short id, creator's user id, text search, type (``TRENDS``,
            ``FUNNELS``, ...).
        saved, favorited, mine : bool, optional
            Only saved (or on a dashboard), only favourited, only created by the key's user.
        dashboards : list of int, optional
            Only insights on all of these dashboards.
        date_from, date_to : str, optional
            Last modified after / before.
        basic : bool, optional
            Ask for the short representation.
        refresh : str, optional
            ``blocking``, ``force_blocking``, ``async``, ... to compute results (default: cached only).

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.INSIGHT_COLUMNS`, one row per insight.

        Examples
        --------
        >>> client.insights(favorited=True, limit=10)[["short_id", "name"]]  # doctest: +SKIP
        """
        items = self.iter_insights(
            limit=limit,
            short_id=short_id,
            created_by=created_by,
            saved=saved,
            favorited=favorited,
            mine=mine,
            search=search,
            insight=insight,
            dashboards=dashboards,
            date_from=date_from,
            date_to=date_to,
            basic=basic,
            refresh=refresh,
        )
        return insights_frame(items)

    def insight(self, id_or_short_id: int | str, *, refresh: str | None = None) -> pd.DataFrame:
        """One insight, by numeric id or 8-character short id, as a one-row frame.

        Parameters
        ----------
        id_or_short_id : int or str
            ``42`` or ``"a1B2c3D4"``.
        refresh : str, optional
            A refresh mode to compute ``result`` (``blocking``, ``force_blocking``, ...).

        Returns
        -------
        pandas.DataFrame
            One row of `toolkit.frames.INSIGHT_COLUMNS`; ``attrs["raw"]`` is the JSON object.

        Examples
        --------
        >>> client.insight("a1B2c3D4").loc[0, "name"]  # doctest: +SKIP
        'Signups per week'
        """
        insight_id = self._insight_id(id_or_short_id)
        return self._one(self.request("GET", self.project_path(f"insights/{insight_id}/"), params={"refresh": refresh}))

    def _one(self, record: dict[str, Any]) -> pd.DataFrame:
        frame = insights_frame([record])
        frame.attrs = {"raw": record}
        return frame

    def create_insight(
        self,
        *,
        name: str | None = None,
        filters: dict[str, Any] | None = None,
        query: dict[str, Any] | None = None,
        request: Any = None,
        description: str | None = None,
        tags: Sequence[str] | None = None,
        dashboards: Sequence[int] | None = None,
        favorited: bool | None = None,
        saved: bool | None = True,
    ) -> pd.DataFrame:
        """Save a new insight.

        Parameters
        ----------
        name, description : str, optional
        filters : dict, optional
            Legacy filters (``{"insight": "TRENDS", "events": [...]}``).
        query : dict, optional
            A query node (e.g. ``{"kind": "InsightVizNode", "source": {...}}``).
        request : TrendRequest or FunnelRequest, optional
            Saves the request's body as ``filters`` (shortcut for ``filters=request.to_dict()``).
        tags, dashboards, favorited, saved : optional

        Returns
        -------
        pandas.DataFrame
            The created insight, one row (its ``short_id`` is the one to share).

        Examples
        --------
        >>> request = TrendRequest(events=["$pageview"])
        >>> saved = client.create_insight(name="Weekly DAU", request=request)  # doctest: +SKIP
        >>> saved.loc[0, "short_id"]  # doctest: +SKIP
        'x9Yz0AbC'
        """
        if request is not None:
            filters = request.to_dict()
        body = {
            key: value
            for key, value in {
                "name": name,
                "filters": filters,
                "query": query,
                "description": description,
                "tags": list(tags) if tags is not None else None,
                "dashboards": list(dashboards) if dashboards is not None else None,
                "favorited": favorited,
                "saved": saved,
            }.items()
            if value is not None
        }
        return self._one(self.request("POST", self.project_path("insights/"), json=body))

    def update_insight(self, id_or_short_id: int | str, **fields: Any) -> pd.DataFrame:
        """Change an insight's fields (a PATCH); returns the updated insight as one row.

        Parameters
        ----------
        id_or_short_id : int or str
        **fields
            Writable fields: ``name``, ``description``, ``filters``, ``query``, ``tags``, ``dashboards``,
            ``favorited``, ``saved``, ``deleted``, ``order``.

        Examples
        --------
        >>> client.update_insight(42, name="Renamed").loc[0, "name"]  # doctest: +SKIP
        'Renamed'
        """
        insight_id = self._insight_id(id_or_short_id)
        return self._one(self.request("PATCH", self.project_path(f"insights/{insight_id}/"), json=fields))

    def delete_insight(self, id_or_short_id: int | str) -> pd.DataFrame:
        """Soft-delete an insight (``PATCH deleted: true``; the API refuses hard deletes).

        Restore it with ``update_insight(id, deleted=False)``.

        Examples
        --------
        >>> bool(client.delete_insight(42).loc[0, "deleted"])  # doctest: +SKIP
        True
        """
        return self.update_insight(id_or_short_id, deleted=True)

    def favorite(self, id_or_short_id: int | str, favorited: bool = True) -> pd.DataFrame:
        """Mark (or with ``favorited=False`` unmark) an insight as a favourite.

        Examples
        --------
        >>> client.favorite("a1B2c3D4").loc[0, "favorited"]  # doctest: +SKIP
        True
        """
        return self.update_insight(id_or_short_id, favorited=favorited)

    def mark_viewed(self, id_or_short_id: int | str) -> None:
        """Record that the key's user viewed an insight (feeds `my_last_viewed`).

        Examples
        --------
        >>> client.mark_viewed(42)  # doctest: +SKIP
        """
        insight_id = self._insight_id(id_or_short_id)
        self.request("POST", self.project_path(f"insights/{insight_id}/viewed/"), json={})

    def my_last_viewed(self) -> pd.DataFrame:
        """The insights the key's user viewed last (up to 5, most recent first).

        Examples
        --------
        >>> client.my_last_viewed()["name"].tolist()  # doctest: +SKIP
        ['Signups per week']
        """
        return insights_frame(self.request("GET", self.project_path("insights/my_last_viewed/")) or [])

    def insight_activity(self, id_or_short_id: int | str | None = None, *, limit: int | None = None) -> pd.DataFrame:
        """The activity log of one insight, or of all insights when no id is given.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.ACTIVITY_COLUMNS`, newest first.

        Examples
        --------
        >>> client.insight_activity(42)[["activity", "user"]]  # doctest: +SKIP
        """
        if id_or_short_id is None:
            path = self.project_path("insights/activity/")
        else:
            path = self.project_path(f"insights/{self._insight_id(id_or_short_id)}/activity/")
        return activity_frame(self.paginate(path, limit=limit, page_size=min(limit or 100, 100)))

    def sharing(self, id_or_short_id: int | str, *, enabled: bool | None = None) -> pd.DataFrame:
        """An insight's sharing configuration; ``enabled=True``/``False`` switches sharing first.

        Returns
        -------
        pandas.DataFrame
            One row of `toolkit.frames.SHARING_COLUMNS` (``insight_id``, ``enabled``, ``access_token``,
            ``created_at``).

        Examples
        --------
        >>> client.sharing(42, enabled=True).loc[0, "access_token"]  # doctest: +SKIP
        'Ak3...'
        """
        insight_id = self._insight_id(id_or_short_id)
        path = self.project_path(f"insights/{insight_id}/sharing/")
        if enabled is None:
            record = self.request("GET", path)
        else:
            record = self.request("PATCH", path, json={"enabled": enabled})
        return sharing_frame(record or {}, insight_id)
