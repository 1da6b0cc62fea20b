"""How raw values read on screen: PostHog's breakdown buckets and text that notebooks would turn into maths.

The frames keep the raw values (``$$_posthog_breakdown_null_$$`` stays in ``breakdown_value``, so a
filter or a join on it still works); tables, legends and widget labels show `breakdown_label`.
Jupyter typesets ``$...$`` as LaTeX in HTML outputs and in widget labels: `tex_safe_html` wraps HTML
so MathJax leaves it alone, `tex_safe_label` escapes the dollars of plain widget text.
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

__all__ = [
    "BREAKDOWN_NULL",
    "BREAKDOWN_OTHER",
    "NO_MATHJAX_CLASSES",
    "breakdown_label",
    "bucket_rank",
    "escaped_html",
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


def breakdown_label(value: Any) -> str:
    """A breakdown value as PostHog shows it: ``None`` for the null bucket, ``Other`` for the rest.

    Parts of a multiple-property breakdown (joined with ``::``) are shown one by one; an empty value is
    ``None`` too, and a missing value (no breakdown) is the empty string.

    Examples
    --------
    >>> breakdown_label("$$_posthog_breakdown_null_$$"), breakdown_label("$$_posthog_breakdown_other_$$")
    ('None', 'Other')
    >>> breakdown_label("Chrome::$$_posthog_breakdown_null_$$"), breakdown_label(None)
    ('Chrome::None', '')
    """
    if value is None or (not isinstance(value, (list, tuple)) and pd.isna(value)):
        return ""
    text = str(value)
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
