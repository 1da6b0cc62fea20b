"""What one request may ask for: every bound on the size and shape of a filter, in one place.

A calculation's cost grows with what its filter holds (each property condition is evaluated on every event,
each regex is compiled and run per row), so the filter is bounded before any query runs. The limits are far
above what an analyst writes by hand (documented in docs/trends.md, "Limits"); going over one is a 400 naming
the field. Integers are bounded to what SQLite stores (64 bits), so an id or a literal never overflows a bound
parameter.
"""

from __future__ import annotations

__all__ = [
    "MAX_INT64",
    "MIN_INT64",
    "MAX_PROPERTY_KEY_LENGTH",
    "MAX_PROPERTY_VALUE_LENGTH",
    "MAX_ICONTAINS_LENGTH",
    "MAX_EXACT_VALUES",
    "MAX_CONDITIONS_PER_GROUP",
    "MAX_CONDITIONS_PER_REQUEST",
    "MAX_REGEX_CONDITIONS_PER_REQUEST",
    "MAX_PROPERTY_GROUP_DEPTH",
    "MAX_PATTERN_LENGTH",
    "MAX_PATTERN_NESTING",
    "MAX_PATTERN_PROGRAM_SIZE",
    "MAX_EXPRESSION_LENGTH",
    "MAX_EXPRESSION_DEPTH",
    "MAX_EXPRESSION_TERMS",
    "MAX_ENTITIES",
    "MAX_TIMESTAMP_LENGTH",
    "MAX_JSON_DEPTH",
    "MAX_NAME_LIST_ITEMS",
    "MAX_FILTER_PARAM_NESTING",
]

# SQLite's INTEGER: ids, counts and HogQL integer literals beyond these cannot be bound.
MAX_INT64 = 2**63 - 1
MIN_INT64 = -(2**63)

# Property keys: PostHog's property definitions hold names of up to 400 characters.
MAX_PROPERTY_KEY_LENGTH = 400
# One value of a condition (an item of an ``exact`` list, a date, ...): longer than any URL a browser sends.
MAX_PROPERTY_VALUE_LENGTH = 4_000
# ``icontains`` searches every value for the text; its cost grows with the text's length times the value's.
MAX_ICONTAINS_LENGTH = 200
# Values of one ``exact``/``is_not`` list (each one a bound parameter).
MAX_EXACT_VALUES = 1_000
# Conditions of one property filter (``properties`` of the filter or of one series), nested groups included.
MAX_CONDITIONS_PER_GROUP = 100
# Conditions of a whole calculation request: its own, every series' and every exclusion's.
MAX_CONDITIONS_PER_REQUEST = 200
# ``regex``/``not_regex`` conditions of a whole request: each one runs RE2 on every event.
MAX_REGEX_CONDITIONS_PER_REQUEST = 20
# Property groups inside property groups.
MAX_PROPERTY_GROUP_DEPTH = 20

# Regular expressions (RE2): characters, nesting of groups, and the size of the compiled program.
MAX_PATTERN_LENGTH = 1_000
MAX_PATTERN_NESTING = 10
MAX_PATTERN_PROGRAM_SIZE = 2_000

# HogQL expressions: characters, nesting (parentheses, function calls, unary operators) and operands.
MAX_EXPRESSION_LENGTH = 2_000
MAX_EXPRESSION_DEPTH = 30
MAX_EXPRESSION_TERMS = 200

# Series (``events`` plus ``actions``) of one trend or funnel, counted per kind.
MAX_ENTITIES = 50

# A date-time as text: ISO 8601 with nanoseconds and an offset fits in 40 characters.
MAX_TIMESTAMP_LENGTH = 64

# Arrays and objects inside each other in a request body; a saved filter nests a few levels per property group.
MAX_JSON_DEPTH = 100

# Names in a JSON list query parameter (``event_names``, ``excluded_properties`` of property definitions).
MAX_NAME_LIST_ITEMS = 1_000
# Property filters given as JSON text in a query string (events and persons lists) or in an action's steps:
# lists and objects inside each other. Deeper is no real filter and would only cost recursion.
MAX_FILTER_PARAM_NESTING = 10
