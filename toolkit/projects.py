"""Making projects: `create_project` (``POST /api/projects/``), answered as a one-row `projects` frame."""

from __future__ import annotations

import pandas as pd

from .frames import projects_frame
from .transport import Transport

__all__ = ["ProjectsMixin"]


class ProjectsMixin(Transport):
    """The project-making call of `toolkit.Client` (listing is `DataMixin.projects`)."""

    def create_project(self, name: str, *, timezone: str | None = None) -> pd.DataFrame:
        """Create a project named ``name`` (in the key's organization) and return it as one row.

        The client keeps addressing its own project: make another client with the new ``id`` (or
        ``toolkit.Client(project_id=...)``) to work in it.

        Parameters
        ----------
        name : str
            The project's name (not blank).
        timezone : str, optional
            An IANA time zone (``Europe/Berlin``); the server's default (UTC) when left out.

        Returns
        -------
        pandas.DataFrame
            `toolkit.frames.PROJECT_COLUMNS`, one row: ``id`` and ``api_token`` (for capture) included.

        Examples
        --------
        >>> made = client.create_project("Playground", timezone="Europe/Paris")  # doctest: +SKIP
        >>> toolkit.Client(project_id=int(made.loc[0, "id"]))  # doctest: +SKIP
        """
        if not isinstance(name, str) or not name.strip():
            raise ValueError("a project needs a name")
        body = {"name": name.strip(), **({"timezone": timezone} if timezone is not None else {})}
        return projects_frame([self.request("POST", "/api/projects/", json=body)])
