"""The person and group side of one event: merges, person property updates, group identification.

Most events only need "the person of this distinct id"; the ones that identify, alias, set person properties
or name groups take this path, from every way events arrive (capture, bulk load).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..store.person_book import PersonBook
from .definitions import GROUP, PERSON, DefinitionsWriter
from .groups import GroupBook, is_group_key
from .wire import WireEvent

__all__ = ["person_and_groups", "PERSON_KEYS"]

# The properties the person and group rules read; nothing else of an event matters to them.
PERSON_KEYS = ("$process_person_profile", "$anon_distinct_id", "alias", "$set", "$set_once", "$unset", "$group_type",
               "$group_key", "$group_set", "$groups")  # fmt: skip


def person_and_groups(
    event: WireEvent, persons: PersonBook, groups: GroupBook, definitions: DefinitionsWriter
) -> tuple[int, tuple[str | None, ...]]:
    """The event's person id and group columns, after the merges, person property updates and group
    identification the event asks for (definitions of the person and group properties it names included)."""
    name, distinct_id, timestamp, properties = event.event, event.distinct_id, event.timestamp, event.properties
    process_person = properties.get("$process_person_profile") is not False
    other = None
    if process_person and name == "$identify":
        other = properties.get("$anon_distinct_id")
    elif process_person and name in ("$create_alias", "$merge_dangerously"):
        other = properties.get("alias")
    if other is not None and other != "" and not isinstance(other, dict | list | bool):
        person_id = persons.merge(str(other), distinct_id, timestamp, dangerous=name == "$merge_dangerously")
    else:
        person_id = persons.person_for(distinct_id, timestamp)
    if process_person:
        set_, set_once, unset = properties.get("$set"), properties.get("$set_once"), properties.get("$unset")
        if set_ or set_once or unset:
            persons.update_properties(person_id, set_, set_once, unset)
            for bag in (set_once, set_):
                if isinstance(bag, Mapping):
                    definitions.add_properties(bag, PERSON)
    if name == "$groupidentify":
        group_type, group_key = properties.get("$group_type"), properties.get("$group_key")
        if isinstance(group_type, str) and group_type and is_group_key(group_key):
            group_set = properties.get("$group_set")
            index = groups.identify(group_type, str(group_key), group_set, timestamp)
            if index is not None and isinstance(group_set, Mapping):
                definitions.add_properties(group_set, GROUP, index)
    return person_id, groups.columns(properties.get("$groups"))
