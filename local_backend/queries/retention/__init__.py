"""Retention: cohorts by period, and how many of each came back in each later period.

Entry points: :func:`compute_retention` (the result rows), :func:`compute_retention_people` (the people of
one cohort or cell) and :func:`retention_payload` (a saved insight's filter dict). People URLs are made by
the caller's :data:`PeopleLink` from the query parameters computed here.

Reading order: :mod:`.filter` (the typed filter), :mod:`.compute` (the range, one ordered pass over its
events, the rows), :mod:`.engine` (each person's periods into the triangle, no SQL).
"""

from __future__ import annotations

from .compute import PeopleLink, compute_retention, compute_retention_people, retention_payload
from .filter import RetentionFilter

__all__ = ["PeopleLink", "RetentionFilter", "compute_retention", "compute_retention_people", "retention_payload"]
