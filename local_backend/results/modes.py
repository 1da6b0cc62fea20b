"""The ``refresh`` parameter and what each value means (PostHog's execution modes)."""

from __future__ import annotations

from enum import Enum

__all__ = ["ExecutionMode", "execution_mode", "REFRESH_VALUES"]


class ExecutionMode(Enum):
    CALCULATE_BLOCKING_ALWAYS = "calculate_blocking_always"
    RECENT_CACHE_CALCULATE_BLOCKING_IF_STALE = "recent_cache_calculate_blocking_if_stale"
    RECENT_CACHE_CALCULATE_ASYNC_IF_STALE = "recent_cache_calculate_async_if_stale"
    EXTENDED_CACHE_CALCULATE_ASYNC_IF_STALE = "extended_cache_calculate_async_if_stale"
    CALCULATE_ASYNC_ALWAYS = "calculate_async_always"
    CACHE_ONLY_NEVER_CALCULATE = "cache_only_never_calculate"

    @property
    def is_async(self) -> bool:
        return self in (
            ExecutionMode.RECENT_CACHE_CALCULATE_ASYNC_IF_STALE,
            ExecutionMode.EXTENDED_CACHE_CALCULATE_ASYNC_IF_STALE,
            ExecutionMode.CALCULATE_ASYNC_ALWAYS,
        )

    @property
    def always_calculates(self) -> bool:
        return self in (ExecutionMode.CALCULATE_BLOCKING_ALWAYS, ExecutionMode.CALCULATE_ASYNC_ALWAYS)

    @property
    def lazy(self) -> bool:
        """Lazy modes accept older cached results before calling them stale."""
        return self is ExecutionMode.EXTENDED_CACHE_CALCULATE_ASYNC_IF_STALE


REFRESH_VALUES: dict[str, ExecutionMode] = {
    "blocking": ExecutionMode.RECENT_CACHE_CALCULATE_BLOCKING_IF_STALE,
    "async": ExecutionMode.RECENT_CACHE_CALCULATE_ASYNC_IF_STALE,
    "lazy_async": ExecutionMode.EXTENDED_CACHE_CALCULATE_ASYNC_IF_STALE,
    "force_async": ExecutionMode.CALCULATE_ASYNC_ALWAYS,
    "force_blocking": ExecutionMode.CALCULATE_BLOCKING_ALWAYS,
    "force_cache": ExecutionMode.CACHE_ONLY_NEVER_CALCULATE,
}
_TRUE = {"true", "1", "yes", ""}


def execution_mode(refresh: str | bool | None) -> ExecutionMode:
    """Map a ``refresh`` value to a mode as PostHog does.

    ``true``/``1``/``yes``/empty force a blocking calculation; the six named modes map to themselves; anything
    else, and no value at all, reads only the cache.
    """
    if refresh is None or refresh is False:
        return ExecutionMode.CACHE_ONLY_NEVER_CALCULATE
    if refresh is True:
        return ExecutionMode.CALCULATE_BLOCKING_ALWAYS
    text = refresh.strip().lower()
    if text in REFRESH_VALUES:
        return REFRESH_VALUES[text]
    if text in _TRUE:
        return ExecutionMode.CALCULATE_BLOCKING_ALWAYS
    return ExecutionMode.CACHE_ONLY_NEVER_CALCULATE
