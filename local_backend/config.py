"""Settings for one backend instance. Nothing here reads the environment at import time."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .clock import Clock, SystemClock

__all__ = [
    "Settings",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "MAX_REQUEST_BYTES",
    "DEFAULT_QUERY_TIMEOUT_SECONDS",
    "DEFAULT_MATERIALIZE_AUTO_LIMIT",
    "DEFAULT_MATERIALIZE_AUTO_INTERVAL",
]

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 10_000
MAX_REQUEST_BYTES = 20 * 1024 * 1024
# How long one calculation may run before it is stopped with a 504 (PostHog's queries stop at 60 s too).
DEFAULT_QUERY_TIMEOUT_SECONDS = 60.0
# How many properties the automatic choice keeps materialized per project (the most used by recent queries).
DEFAULT_MATERIALIZE_AUTO_LIMIT = 10
# How often a running server applies that choice (seconds; 0: never, only by command or API).
DEFAULT_MATERIALIZE_AUTO_INTERVAL = 24 * 3600.0
DEFAULT_SITE_URL = "http://127.0.0.1:8000"
# Events per transaction of a bulk load (`load-events --batch-size`).
DEFAULT_BATCH_SIZE = 10_000


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Everything an app instance needs to know, passed to :func:`local_backend.app.create_app`."""

    db_path: Path
    clock: Clock = field(default_factory=SystemClock)
    default_page_size: int = DEFAULT_PAGE_SIZE
    max_page_size: int = MAX_PAGE_SIZE
    max_request_bytes: int = MAX_REQUEST_BYTES
    query_timeout_seconds: float = DEFAULT_QUERY_TIMEOUT_SECONDS
    materialize_auto_limit: int = DEFAULT_MATERIALIZE_AUTO_LIMIT
    materialize_auto_interval: float = DEFAULT_MATERIALIZE_AUTO_INTERVAL

    def __post_init__(self) -> None:
        if not self.query_timeout_seconds > 0:
            raise ValueError(f"query_timeout_seconds must be positive, not {self.query_timeout_seconds!r}")
        if not self.materialize_auto_interval >= 0:
            raise ValueError(f"materialize_auto_interval cannot be negative, not {self.materialize_auto_interval!r}")
