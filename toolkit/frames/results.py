"""Pure functions from calculation responses (trend, funnel, retention, paths, stickiness, lifecycle) to typed
DataFrames.

One module per calculation, all re-exported here (and from `toolkit.frames`):

- `toolkit.frames.trends`: `trend_frame`, `wide_trend_frame`, `complete_trend_frame`
- `toolkit.frames.funnels`: `funnel_frame`, `funnel_trends_frame`, `time_to_convert_frame`
- `toolkit.frames.retention`: `retention_frame`
- `toolkit.frames.paths`: `paths_frame`
- `toolkit.frames.stickiness`: `stickiness_frame`, `wide_stickiness_frame`
- `toolkit.frames.lifecycle`: `lifecycle_frame`, `wide_lifecycle_frame`

Each takes the whole decoded response, either the legacy envelope (``{"result": ..., "timezone": ...}``)
or the query API's (``{"results": ...}``), and keeps everything except the results in ``DataFrame.attrs``
(`toolkit.frames._responses`). Dates are bucket starts in the project's timezone (``attrs["timezone"]``);
rates are fractions (0..1); durations are Timedeltas. A ``breakdown_value`` (or ``compare_label``) column is there
only when the result has one: without a breakdown it would read ``<NA>`` on every row.
"""

from __future__ import annotations

from ._responses import response_results
from .funnels import (
    FUNNEL_COLUMNS,
    FUNNEL_TRENDS_COLUMNS,
    TIME_TO_CONVERT_COLUMNS,
    funnel_frame,
    funnel_trends_frame,
    time_to_convert_frame,
)
from .lifecycle import LIFECYCLE_COLUMNS, LIFECYCLE_STATUSES, lifecycle_frame, wide_lifecycle_frame
from .paths import PATHS_COLUMNS, paths_frame
from .retention import RETENTION_COLUMNS, retention_frame
from .stickiness import STICKINESS_COLUMNS, stickiness_frame, wide_stickiness_frame
from .trends import TREND_COLUMNS, complete_trend_frame, trend_frame, wide_trend_frame

__all__ = [
    "FUNNEL_COLUMNS",
    "FUNNEL_TRENDS_COLUMNS",
    "LIFECYCLE_COLUMNS",
    "LIFECYCLE_STATUSES",
    "PATHS_COLUMNS",
    "RETENTION_COLUMNS",
    "STICKINESS_COLUMNS",
    "TIME_TO_CONVERT_COLUMNS",
    "TREND_COLUMNS",
    "complete_trend_frame",
    "funnel_frame",
    "funnel_trends_frame",
    "lifecycle_frame",
    "paths_frame",
    "response_results",
    "retention_frame",
    "stickiness_frame",
    "time_to_convert_frame",
    "trend_frame",
    "wide_lifecycle_frame",
    "wide_stickiness_frame",
    "wide_trend_frame",
]
