"""insightlab's toolkit: PostHog-compatible analytics as typed pandas DataFrames.

Examples
--------
>>> import toolkit
>>> client = toolkit.Client(base_url="http://127.0.0.1:8000", api_key="phx_...", project_id=1)  # doctest: +SKIP
>>> client.trend(events=["$pageview"], date_from="-30d", wide=True)  # doctest: +SKIP
"""

from __future__ import annotations

from . import frames, local, plots
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
    RateLimitError,
    ServerError,
    ToolkitError,
    TransportError,
    ValidationError,
)
from .insight_requests import FunnelRequest, PathsRequest, RetentionRequest, TrendRequest, action, event
from .io import to_csv, to_parquet
from .plots import (
    plot_funnel,
    plot_funnel_trends,
    plot_paths,
    plot_retention,
    plot_time_to_convert,
    plot_trend,
)

__all__ = [
    "APIError",
    "AuthenticationError",
    "CaptureResult",
    "Client",
    "ConfigError",
    "FunnelRequest",
    "LocalBackendError",
    "MethodNotAllowedError",
    "NotFoundError",
    "PathsRequest",
    "PermissionDeniedError",
    "RateLimitError",
    "RetentionRequest",
    "ServerError",
    "ToolkitError",
    "TransportError",
    "TrendRequest",
    "ValidationError",
    "__version__",
    "action",
    "event",
    "frames",
    "local",
    "plot_funnel",
    "plot_funnel_trends",
    "plot_paths",
    "plot_retention",
    "plot_time_to_convert",
    "plot_trend",
    "plots",
    "to_csv",
    "to_parquet",
]
