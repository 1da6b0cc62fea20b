"""Event and property definitions and actions: PostHog's list shapes and query parameters, as frames."""

from __future__ import annotations

import pytest

from toolkit.data import PROPERTY_DEFINITION_COLUMNS

PROPERTIES = "/api/projects/1/property_definitions/"


def page(items):
    return (200, {"count": len(items), "next": None, "previous": None, "results": items})


def test_property_definitions_send_posthogs_filters(client, fake):
    fake.routes[("GET", PROPERTIES)] = page(
        [
            {
                "id": "0187-aa",
                "name": "amount",
                "is_numerical": True,
                "property_type": "Numeric",
                "tags": [],
                "is_seen_on_filtered_events": True,
            }
        ]
    )
    frame = client.property_definitions(
        event_names=["purchase", "refund"], filter_by_event_names=True, is_numerical=True
    )
    assert fake.calls[-1].params == {
        "type": "event",
        "event_names": '["purchase", "refund"]',
        "filter_by_event_names": "true",
        "is_numerical": "true",
        "limit": "100",
    }
    assert frame.columns.tolist() == list(PROPERTY_DEFINITION_COLUMNS)
    assert frame.loc[0, "name"] == "amount" and bool(frame.loc[0, "is_seen_on_filtered_events"])
    assert str(frame["is_numerical"].dtype) == "boolean"


def test_group_properties_name_their_group_type(client, fake):
    fake.routes[("GET", PROPERTIES)] = page([{"id": "g1", "name": "industry", "is_numerical": False}])
    frame = client.property_definitions(type="group", group_type_index=0, search="ind")
    assert fake.calls[-1].params == {"type": "group", "group_type_index": "0", "search": "ind", "limit": "100"}
    assert frame["name"].tolist() == ["industry"]
    assert frame["is_seen_on_filtered_events"].isna().all()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"type": "events"}, "type must be one of event, person, group, session; got 'events'"),
        ({"type": "group"}, "group_type_index goes with type='group'"),
        ({"type": "person", "group_type_index": 1}, "group_type_index goes with type='group'"),
    ],
)
def test_bad_property_definition_filters_are_refused_before_sending(client, fake, kwargs, message):
    with pytest.raises(ValueError, match=message):
        client.property_definitions(**kwargs)
    assert fake.calls == []


def test_property_values_send_posthogs_parameters_and_return_the_names(client, fake):
    fake.routes[("GET", "/api/projects/1/events/values/")] = (200, [{"name": "Chrome"}, {"name": 3}, {"x": 1}])
    assert client.property_values("$browser", search="chr", event_names=["$pageview"]) == ["Chrome", "3"]
    call = fake.calls[-1]
    # a list goes to requests as it is, which repeats the parameter (event_name=...&event_name=...)
    assert call.params == {"key": "$browser", "value": "chr", "event_name": "['$pageview']"}
