"""Draw every plot kind of `toolkit.plots` from small hand-written API answers and save PNGs to docs/images/.

Run: ``.venv/bin/python docs/make_screenshots.py`` (writes ``docs/images/plot_*.png``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from toolkit.frames import (  # noqa: E402
    funnel_frame,
    funnel_trends_frame,
    paths_frame,
    retention_frame,
    time_to_convert_frame,
    trend_frame,
)
from toolkit.plots import (  # noqa: E402
    plot_funnel,
    plot_funnel_trends,
    plot_paths,
    plot_retention,
    plot_time_to_convert,
    plot_trend,
)

IMAGES = Path(__file__).parent / "images"
DAYS = [f"2026-01-{day:02d}" for day in range(1, 15)]
PREVIOUS_DAYS = [f"2025-12-{day:02d}" for day in range(18, 32)]


def _series(name: str, data: list[float], *, breakdown: str | None = None, compare: str | None = None) -> dict:
    days = PREVIOUS_DAYS if compare == "previous" else DAYS
    return {
        "action": {"id": name, "name": name, "order": 0},
        "label": name,
        "days": days,
        "data": data,
        "breakdown_value": breakdown,
        "compare_label": compare,
    }


# the answer was computed at noon on the last day: that day is still in progress (dashed line, light bar)
COMPUTED = "2026-01-14T12:00:00Z"
PAGEVIEWS = [120, 135, 128, 90, 85, 140, 150, 148, 160, 155, 110, 95, 170, 180]
SIGNUPS = [12, 15, 11, 8, 7, 16, 18, 14, 19, 17, 10, 9, 21, 22]


def trend_breakdown() -> Axes:
    browsers = {"Chrome": 0.55, "Safari": 0.25, "Firefox": 0.12, "Edge": 0.05, "Other": 0.03}
    result = [_series("$pageview", [round(v * share) for v in PAGEVIEWS], breakdown=b) for b, share in browsers.items()]
    frame = trend_frame({"result": result, "last_refresh": COMPUTED})
    frame.attrs["request"] = {"insight": "TRENDS", "events": [{"id": "$pageview", "order": 0}], "breakdown": "$browser"}
    return plot_trend(frame)


def trend_compare() -> Axes:
    previous = [round(v * 0.8) for v in PAGEVIEWS]
    result = [_series("$pageview", PAGEVIEWS, compare="current"), _series("$pageview", previous, compare="previous")]
    frame = trend_frame({"result": result})
    frame.attrs["request"] = {"insight": "TRENDS", "events": [{"id": "$pageview", "order": 0}], "compare": True}
    return plot_trend(frame)


def trend_kind(kind: str) -> Callable[[], Axes]:
    def draw() -> Axes:
        series = [_series("$pageview", PAGEVIEWS), _series("signup", SIGNUPS)]
        frame = trend_frame({"result": series, "last_refresh": COMPUTED})
        frame.attrs["request"] = {
            "insight": "TRENDS",
            "events": [{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}],
        }
        return plot_trend(frame, kind=kind)

    return draw


def funnel() -> Axes:
    steps = [("$pageview", 1000), ("signup", 420), ("activated", 230), ("purchase", 96)]
    result = [{"order": order, "name": name, "count": count} for order, (name, count) in enumerate(steps)]
    frame = funnel_frame({"result": result})
    frame.attrs["request"] = {
        "insight": "FUNNELS",
        "events": [{"id": name, "order": order} for order, (name, _) in enumerate(steps)],
    }
    return plot_funnel(frame)


def funnel_breakdown() -> Axes:
    counts = {"Chrome": [600, 270, 70], "Safari": [300, 110, 20], "Firefox": [100, 40, 6]}
    names = ["$pageview", "signup", "purchase"]
    result = [
        [{"order": order, "name": names[order], "count": count, "breakdown_value": b} for order, count in enumerate(c)]
        for b, c in counts.items()
    ]
    frame = funnel_frame({"result": result})
    frame.attrs["request"] = {
        "insight": "FUNNELS",
        "events": [{"id": name, "order": order} for order, name in enumerate(names)],
        "breakdown": "$browser",
    }
    return plot_funnel(frame, orientation="horizontal")


def time_to_convert() -> Axes:
    bins = [[0, 14], [3600, 30], [7200, 21], [10800, 9], [14400, 4], [18000, 2]]
    frame = time_to_convert_frame({"result": {"bins": bins, "average_conversion_time": 6120}})
    return plot_time_to_convert(frame)


def funnel_trends() -> Axes:
    result = [
        {"days": DAYS[:7], "data": [22.0, 25.5, 24.0, 30.0, 28.5, 33.0, 35.0], "breakdown_value": "Chrome"},
        {"days": DAYS[:7], "data": [18.0, 17.5, 21.0, 19.0, 23.5, 22.0, 26.0], "breakdown_value": "Safari"},
    ]
    return plot_funnel_trends(funnel_trends_frame({"result": result}))


def retention() -> Axes:
    sizes = [120, 98, 143, 110, 87, 131, 102]
    curve = [1.0, 0.42, 0.31, 0.27, 0.24, 0.22, 0.2]
    rows = [
        {
            "label": f"Day {index}",
            "date": f"2026-01-{index + 1:02d}T00:00:00Z",
            "values": [{"count": round(size * rate)} for rate in curve[: len(sizes) - index]],
        }
        for index, size in enumerate(sizes)
    ]
    frame = retention_frame({"result": rows})
    frame.attrs["request"] = {"period": "Day"}
    return plot_retention(frame)


def paths() -> Axes:
    edges = [
        ("1_/home", "2_/pricing", 420),
        ("1_/home", "2_/blog", 260),
        ("1_/home", "2_/docs", 150),
        ("2_/pricing", "3_/signup", 190),
        ("2_/pricing", "3_/docs", 80),
        ("2_/blog", "3_/pricing", 90),
        ("2_/docs", "3_/signup", 60),
        ("3_/signup", "4_/welcome", 210),
    ]
    rows = [{"source": s, "target": t, "value": v, "average_conversion_time": 30000} for s, t, v in edges]
    return plot_paths(paths_frame({"result": rows}))


PLOTS: dict[str, Callable[[], Axes]] = {
    "trend_line_breakdown": trend_breakdown,
    "trend_compare": trend_compare,
    "trend_cumulative": trend_kind("cumulative"),
    "trend_bar": trend_kind("bar"),
    "trend_bar_value": trend_kind("bar_value"),
    "trend_pie": trend_kind("pie"),
    "trend_number": trend_kind("number"),
    "funnel_steps": funnel,
    "funnel_breakdown": funnel_breakdown,
    "funnel_time_to_convert": time_to_convert,
    "funnel_trends": funnel_trends,
    "retention": retention,
    "paths": paths,
}


def main() -> None:
    IMAGES.mkdir(exist_ok=True)
    for name, draw in PLOTS.items():
        figure = draw().figure
        figure.savefig(IMAGES / f"plot_{name}.png", dpi=80)
        plt.close(figure)
        print(IMAGES / f"plot_{name}.png")


if __name__ == "__main__":
    main()
