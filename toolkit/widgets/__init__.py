"""Interactive builders for notebooks: `TrendBuilder` and `FunnelBuilder` (ipywidgets + matplotlib).

Each builder is a set of controls over a request object (`toolkit.TrendRequest`, `toolkit.FunnelRequest`):
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
from .trend import TrendBuilder

__all__ = ["Builder", "Catalog", "FunnelBuilder", "TrendBuilder", "error_message"]
