"""Element filters over the autocapture ``elements_chain``, as RE2 searches of the chain text.

The chain lists the clicked element first and its ancestors after it, ``;``-separated, each as
``tag.class1.class2:attr="value"...`` (``text``, ``href``, ``attr_id`` among the attributes). Keys:

* ``tag_name``: an element of that tag anywhere in the chain;
* ``text`` / ``href``: an element whose text / href equals (``exact``), contains (``icontains``, case
  blind) or matches (``regex``) the value;
* ``selector``: a CSS subset, compound parts ``tag.class#id`` separated by spaces (descendant) or ``>``
  (treated as descendant), matched along the chain.

``is_not``, ``not_icontains`` and ``not_regex`` are the negations; other operators are a 400.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ValidationError
from ..models.property_filters import Property
from ..store.engine.interface import Dialect

__all__ = ["element_condition", "selector_pattern"]

_COMPOUND = re.compile(r"^(?P<tag>[A-Za-z][A-Za-z0-9-]*)?(?P<rest>(?:[.#][A-Za-z0-9_-]+)*)$")
_SUPPORTED = ("exact", "is_not", "icontains", "not_icontains", "regex", "not_regex")


def _values(value: Any) -> list[str]:
    return [str(item) for item in (value if isinstance(value, list) else [value])]


def _compound_pattern(part: str) -> str:
    match = _COMPOUND.match(part)
    if match is None or not part:
        raise ValidationError(f"Selector part '{part}' is not supported (use tag.class#id parts).", attr="properties")
    tag = re.escape(match.group("tag")) if match.group("tag") else r"[^.:;]+"
    classes = re.findall(r"\.([A-Za-z0-9_-]+)", match.group("rest"))
    ids = re.findall(r"#([A-Za-z0-9_-]+)", match.group("rest"))
    pattern = rf"(?:^|;){tag}"
    for name in classes:
        pattern += rf"(?:\.[^.:;]+)*?\.{re.escape(name)}"
    pattern += r"(?:\.[^.:;]+)*(?::|;|$)"
    if ids:
        pattern += rf"[^;]*attr_id=\"{re.escape(ids[0])}\""
    return pattern


def selector_pattern(selector: str) -> str:
    """An RE2 pattern matching chains where the selector's parts appear, innermost first."""
    parts = [part for part in re.split(r"\s*>\s*|\s+", selector.strip()) if part]
    if not parts or len(parts) > 10:
        raise ValidationError("A selector needs 1 to 10 parts.", attr="properties")
    return ".*".join(_compound_pattern(part) for part in reversed(parts))


def _attribute_pattern(name: str, operator: str, value: str) -> str:
    if operator in ("exact", "is_not"):
        return f'{name}="{re.escape(value)}"'
    if operator in ("icontains", "not_icontains"):
        return f'(?i){name}="[^"]*{re.escape(value)}[^"]*"'
    return f'{name}="[^"]*(?:{value})[^"]*"'


def element_condition(prop: Property, dialect: Dialect) -> tuple[str, list[Any]]:
    """The condition, in ``dialect``, that the event's elements chain meets ``prop`` (patterns bound)."""
    if prop.operator not in _SUPPORTED:
        raise ValidationError(
            f"Element filters take the operators {', '.join(_SUPPORTED)}.", attr="properties", code="unsupported"
        )
    patterns: list[str] = []
    for value in _values(prop.value):
        if prop.key == "tag_name":
            if prop.operator in ("regex", "not_regex"):
                patterns.append(rf"(?:^|;)(?:{value})(?:\.|:|;|$)")
            else:
                patterns.append(rf"(?:^|;){re.escape(value)}(?:\.|:|;|$)")
        elif prop.key == "selector":
            patterns.append(selector_pattern(value))
        else:
            patterns.append(_attribute_pattern(prop.key, prop.operator, value))
    if not patterns:
        return "0", []
    clause = "(" + " OR ".join(dialect.regex("e.elements_chain") for _ in patterns) + ")"
    negated = prop.operator in ("is_not", "not_icontains", "not_regex")
    return (f"NOT {clause}" if negated else clause), patterns
