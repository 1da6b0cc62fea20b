"""insightlab's local backend: a PostHog-compatible analytics API over SQLite.

Start it with ``python -m local_backend serve --db PATH`` or build the ASGI app in code with
:func:`local_backend.app.create_app`.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
