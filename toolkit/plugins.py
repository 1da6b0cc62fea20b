"""Plugins and plugin configs: the catalog, the project's configs, their order, jobs and activity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .frames import activity_frame, plugin_configs_frame, plugins_frame
from .transport import Transport

__all__ = ["PluginsMixin"]

PLUGINS_PATH = "/api/organizations/@current/plugins/"


class PluginsMixin(Transport):
    """The plugin functions of `toolkit.Client`."""

    def plugins(self, *, limit: int | None = None) -> pd.DataFrame:
        """The plugin catalog of the key's organization.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PLUGIN_COLUMNS` (``id``, ``name``, ``description``, ``url``, ``plugin_type``,
            ``config_schema``, ``public_jobs``).

        Examples
        --------
        >>> client.plugins()[["id", "name"]]  # doctest: +SKIP
        """
        return plugins_frame(self.paginate(PLUGINS_PATH, limit=limit))

    def plugin_configs(self, *, limit: int | None = None) -> pd.DataFrame:
        """The project's plugin configs (deleted ones hidden), in pipeline order.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PLUGIN_CONFIG_COLUMNS`.

        Examples
        --------
        >>> client.plugin_configs()[["id", "name", "enabled", "order"]]  # doctest: +SKIP
        """
        return plugin_configs_frame(self.paginate(self.project_path("plugin_configs/"), limit=limit))

    def plugin_config(self, config_id: int) -> pd.DataFrame:
        """One plugin config as a one-row frame (``attrs["raw"]`` holds the JSON, with ``plugin_info``).

        Examples
        --------
        >>> client.plugin_config(7).loc[0, "enabled"]  # doctest: +SKIP
        True
        """
        return self._config_row(self.request("GET", self.project_path(f"plugin_configs/{config_id}/")))

    def _config_row(self, record: dict[str, Any]) -> pd.DataFrame:
        frame = plugin_configs_frame([record])
        frame.attrs = {"raw": record}
        return frame

    def create_plugin_config(
        self,
        plugin: int,
        *,
        order: int,
        enabled: bool = False,
        config: Mapping[str, Any] | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> pd.DataFrame:
        """Add a plugin to the project's pipeline.

        Parameters
        ----------
        plugin : int
            The plugin's id (see `plugins`).
        order : int
            Position in the pipeline (required by the API).
        enabled : bool
            Run it on incoming events (default False, as the API).
        config : Mapping, optional
            Values for the plugin's config schema.
        name, description : str, optional

        Returns
        -------
        pandas.DataFrame
            The created config, one row.

        Examples
        --------
        >>> client.create_plugin_config(1, order=1, enabled=True, config={"properties": "$ip"})  # doctest: +SKIP
        """
        body: dict[str, Any] = {"plugin": plugin, "order": order, "enabled": enabled}
        for key, value in (("config", dict(config) if config is not None else None), ("name", name)):
            if value is not None:
                body[key] = value
        if description is not None:
            body["description"] = description
        return self._config_row(self.request("POST", self.project_path("plugin_configs/"), json=body))

    def update_plugin_config(self, config_id: int, **fields: Any) -> pd.DataFrame:
        """Change a plugin config (a PATCH of ``enabled``, ``order``, ``config``, ``name``, ``description``,
        ``deleted``); returns it as one row.

        Examples
        --------
        >>> client.update_plugin_config(7, enabled=False).loc[0, "enabled"]  # doctest: +SKIP
        False
        """
        return self._config_row(self.request("PATCH", self.project_path(f"plugin_configs/{config_id}/"), json=fields))

    def delete_plugin_config(self, config_id: int) -> None:
        """Delete a plugin config (the API answers 204).

        Examples
        --------
        >>> client.delete_plugin_config(7)  # doctest: +SKIP
        """
        self.request("DELETE", self.project_path(f"plugin_configs/{config_id}/"))

    def rearrange_plugin_configs(self, orders: Mapping[int, int]) -> pd.DataFrame:
        """Set the pipeline order of enabled configs: ``{config_id: new_order}``.

        Returns
        -------
        pandas.DataFrame
            The enabled configs in their new order.

        Examples
        --------
        >>> client.rearrange_plugin_configs({7: 2, 8: 1})[["id", "order"]]  # doctest: +SKIP
        """
        body = {"orders": {str(key): int(value) for key, value in orders.items()}}
        return plugin_configs_frame(
            self.request("PATCH", self.project_path("plugin_configs/rearrange/"), json=body) or []
        )

    def run_plugin_job(
        self,
        config_id: int,
        job_type: str,
        payload: Mapping[str, Any] | None = None,
        *,
        operation: str = "start",
    ) -> Any:
        """Run one of a plugin's jobs for this config.

        Parameters
        ----------
        config_id : int
        job_type : str
            The job's name (``public_jobs`` of the plugin).
        payload : Mapping, optional
            The job's parameters.
        operation : str
            ``start`` (default).

        Returns
        -------
        Any
            The server's answer (PostHog answers an empty body, so ``None``).

        Examples
        --------
        >>> client.run_plugin_job(7, "reprocess", {"date_from": "2026-01-01"})  # doctest: +SKIP
        """
        body = {"job": {"type": job_type, "payload": dict(payload or {}), "operation": operation}}
        return self.request("POST", self.project_path(f"plugin_configs/{config_id}/job/"), json=body)

    def plugin_config_activity(self, config_id: int, *, limit: int | None = None) -> pd.DataFrame:
        """The activity log of one plugin config (enabled, disabled, config changes, jobs), newest first.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.ACTIVITY_COLUMNS`.

        Examples
        --------
        >>> client.plugin_config_activity(7)[["activity", "created_at"]]  # doctest: +SKIP
        """
        path = self.project_path(f"plugin_configs/{config_id}/activity/")
        return activity_frame(self.paginate(path, limit=limit, page_size=min(limit or 100, 100)))
