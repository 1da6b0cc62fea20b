"""``link_to``: the URL of a people route with a calculation's parameters, quoted as ``urlencode`` quotes them
even when the same parameters repeat across hundreds of points."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from local_backend.routes import funnels
from local_backend.web.calculation_envelope import link_to


def test_each_link_carries_its_own_values_though_they_repeat():
    link = link_to(funnels.router, "funnel_people_route", 7)
    events = '[{"id": "$pageview", "order": 0}]'
    first = link({"events": events, "funnel_step": 1, "explicit_date": "true"})
    # True and 1 are equal as keys, but read as the texts True and 1
    second = link({"events": events, "funnel_step": True, "explicit_date": "true"})
    third = link({"funnel_step": 2, "events": events})
    assert first == (
        "/api/projects/7/persons/funnel/?events=%5B%7B%22id%22%3A+%22%24pageview%22%2C+%22order%22%3A+0%7D%5D"
        "&funnel_step=1&explicit_date=true"
    )
    assert urlsplit(second).query.split("&")[1] == "funnel_step=True"
    assert parse_qsl(urlsplit(third).query) == [("funnel_step", "2"), ("events", events)]


def test_an_unhashable_value_is_quoted_as_its_text():
    link = link_to(funnels.router, "funnel_people_route", 1)
    assert link({"value": ["a b"]}) == "/api/projects/1/persons/funnel/?value=%5B%27a+b%27%5D"
    assert link({}) == "/api/projects/1/persons/funnel/?"
