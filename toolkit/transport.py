"""HTTP for the toolkit: a retrying `requests.Session`, error mapping, and pagination.

`Transport` is the base of `Client`; the resource modules (``insights``, ``plugins``, ``calculations``, ...)
add their functions on top of its three primitives: `Transport.request`, `Transport.paginate` and
`Transport.project_path`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from ._version import __version__
from .config import Settings, resolve_settings
from .errors import TransportError, error_for_response

__all__ = [
    "DEFAULT_BACKOFF_FACTOR",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_PAGE_SIZE",
    "DEFAULT_TIMEOUT",
    "RETRY_STATUSES",
    "Transport",
    "mount_retries",
]

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 3
DEFAULT_BACKOFF_FACTOR = 0.5
DEFAULT_PAGE_SIZE = 100
# 504 is left out: PostHog and the local backend answer a calculation that ran past the time limit with it,
# and asking again only runs into the same limit (it surfaces at once as QueryTimeoutError).
RETRY_STATUSES = (429, 500, 502, 503)
# A 429 or 503 means the server did not act on the request, so even a POST is safe to send again;
# other 5xx answers are retried only for methods that are idempotent.
_UNPROCESSED_STATUSES = frozenset({429, 503})


class _Retry(Retry):
    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        if status_code in _UNPROCESSED_STATUSES and self.total:
            return True
        return super().is_retry(method, status_code, has_retry_after)


def mount_retries(
    session: requests.Session,
    *,
    max_retries: int = DEFAULT_MAX_RETRIES,
    backoff_factor: float = DEFAULT_BACKOFF_FACTOR,
) -> requests.Session:
    """Mount urllib3 retries for 429 and 5xx answers on ``http://`` and ``https://`` of a session.

    ``Retry-After`` is honoured; otherwise the waits grow by ``backoff_factor * 2**n`` seconds. A 429 or
    503 is retried for every method (the server did not act on it); 500 and 502 only for idempotent
    methods. Connection failures are retried twice; read timeouts and 504 (a query that ran past the
    server's time limit) never: a slow query is not sped up by asking again.

    Parameters
    ----------
    session : requests.Session
        The session to equip (it is changed in place and returned).
    max_retries : int
        Retries after the first attempt; 0 turns them off.
    backoff_factor : float
        Base of the exponential wait between attempts, in seconds.

    Returns
    -------
    requests.Session

    Examples
    --------
    >>> session = mount_retries(requests.Session(), max_retries=5)
    >>> session.get_adapter("https://us.posthog.com").max_retries.total
    5
    """
    retry = _Retry(
        total=max_retries,
        connect=min(2, max_retries),
        read=0,
        status=max_retries,
        status_forcelist=RETRY_STATUSES,
        backoff_factor=backoff_factor,
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class Transport:
    """Connection settings, the session, and the request/paginate primitives.

    See `toolkit.Client` for the parameters.
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
    ) -> None:
        self.settings: Settings = resolve_settings(base_url=base_url, api_key=api_key, project_id=project_id)
        self.timeout = timeout
        if session is None:
            session = mount_retries(requests.Session(), max_retries=max_retries, backoff_factor=backoff_factor)
        self.session = session

    @property
    def base_url(self) -> str:
        """The API's address without a trailing slash."""
        return self.settings.base_url

    @property
    def project_id(self) -> str:
        """The project the project-scoped functions address (an id, or ``@current``)."""
        return self.settings.project_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, project_id={self.project_id!r})"

    def project_path(self, path: str = "") -> str:
        """The path of a project-scoped endpoint.

        Examples
        --------
        >>> Transport(api_key="phx_x", project_id=3).project_path("insights/")
        '/api/projects/3/insights/'
        """
        return f"/api/projects/{self.project_id}/{path.lstrip('/')}"

    def url(self, path: str) -> str:
        """An absolute URL for ``path``; absolute URLs (``next`` links) are re-based onto `base_url`.

        Pagination links carry the host the server believes it has, which behind a proxy can differ from
        the one the client reached; re-basing keeps the key going only to the configured host.

        Examples
        --------
        >>> Transport(base_url="https://eu.posthog.com", api_key="phx_x").url("http://10.0.0.5/api/projects/?offset=100")
        'https://eu.posthog.com/api/projects/?offset=100'
        """
        if path.startswith(("http://", "https://")):
            parts = urlsplit(path)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
        return urljoin(self.base_url + "/", path.lstrip("/"))

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        data: str | None = None,
        files: Mapping[str, Any] | None = None,
        form: Mapping[str, str] | None = None,
        authenticate: bool = True,
    ) -> Any:
        """Send one request and return its decoded body.

        Parameters
        ----------
        method : str
            HTTP method.
        path : str
            A path under `base_url` (``/api/projects/1/insights/``) or an absolute URL (a ``next`` link).
        params : Mapping, optional
            Query-string parameters; ``None`` values are left out.
        json : Any, optional
            The JSON body.
        data : str, optional
            A JSON body already serialized (sent byte for byte, e.g. ``TrendRequest.to_json()``).
        files : Mapping, optional
            Files of a multipart body (``{"csv": ("people.csv", b"...", "text/csv")}``), sent with `form`.
        form : Mapping, optional
            The text fields of a multipart body (with `files`).
        authenticate : bool
            Send the personal API key (the capture API authenticates by project token instead).

        Returns
        -------
        Any
            The decoded JSON, the text when the answer is not JSON, or ``None`` for an empty body.

        Raises
        ------
        APIError
            A subclass chosen by the status for any answer >= 400 (after retries).
        TransportError
            When no answer arrived.

        Examples
        --------
        >>> client.request("GET", client.project_path())["name"]  # doctest: +SKIP
        'Demo project'
        """
        url = self.url(path)
        headers = {"Accept": "application/json", "User-Agent": f"insightlab-toolkit/{__version__}"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if authenticate:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        query = {key: value for key, value in (params or {}).items() if value is not None}
        extra: dict[str, Any] = {"files": files} if files is not None else {}
        body: Any = dict(form or {}) if files is not None else data
        try:
            response = self.session.request(
                method, url, params=query or None, json=json, data=body, headers=headers, timeout=self.timeout, **extra
            )
        except requests.RequestException as exc:
            raise TransportError(f"{method} failed: {type(exc).__name__}: {exc}", url=url) from exc
        body = _decode(response)
        if response.status_code >= 400:
            raise error_for_response(response.status_code, body, url=url, headers=dict(response.headers))
        return body

    def paginate(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        page_size: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Yield the items of a list endpoint, following ``next`` links until the end or ``limit``.

        Parameters
        ----------
        path : str
            The list endpoint.
        params : Mapping, optional
            Filters for the first page (``next`` links carry them onwards).
        limit : int, optional
            Stop after this many items; all of them when omitted.
        page_size : int, optional
            The ``limit`` query parameter of each page; by default the smaller of `limit` and 100.

        Yields
        ------
        dict
            One item of ``results`` at a time. A plain JSON array answer is yielded as it is.

        Examples
        --------
        >>> pages = client.paginate(client.project_path("insights/"), limit=3)  # doctest: +SKIP
        >>> [item["name"] for item in pages]  # doctest: +SKIP
        """
        if limit is not None and limit <= 0:
            return
        query = dict(params or {})
        size = page_size if page_size is not None else min(limit or DEFAULT_PAGE_SIZE, DEFAULT_PAGE_SIZE)
        if "limit=" not in path:
            query.setdefault("limit", size)
        seen = 0
        next_url: str | None = path
        first = True
        while next_url:
            body = self.request("GET", next_url, params=query if first else None)
            first = False
            if isinstance(body, list):
                items, next_url = body, None
            elif isinstance(body, dict):
                items, next_url = body.get("results") or [], body.get("next")
            else:
                items, next_url = [], None
            for item in items:
                yield item
                seen += 1
                if limit is not None and seen >= limit:
                    return


def _decode(response: requests.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text
