"""The demo dataset generator: deterministic, exactly the size asked, inside its window, and a coherent story."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime

import pytest

from local_backend.demo_data import DEMO_DAYS, demo_events, demo_window
from local_backend.demo_data.catalog import PLANS, STAFF, STAFF_DOMAIN

END = datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)
SIZE = 20_000


@pytest.fixture(scope="module")
def events() -> list[dict]:
    return list(demo_events(events=SIZE, seed=7, end=END))


def test_same_seed_and_clock_give_the_same_events_uuids_included(events):
    assert list(demo_events(events=SIZE, seed=7, end=END)) == events


def test_another_seed_or_clock_gives_other_events(events):
    assert list(demo_events(events=300, seed=8, end=END)) != events[:300]
    later = list(demo_events(events=300, seed=7, end=datetime(2026, 2, 1, tzinfo=UTC)))
    assert [e["timestamp"] for e in later] != [e["timestamp"] for e in events[:300]]


@pytest.mark.parametrize("size", [0, 1, 17, 5_000])
def test_exactly_the_number_of_events_asked(size):
    assert sum(1 for _ in demo_events(events=size, seed=1, end=END)) == size


def test_window_is_ninety_days_from_midnight_up_to_the_clock(events):
    start, end = demo_window(END)
    assert start == datetime(2025, 10, 18, tzinfo=UTC)  # 2026-01-15 minus 89 days
    assert (end.date() - start.date()).days + 1 == DEMO_DAYS
    stamps = sorted(e["timestamp"] for e in events)
    assert stamps[0] >= "2025-10-18T00:00:00.000Z"
    assert stamps[-1] <= "2026-01-15T12:00:00.000Z"
    days = {s[:10] for s in stamps}
    assert len(days) >= 85  # traffic on (nearly) every day of the window


def test_uuids_are_unique_and_every_event_has_the_wire_format_keys(events):
    assert len({e["uuid"] for e in events}) == len(events)
    for event in events:
        assert set(event) == {"event", "distinct_id", "timestamp", "uuid", "properties"}


def test_the_event_vocabulary_and_its_rough_mix(events):
    counts = Counter(e["event"] for e in events)
    assert set(counts) == {"$pageview", "$identify", "$groupidentify", "signed_up", "onboarding_completed",
                           "purchase", "report_viewed", "project_created", "invite_sent"}  # fmt: skip
    assert 0.75 < counts["$pageview"] / len(events) < 0.92
    assert counts["signed_up"] > counts["onboarding_completed"] > 0
    assert counts["purchase"] > 0


def test_pageviews_carry_page_device_country_and_session(events):
    pageviews = [e["properties"] for e in events if e["event"] == "$pageview" and "$session_id" in e["properties"]]
    assert len(pageviews) > 0.95 * sum(1 for e in events if e["event"] == "$pageview")
    for props in pageviews[:2000]:
        assert props["$current_url"] == "https://plotline.example" + props["$pathname"]
        assert {"$browser", "$os", "$geoip_country_code", "$raw_user_agent", "$device_type"} <= set(props)
    assert len({p["$browser"] for p in pageviews}) >= 4
    assert len({p["$geoip_country_code"] for p in pageviews}) >= 10
    assert {p.get("utm_source") for p in pageviews} >= {"google", "newsletter", None}


def test_sign_up_merges_the_anonymous_id_and_every_later_step_uses_the_new_id(events):
    seen_anonymous: dict[str, str] = {}
    for event in events:
        seen_anonymous.setdefault(event["distinct_id"], event["timestamp"])
    identifies = [e for e in events if e["event"] == "$identify" and "$anon_distinct_id" in e["properties"]]
    assert identifies
    for identify in identifies:
        anon = identify["properties"]["$anon_distinct_id"]
        assert seen_anonymous[anon] < identify["timestamp"]  # the visitor browsed before signing up
        assert identify["properties"]["$set"]["plan"] == "free"
        assert "@" in identify["properties"]["$set"]["email"]
    identified = {e["distinct_id"] for e in identifies}
    steps = [e for e in events if e["event"] in ("signed_up", "onboarding_completed")]
    customers = [e for e in steps if not e["distinct_id"].startswith("staff-")]
    assert customers and all(e["distinct_id"] in identified for e in customers)


def test_funnel_steps_come_in_order_with_plausible_drop_off(events):
    first: dict[str, dict[str, str]] = defaultdict(dict)
    for event in sorted(events, key=lambda e: e["timestamp"]):
        if not event["distinct_id"].startswith("staff-"):
            first[event["distinct_id"]].setdefault(event["event"], event["timestamp"])
    signed = [steps for steps in first.values() if "signed_up" in steps]
    onboarded = [steps for steps in signed if "onboarding_completed" in steps]
    bought = [steps for steps in signed if "purchase" in steps]
    for steps in onboarded:
        assert steps["signed_up"] < steps["onboarding_completed"]
    for steps in bought:
        assert steps["signed_up"] < steps["purchase"]
    assert 0.45 < len(onboarded) / len(signed) < 0.8
    assert 0.1 < len(bought) / len(signed) < 0.45
    assert all("signed_up" in steps for steps in first.values() if "purchase" in steps)


def test_purchases_charge_the_plan_price_and_set_the_plan(events):
    purchases = [e for e in events if e["event"] == "purchase"]
    for event in purchases:
        props = event["properties"]
        assert props["amount"] == PLANS[props["plan"]][1]
        assert props["currency"] == "USD"
        if not props["is_renewal"] and not event["distinct_id"].startswith("staff-"):  # staff purchases are tests
            assert props["$set"] == {"plan": props["plan"]}
    purchases = [e["properties"] for e in purchases]
    assert any(p["is_renewal"] for p in purchases)


def test_groups_are_identified_before_events_use_them(events):
    identified: set[tuple[str, str]] = set()
    grouped = 0
    for event in events:
        props = event["properties"]
        if event["event"] == "$groupidentify":
            identified.add((props["$group_type"], props["$group_key"]))
        for group_type, key in (props.get("$groups") or {}).items():
            assert (group_type, key) in identified
            grouped += 1
    assert {t for t, _ in identified} == {"company", "team"}
    assert grouped > 0.1 * len(events)


def test_staff_accounts_use_the_product_domain_and_test_money_paths(events):
    staff_ids = {member[0] for member in STAFF}
    staff_events = [e for e in events if e["distinct_id"] in staff_ids]
    assert {e["distinct_id"] for e in staff_events} == staff_ids
    assert 0.01 < len(staff_events) / len(events) < 0.06
    emails = {e["properties"]["$set"]["email"] for e in staff_events if e["event"] == "$identify"}
    assert len(emails) == len(STAFF) and all(email.endswith("@" + STAFF_DOMAIN) for email in emails)
    assert any(e["event"] == "purchase" for e in staff_events)


def test_a_few_crawler_visits_are_in_the_stream_for_the_bot_filter(events):
    agents = [e["properties"].get("$raw_user_agent", "") for e in events if e["event"] == "$pageview"]
    crawlers = [a for a in agents if "bot" in a.lower() or "monitor" in a]
    assert 0 < len(crawlers) < 0.02 * len(events)


def test_traffic_grows_and_dips_at_weekends():
    sample = list(demo_events(events=40_000, seed=3, end=END))
    visitors_by_day: dict[str, set[str]] = defaultdict(set)
    for event in sample:
        if event["event"] == "$pageview":
            visitors_by_day[event["timestamp"][:10]].add(event["distinct_id"])
    days = sorted(visitors_by_day)
    first_month = sum(len(visitors_by_day[d]) for d in days[:30])
    last_month = sum(len(visitors_by_day[d]) for d in days[-31:-1])
    assert last_month > 1.3 * first_month
    weekday = [len(visitors_by_day[d]) for d in days[1:-1] if datetime.fromisoformat(d).weekday() < 5]
    weekend = [len(visitors_by_day[d]) for d in days[1:-1] if datetime.fromisoformat(d).weekday() >= 5]
    assert sum(weekend) / len(weekend) < sum(weekday) / len(weekday)
