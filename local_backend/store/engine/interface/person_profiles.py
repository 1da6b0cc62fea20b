"""Personless events: those sent with ``$process_person_profile: false``, which PostHog's lifecycle leaves out.

The conditions are written with the engine's own :class:`~.dialect.Dialect`, so every engine reads the
property the same way.
"""

from __future__ import annotations

from .dialect import Dialect, Sql

__all__ = ["PERSON_PROFILE_KEY", "personful_condition", "personless_condition"]

PERSON_PROFILE_KEY = "$process_person_profile"


def personful_condition(dialect: Dialect) -> Sql:
    """Events that process a person profile: ``$process_person_profile`` anything but ``false`` (or missing)."""
    kind, params = dialect.json_type("e.properties", PERSON_PROFILE_KEY)
    return f"coalesce(({kind}) <> 'false', 1)", params


def personless_condition(dialect: Dialect) -> Sql:
    """The other events: ``$process_person_profile`` is ``false`` (exactly where :func:`personful_condition`
    is not)."""
    kind, params = dialect.json_type("e.properties", PERSON_PROFILE_KEY)
    return f"(({kind}) = 'false')", params
