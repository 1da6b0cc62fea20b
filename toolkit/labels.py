"""How raw values read on screen: PostHog's breakdown buckets, a series' math, and text that notebooks would
turn into maths.

The frames keep the raw values (``$$_posthog_breakdown_null_$$`` stays in ``breakdown_value``, so a
filter or a join on it still works); tables, legends and widget labels show `breakdown_label`, which names
a cohort breakdown's value (a cohort id) by the cohort's name when the frame's ``attrs["breakdown_labels"]``
has it. A series that does not count events carries its math in its name (`math_text`: ``purchase: sum of
amount``, ``signed_up: unique users``), so every legend, table header and title says what was aggregated.
Jupyter typesets ``$...$`` as LaTeX in HTML outputs and in widget labels: `tex_safe_html` wraps HTML
so MathJax leaves it alone, `tex_safe_label` escapes the dollars of plain widget text.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = [
    "BREAKDOWN_NULL",
    "COUNT_MATHS",
    "BREAKDOWN_OTHER",
    "NO_MATHJAX_CLASSES",
    "breakdown_label",
    "bucket_rank",
    "escaped_html",
    "math_text",
    "series_name",
    "tex_safe_html",
    "tex_safe_label",
]

BREAKDOWN_NULL = "$$_posthog_breakdown_null_$$"
"""The bucket of events whose breakdown property is missing or empty."""
BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$"
"""The bucket of the values beyond ``breakdown_limit``."""
# numeric breakdowns carry the two buckets as these numbers (PostHog's numeric labels)
_NUMERIC_NULL = "9007199254740990"
_NUMERIC_OTHER = "9007199254740991"
# an empty value is PostHog's null bucket too (funnels answer it as "")
_SHOWN = {"": "None", BREAKDOWN_NULL: "None", _NUMERIC_NULL: "None", BREAKDOWN_OTHER: "Other", _NUMERIC_OTHER: "Other"}
MULTIPLE_SEPARATOR = "::"
"""How the frames join the values of a multiple-property breakdown."""

NO_MATHJAX_CLASSES = "tex2jax_ignore mathjax_ignore"
"""Classes MathJax skips: ``tex2jax_ignore`` (JupyterLab's and classic Notebook's setting, and what pandas
writes with ``display.html.use_mathjax`` off) and ``mathjax_ignore`` (MathJax 3's default)."""


# PostHog's short names of its maths (its insight summaries' wording); p75 has none there
_COUNT_MATH_TEXT = {
    "dau": "unique users",
    "weekly_active": "WAUs",
    "monthly_active": "MAUs",
    "unique_session": "unique sessions",
    "unique_group": "unique groups",
}
_PROPERTY_MATH_TEXT = {
    "sum": "sum",
    "avg": "average",
    "min": "minimum",
    "max": "maximum",
    "median": "median",
    "p75": "75th percentile",
    "p90": "90th percentile",
    "p95": "95th percentile",
    "p99": "99th percentile",
}
COUNT_MATHS = frozenset({"total", "dau", "weekly_active", "monthly_active", "unique_session", "unique_group"})
"""The maths whose values are counts (of events, persons, groups or sessions): whole numbers."""


def math_text(math: str | None, math_property: str | None = None) -> str | None:
    """What a series aggregates, in PostHog's words; None for the total count (a plain event count).

    Examples
    --------
    >>> math_text("sum", "amount"), math_text("dau"), math_text("avg_count_per_actor"), math_text(None)
    ('sum of amount', 'unique users', 'average count per user', None)
    """
    if not math or math == "total":
        return None
    if math in _COUNT_MATH_TEXT:
        return _COUNT_MATH_TEXT[math]
    per_actor = math.removesuffix("_count_per_actor")
    if per_actor != math and per_actor in _PROPERTY_MATH_TEXT:
        return f"{_PROPERTY_MATH_TEXT[per_actor]} count per user"
    if math in _PROPERTY_MATH_TEXT:
        words = _PROPERTY_MATH_TEXT[math]
        return f"{words} of {math_property}" if math_property else words
    return math


def series_name(name: str, math: str | None, math_property: str | None = None) -> str:
    """A series' name with its math when it is not the total count: ``purchase: sum of amount``.

    Examples
    --------
    >>> series_name("doc_created", "avg", "doc_words"), series_name("$pageview", "total")
    ('doc_created: average of doc_words', '$pageview')
    """
    words = math_text(math, math_property)
    return f"{name}: {words}" if words else name


def breakdown_label(value: Any, names: Mapping[str, str] | None = None) -> str:
    """A breakdown value as PostHog shows it: ``None`` for the null bucket, ``Other`` for the rest, and a
    cohort by its name when ``names`` (a frame's ``attrs["breakdown_labels"]``: value -> name) has it.

    Parts of a multiple-property breakdown (joined with ``::``) are shown one by one; an empty value is
    ``None`` too, and a missing value (no breakdown) is the empty string.

    Examples
    --------
    >>> breakdown_label("$$_posthog_breakdown_null_$$"), breakdown_label("$$_posthog_breakdown_other_$$")
    ('None', 'Other')
    >>> breakdown_label("Chrome::$$_posthog_breakdown_null_$$"), breakdown_label(None)
    ('Chrome::None', '')
    >>> breakdown_label("7", {"7": "Power users"})
    'Power users'
    """
    if value is None or (not isinstance(value, (list, tuple)) and pd.isna(value)):
        return ""
    text = str(value)
    if names and text in names:
        return str(names[text])
    if text in _SHOWN:
        return _SHOWN[text]
    if MULTIPLE_SEPARATOR in text:
        return MULTIPLE_SEPARATOR.join(_SHOWN.get(part, part) for part in text.split(MULTIPLE_SEPARATOR))
    return text


def bucket_rank(value: Any) -> int:
    """Where a breakdown value goes in a legend or table: 0 for a value (kept in the API's order, by count),
    1 for the null bucket (``None``), 2 for the other bucket (``Other``), which always comes last, as in
    PostHog's value bars and pies.

    Examples
    --------
    >>> values = ["$$_posthog_breakdown_other_$$", "Chrome", "$$_posthog_breakdown_null_$$", "Safari"]
    >>> sorted(values, key=bucket_rank)
    ['Chrome', 'Safari', '$$_posthog_breakdown_null_$$', '$$_posthog_breakdown_other_$$']
    """
    return {"None": 1, "Other": 2}.get(breakdown_label(value), 0)


def tex_safe_html(markup: str) -> str:
    """``markup`` inside a block MathJax does not typeset, so ``$pageview`` stays as written.

    Examples
    --------
    >>> tex_safe_html("<b>$pageview</b>")
    '<div class="tex2jax_ignore mathjax_ignore"><b>$pageview</b></div>'
    """
    return f'<div class="{NO_MATHJAX_CLASSES}">{markup}</div>'


def tex_safe_label(text: str) -> str:
    """Plain text for a widget's ``description`` or a ``Label``: dollars escaped so they are not maths.

    ipywidgets typesets those texts with MathJax, where ``\\$`` is a literal dollar.

    Examples
    --------
    >>> print(tex_safe_label("$pageview by $browser"))
    \\$pageview by \\$browser
    """
    return text.replace("$", "\\$")


def escaped_html(text: str) -> str:
    """Plain text as HTML that neither markup nor MathJax changes.

    Examples
    --------
    >>> escaped_html("<$$_posthog_breakdown_null_$$>")
    '<span class="tex2jax_ignore mathjax_ignore">&lt;$$_posthog_breakdown_null_$$&gt;</span>'
    """
    return f'<span class="{NO_MATHJAX_CLASSES}">{html.escape(text)}</span>'
