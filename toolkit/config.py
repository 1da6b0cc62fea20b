"""Where the client's settings come from: an argument first, then an environment variable, then a default.

| setting      | argument     | environment variables (first set wins)              | default                 |
|--------------|--------------|-----------------------------------------------------|-------------------------|
| base URL     | `base_url`   | ``POSTHOG_HOST``, ``POSTHOG_BASE_URL``              | ``http://127.0.0.1:8000`` |
| personal key | `api_key`    | ``POSTHOG_PERSONAL_API_KEY``, ``POSTHOG_API_KEY``   | none: required          |
| project      | `project_id` | ``POSTHOG_PROJECT_ID``                              | ``@current``            |

The environment is read when a `Client` is built, never at import time.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import ConfigError

__all__ = [
    "API_KEY_VARIABLES",
    "BASE_URL_VARIABLES",
    "DEFAULT_BASE_URL",
    "DEFAULT_PROJECT_ID",
    "PROJECT_ID_VARIABLES",
    "Settings",
    "resolve_settings",
]

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
DEFAULT_PROJECT_ID = "@current"
BASE_URL_VARIABLES = ("POSTHOG_HOST", "POSTHOG_BASE_URL")
API_KEY_VARIABLES = ("POSTHOG_PERSONAL_API_KEY", "POSTHOG_API_KEY")
PROJECT_ID_VARIABLES = ("POSTHOG_PROJECT_ID",)


@dataclass(frozen=True)
class Settings:
    """The resolved connection settings of a `Client`."""

    base_url: str
    api_key: str
    project_id: str

    def __repr__(self) -> str:  # never print the whole key in a notebook
        masked = f"{self.api_key[:4]}...{self.api_key[-4:]}" if len(self.api_key) > 8 else "***"
        return f"Settings(base_url={self.base_url!r}, api_key={masked!r}, project_id={self.project_id!r})"


def _first(argument: object, names: tuple[str, ...], environ: Mapping[str, str]) -> str | None:
    if argument is not None and str(argument).strip():
        return str(argument).strip()
    for name in names:
        value = environ.get(name, "").strip()
        if value:
            return value
    return None


def resolve_settings(
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    project_id: int | str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Resolve the connection settings: argument > environment variable > default.

    Parameters
    ----------
    base_url : str, optional
        The API's address, e.g. ``https://us.posthog.com`` or ``http://127.0.0.1:8000``.
    api_key : str, optional
        A personal API key (``phx_...``).
    project_id : int or str, optional
        A project id or ``"@current"`` (the key owner's current project).
    environ : Mapping, optional
        The environment to read; ``os.environ`` by default.

    Returns
    -------
    Settings

    Raises
    ------
    ConfigError
        When no API key is given, or the base URL or project id is malformed.

    Examples
    --------
    >>> resolve_settings(api_key="phx_abc", environ={"POSTHOG_HOST": "https://eu.posthog.com/"}).base_url
    'https://eu.posthog.com'
    """
    env = os.environ if environ is None else environ
    url = _first(base_url, BASE_URL_VARIABLES, env) or DEFAULT_BASE_URL
    if not re.match(r"^https?://[^/\s]+", url):
        raise ConfigError(f"base_url must start with http:// or https://, got {url!r}")
    key = _first(api_key, API_KEY_VARIABLES, env)
    if key is None:
        raise ConfigError(
            "No personal API key: pass api_key=... or set one of the environment variables "
            + ", ".join(API_KEY_VARIABLES)
        )
    project = _first(project_id, PROJECT_ID_VARIABLES, env) or DEFAULT_PROJECT_ID
    if project != DEFAULT_PROJECT_ID and not project.isdigit():
        raise ConfigError(f'project_id must be an integer or "@current", got {project!r} (POSTHOG_PROJECT_ID)')
    return Settings(base_url=url.rstrip("/"), api_key=key, project_id=project)
