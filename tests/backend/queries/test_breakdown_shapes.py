"""A trend breaks down by one property; a funnel by one or several (PostHog's multi-property breakdown)."""

from __future__ import annotations

import pytest

from local_backend.errors import ValidationError
from local_backend.queries.funnels import FunnelFilter
from local_backend.queries.trends import TrendsFilter

STEPS = {"events": [{"id": "a", "order": 0}, {"id": "b", "order": 1}]}


def test_a_funnel_takes_a_list_of_breakdown_properties():
    assert FunnelFilter.model_validate({**STEPS, "breakdown": ["$browser", "$os"]}).breakdown == ["$browser", "$os"]


@pytest.mark.parametrize(
    ("model", "breakdown", "detail"),
    [
        (TrendsFilter, ["$browser", "$os"], "A breakdown of type event is a property name (a string)."),
        (FunnelFilter, ["$browser", 3], "A breakdown of type event is a property name or a list of them."),
        (FunnelFilter, ["$browser", ""], "A breakdown of type event is a property name or a list of them."),
    ],
)
def test_other_breakdown_shapes_are_a_400_on_breakdown(model, breakdown, detail):
    with pytest.raises(ValidationError) as raised:
        model.model_validate({**STEPS, "breakdown": breakdown})
    assert (raised.value.detail, raised.value.attr) == (detail, "breakdown")
