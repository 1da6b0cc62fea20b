"""The shared controls' conversions: typed filter values and custom dates, as a table of cases."""

from __future__ import annotations

import pytest

from toolkit.widgets.controls import BreakdownControl, DateRangeControl, check_date, filter_value


class NoCatalog:
    def properties(self, type):
        return []


@pytest.mark.parametrize(
    "operator, text, value",
    [
        ("exact", "Chrome", "Chrome"),
        ("exact", " Chrome , Safari ,", ["Chrome", "Safari"]),
        ("is_not", "a,b", ["a", "b"]),
        ("icontains", "a,b", "a,b"),  # commas separate values only for equals / is not
        ("gt", "10", 10),
        ("gte", "10.0", 10.0),
        ("lt", "-2.5", -2.5),
        ("lte", "1e3", 1000),
        ("is_set", "", "is_set"),
        ("is_not_set", "ignored", "is_not_set"),
        ("regex", r"^/blog/\d+$", r"^/blog/\d+$"),
        ("is_date_before", "2026-01-01", "2026-01-01"),
    ],
)
def test_filter_values(operator, text, value):
    assert filter_value(operator, text) == value
    assert type(filter_value(operator, text)) is type(value)


@pytest.mark.parametrize(
    "operator, text, message",
    [
        ("exact", "", "filter: give a value to compare with"),
        ("gt", "ten", "filter: 'ten' is not a number, and gt compares numbers"),
        ("lte", "1,000", "filter: '1,000' is not a number"),
        ("not_regex", "a(b", "filter: 'a(b' is not a valid regular expression"),
        ("regex", "[", "is not a valid regular expression"),
    ],
)
def test_bad_filter_values(operator, text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        filter_value(operator, text)


@pytest.mark.parametrize(
    "text", ["2026-01-31", "2026-01-31T09:30", "2026-01-31T09:30:00+01:00", "-7d", "-24h", "-1mStart", "dStart", "all"]
)
def test_dates_accepted(text):
    assert check_date(f" {text} ", "date_from") == text


@pytest.mark.parametrize("text", ["yesterday", "2026-13-01", "7 days", "-7x", "2026/01/01", ""])
def test_dates_refused(text):
    with pytest.raises(ValueError, match="date_from: .* is neither a date"):
        check_date(text, "date_from")


@pytest.mark.parametrize(
    "date_from, date_to, preset",
    [
        (None, None, "Last 7 days"),
        ("-7d", None, "Last 7 days"),
        ("-1mStart", "-1mEnd", "Previous month"),
        ("-1mStart", None, "Custom"),
        ("all", None, "All time"),
    ],
)
def test_request_dates_pick_their_preset(date_from, date_to, preset):
    control = DateRangeControl()
    control.load(date_from, date_to)
    assert control.preset.value == preset


def test_a_list_breakdown_is_kept_until_its_text_is_edited():
    control = BreakdownControl(NoCatalog())
    control.load([3, 4], "cohort")
    assert control.type.value == "cohort"
    assert control.values() == {"breakdown": [3, 4], "breakdown_type": "cohort", "breakdown_limit": None}
    control.property.value = "5"
    assert control.values() == {"breakdown": "5", "breakdown_type": "cohort", "breakdown_limit": None}


class Properties:
    def properties(self, type):
        return {"event": ["$browser", "$os"], "person": ["plan"]}.get(type, [])


def test_the_breakdown_property_box_is_never_greyed_and_comes_back_with_its_type():
    # enabling a disabled box needs the kernel, which may be busy: the box stays editable throughout
    control = BreakdownControl(Properties())
    assert not control.property.disabled and control.property.options == ("$browser", "$os")
    control.type.value = "event"
    control.property.value = "$os"
    control.type.value = ""
    assert (control.property.value, control.property.disabled) == ("", False)
    assert control.values()["breakdown"] is None
    control.type.value = "event"
    assert (control.property.value, control.property.disabled) == ("$os", False)
    assert control.values() == {"breakdown": "$os", "breakdown_type": "event", "breakdown_limit": None}
    control.type.value = "person"
    assert control.property.options == ("plan",) and not control.property.disabled


def test_typing_a_property_while_no_breakdown_is_shown_breaks_down_by_it():
    control = BreakdownControl(Properties())
    control.property.value = "$browser"
    assert control.values() == {"breakdown": "$browser", "breakdown_type": "event", "breakdown_limit": None}
    assert control.limit.layout.display is None  # Top values shows with the breakdown


def test_a_request_without_breakdown_forgets_the_property_put_aside():
    control = BreakdownControl(Properties())
    control.load("$os", "event")
    control.type.value = ""
    control.load(None, None)
    control.type.value = "event"
    assert control.property.value == ""
