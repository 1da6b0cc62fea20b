"""insightlab's toolkit: PostHog-compatible analytics as typed pandas DataFrames.

Examples
--------
>>> import toolkit
>>> client = toolkit.Client(base_url="http://127.0.0.1:8000", api_key="phx_...", project_id=1)  # doctest: +SKIP
>>> client.trend(events=["$pageview"], date_from="-30d", wide=True)  # doctest: +SKIP
>>> client.sql("select event, count() as c from events group by event order by c desc")  # doctest: +SKIP

In a notebook, ``%load_ext toolkit`` adds the ``%%sql`` cell magic (`toolkit.magic`).
"""

from __future__ import annotations

from importlib import import_module as _import_module
from typing import Any as _Any

from . import frames, local
from ._version import __version__
from .capture import CaptureResult
from .client import Client
from .errors import (
    APIError,
    AuthenticationError,
    ConfigError,
    LocalBackendError,
    MethodNotAllowedError,
    NotFoundError,
    PermissionDeniedError,
    QueryTimeoutError,
    RateLimitError,
    ServerError,
    ToolkitError,
    TransportError,
    ValidationError,
)
from .frames.readable_tables import readable_table
from .insight_requests import (
    FunnelRequest,
    LifecycleRequest,
    PathsRequest,
    RetentionRequest,
    StickinessRequest,
    TrendRequest,
    action,
    event,
)
from .io import to_csv, to_parquet
from .magic import load_ipython_extension
from .unseen_names import InsightWarning

__all__ = [
    "APIError",
    "AuthenticationError",
    "CaptureResult",
    "Client",
    "ConfigError",
    "FunnelBuilder",
    "FunnelRequest",
    "InsightWarning",
    "LifecycleBuilder",
    "LifecycleRequest",
    "LocalBackendError",
    "MethodNotAllowedError",
    "NotFoundError",
    "PathsBuilder",
    "PathsRequest",
    "PermissionDeniedError",
    "QueryTimeoutError",
    "RateLimitError",
    "RetentionBuilder",
    "RetentionRequest",
    "ServerError",
    "StickinessBuilder",
    "StickinessRequest",
    "ToolkitError",
    "TransportError",
    "TrendBuilder",
    "TrendRequest",
    "ValidationError",
    "__version__",
    "action",
    "event",
    "frames",
    "load_ipython_extension",
    "local",
    "plot_funnel",
    "plot_funnel_trends",
    "plot_lifecycle",
    "plot_paths",
    "plot_retention",
    "plot_stickiness",
    "plot_time_to_convert",
    "plot_trend",
    "plots",
    "readable_table",
    "to_csv",
    "to_parquet",
    "widgets",
]

# Plots and builders need the ``widgets`` extra (matplotlib, ipywidgets): they load on first use, so
# ``import toolkit`` works without it.
_LAZY = {
    "FunnelBuilder": "widgets",
    "LifecycleBuilder": "widgets",
    "PathsBuilder": "widgets",
    "RetentionBuilder": "widgets",
    "StickinessBuilder": "widgets",
    "TrendBuilder": "widgets",
    "plot_funnel": "plots",
    "plot_funnel_trends": "plots",
    "plot_lifecycle": "plots",
    "plot_paths": "plots",
    "plot_retention": "plots",
    "plot_stickiness": "plots",
    "plot_time_to_convert": "plots",
    "plot_trend": "plots",
    "plots": "plots",
    "widgets": "widgets",
}


def __getattr__(name: str) -> _Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
    try:
        module = _import_module(f".{module_name}", __name__)
    except ImportError as error:
        raise ImportError(
            f"toolkit.{name} needs the widgets extra (pip install 'insightlab[widgets]'): {error}"
        ) from error
    value = module if name == module_name else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
