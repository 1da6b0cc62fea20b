"""Interactive builders for notebooks (ipywidgets + matplotlib): `TrendBuilder`, `FunnelBuilder`,
`RetentionBuilder`, `PathsBuilder`, `StickinessBuilder` and `LifecycleBuilder`.

Each builder is a set of controls over a request object (`toolkit.TrendRequest`, `toolkit.FunnelRequest`, ...):
``builder.request`` is what the controls describe, ``builder.run()`` (or the Run button) computes it and
keeps ``builder.df`` and ``builder.figure``, and ``builder.save()`` (the "Save as insight" button) saves it.
Builders work without a browser: set a control's ``.value`` or ``.click()`` a button from code.

Examples
--------
>>> from toolkit.widgets import TrendBuilder
>>> builder = TrendBuilder(client, events=["$pageview"], date_from="-30d")  # doctest: +SKIP
>>> builder  # doctest: +SKIP
"""

from __future__ import annotations

from .base import Builder, error_message
from .catalog import Catalog
from .funnel import FunnelBuilder
from .lifecycle import LifecycleBuilder
from .paths import PathsBuilder
from .retention import RetentionBuilder
from .stickiness import StickinessBuilder
from .trend import TrendBuilder

__all__ = [
    "Builder",
    "Catalog",
    "FunnelBuilder",
    "LifecycleBuilder",
    "PathsBuilder",
    "RetentionBuilder",
    "StickinessBuilder",
    "TrendBuilder",
    "error_message",
]
