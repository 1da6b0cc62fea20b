"""Trend responses built by hand for the plot tests: one series per call, in the API's shape, as a frame."""

from __future__ import annotations

from typing import Any

import pandas as pd

from toolkit.frames import trend_frame

DAYS = ["2026-01-01", "2026-01-02", "2026-01-03"]


def series(name, data, *, days=DAYS, breakdown=None, compare=None, order=0, math=None) -> dict[str, Any]:
    return {
        "action": {"id": name, "name": name, "order": order, "math": math},
        "label": name,
        "days": days,
        "data": data,
        "breakdown_value": breakdown,
        "compare_label": compare,
    }


def trend(*items, request=None, **response) -> pd.DataFrame:
    frame = trend_frame({"result": list(items), **response})
    if request is not None:
        frame.attrs["request"] = request
    return frame
