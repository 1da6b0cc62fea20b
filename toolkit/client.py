"""`Client`: every endpoint as a method that returns a typed DataFrame.

The methods come from one module per resource (``insights``, ``plugins``, ``calculations``, ``engagement``,
``data``, ``capture``, ``people``, ``cohorts``, ``projects``, ``sql``), each a mixin over `toolkit.transport.Transport`,
which holds the settings, the session, error mapping and pagination.
"""

from __future__ import annotations

import requests

from .calculations import CalculationsMixin
from .capture import CaptureMixin
from .cohorts import CohortsMixin
from .data import DataMixin
from .engagement import EngagementMixin
from .insights import InsightsMixin
from .people import PeopleMixin
from .plugins import PluginsMixin
from .projects import ProjectsMixin
from .sql import SqlMixin
from .transport import DEFAULT_BACKOFF_FACTOR, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT

__all__ = ["Client"]


class Client(
    InsightsMixin,
    PluginsMixin,
    EngagementMixin,
    PeopleMixin,
    CalculationsMixin,
    CohortsMixin,
    DataMixin,
    ProjectsMixin,
    CaptureMixin,
    SqlMixin,
):
    """A connection to a PostHog-compatible API (the local backend or PostHog itself).

    Parameters
    ----------
    base_url : str, optional
        The API's address; else ``POSTHOG_HOST`` or ``POSTHOG_BASE_URL``; else ``http://127.0.0.1:8000``.
    api_key : str, optional
        A personal API key; else ``POSTHOG_PERSONAL_API_KEY`` or ``POSTHOG_API_KEY``. Required.
    project_id : int or str, optional
        A project id or ``"@current"``; else ``POSTHOG_PROJECT_ID``; else ``"@current"``.
    session : requests.Session, optional
        The session to send requests with, used as it is (for tests, or a caching session; see
        `toolkit.transport.mount_retries` to give it retries). By default a new session retrying 429 and
        5xx answers.
    timeout : float
        Seconds to wait for an answer.
    max_retries : int
        Retries of a 429/5xx answer or a failed connection (default session only).
    backoff_factor : float
        Base of the exponential wait between retries, when the server gives no ``Retry-After``.
    check_names : bool
        Warn (`toolkit.InsightWarning`) when a calculation names an event or property the project never
        saw, or sums a property that is never numeric (from the project's definitions, kept a minute).

    Raises
    ------
    ConfigError
        When no API key is configured, or a setting is malformed.

    Examples
    --------
    >>> client = Client(base_url="http://127.0.0.1:8000", api_key="phx_...", project_id=1)  # doctest: +SKIP
    >>> client.insights()[["short_id", "name"]]  # doctest: +SKIP
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        project_id: int | str | None = None,
        session: requests.Session | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        backoff_factor: float = DEFAULT_BACKOFF_FACTOR,
        check_names: bool = True,
    ) -> None:
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            project_id=project_id,
            session=session,
            timeout=timeout,
            max_retries=max_retries,
            backoff_factor=backoff_factor,
        )
        self._legacy_missing: set[str] = set()
        self.check_names = check_names
