"""The demo's people and what they do, drawn from one seeded random stream.

A visitor arrives on a day of the 90-day window (more of them as the product grows, fewer at weekends), browses
the marketing site in sessions, may sign up (``$identify`` merges the anonymous id into the new user), may
finish onboarding, may buy a plan and renew it monthly, and keeps using the app while interested. Each visitor's
events are built in one go and sorted by time; nothing is kept between visitors except the companies (for
``$groups``), so memory stays flat however many events are asked for.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from . import catalog as c

__all__ = ["Simulation", "DAY_US"]

SECOND_US = 1_000_000
MINUTE_US = 60 * SECOND_US
HOUR_US = 60 * MINUTE_US
DAY_US = 24 * HOUR_US
# Visits peak in the European afternoon / American morning (UTC hours).
_HOUR_WEIGHTS = (2, 1, 1, 1, 1, 2, 3, 5, 7, 9, 10, 10, 10, 11, 12, 12, 11, 10, 8, 7, 6, 5, 4, 3)
Event = dict[str, Any]


def _table(weights: Mapping[Any, float]) -> tuple[list[Any], list[float]]:
    keys = list(weights)
    return keys, list(accumulate(weights[k] for k in keys))


class Simulation:
    """Events of a 90-day window ending at ``end_us``; see the module docstring."""

    def __init__(self, *, seed: int, start_us: int, end_us: int, days: int) -> None:
        self.rng = random.Random(seed)
        self.start_us, self.end_us, self.days = start_us, end_us, days
        arrivals = {
            d: (0.6 + 0.8 * d / max(days - 1, 1)) * (0.65 if self._weekday(d) >= 5 else 1.0) for d in range(days)
        }
        self._arrivals = _table(arrivals)
        self._hours = _table(dict(enumerate(_HOUR_WEIGHTS)))
        self._tables = {
            name: _table(weights)
            for name, weights in {
                "source": c.SOURCES,
                "marketing": c.MARKETING_PAGES,
                "app": c.APP_PAGES,
                "browser": {b: w for b, (w, _, _) in c.BROWSERS.items()},
                "country": c.COUNTRIES,
                "plan": {p: w for p, (w, _) in c.PLANS.items()},
                "method": c.SIGNUP_METHODS,
            }.items()
        }
        self._os = {browser: _table(weights) for browser, weights in c.OS_BY_BROWSER.items()}
        self._landing = {source: _table(weights) for source, weights in c.LANDING_BY_SOURCE.items()}
        self.company_members: list[int] = []  # one entry per member: picking one favours big companies
        self.companies: list[dict[str, Any]] = []
        self.seen_teams: set[str] = set()

    # --- small draws -----------------------------------------------------------------------------------

    def _weekday(self, day: int) -> int:
        return time.gmtime((self.start_us + day * DAY_US) // SECOND_US).tm_wday

    def pick(self, table: tuple[list[Any], list[float]]) -> Any:
        return self.rng.choices(table[0], cum_weights=table[1])[0]

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def delay(self, median_us: float, spread: float) -> int:
        """A log-normal delay: most near ``median_us``, a long tail of slow ones."""
        return int(median_us * self.rng.lognormvariate(0.0, spread))

    def arrival(self) -> int:
        day = self.pick(self._arrivals)
        return self.start_us + day * DAY_US + self.pick(self._hours) * HOUR_US + self.rng.randrange(HOUR_US)

    def device(self) -> dict[str, Any]:
        browser = self.pick(self._tables["browser"])
        _, version, agent = c.BROWSERS[browser]
        os_name = self.pick(self._os[browser])
        mobile = os_name in ("iOS", "Android")
        return {
            "$browser": browser,
            "$browser_version": version,
            "$os": os_name,
            "$device_type": "Mobile" if mobile else "Desktop",
            "$raw_user_agent": agent.format(os=os_name),
            "$geoip_country_code": self.pick(self._tables["country"]),
            "$ip": f"203.0.113.{self.rng.randrange(1, 255)}",
            "$lib": "web",
        }

    # --- one visitor -----------------------------------------------------------------------------------

    def visitor(self) -> list[Event]:
        """Every event of one visitor (or of one crawler now and then), sorted by time."""
        if self.rng.random() < 0.01:
            return self._crawler()
        return _Visitor(self).events()

    def _crawler(self) -> list[Event]:
        at = self.arrival()
        agent = self.rng.choice(c.BOT_AGENTS)
        distinct_id = self.uuid()
        pages = self.rng.sample(list(c.MARKETING_PAGES), k=self.rng.randint(2, 6))
        out = []
        for path in pages:
            at += self.rng.randrange(SECOND_US, 5 * SECOND_US)
            properties = {"$current_url": f"https://{c.HOST}{path}", "$pathname": path, "$raw_user_agent": agent}
            out.append(self.event("$pageview", distinct_id, at, properties))
        return [event for event in out if self._in_window(event)]

    def staff(self, member: Sequence[str], sessions: int) -> list[Event]:
        """A staff account: identified from the start, using the app and testing the money paths."""
        distinct_id, name, role = member
        device = self.device()
        email = f"{name.split()[0].lower()}@{c.STAFF_DOMAIN}"
        at = self.start_us + self.rng.randrange(DAY_US)
        person = {"email": email, "name": name, "role": role, "plan": "enterprise"}
        out = [self.event("$identify", distinct_id, at, {**device, "$set": person})]
        for _ in range(sessions):
            at += self.delay(DAY_US * self.days / max(sessions, 1) / 1.3, 0.5)
            session = {**device, "$session_id": self.uuid()}
            for path in ("/app/dashboard", self.pick(self._tables["app"]), self.pick(self._tables["app"])):
                at += self.rng.randrange(5 * SECOND_US, 90 * SECOND_US)
                out.append(self.pageview(distinct_id, at, path, session))
            if self.rng.random() < 0.2:
                out.append(self.event("signed_up", distinct_id, at + SECOND_US, {**session, "signup_method": "email"}))
            if self.rng.random() < 0.15:
                plan = self.pick(self._tables["plan"])
                purchase = {**session, "plan": plan, "amount": c.PLANS[plan][1], "currency": "USD", "is_renewal": False}
                out.append(self.event("purchase", distinct_id, at + 2 * SECOND_US, purchase))
        return [event for event in out if self._in_window(event)]

    def _in_window(self, event: Event) -> bool:
        return int(event["_at"]) <= self.end_us

    # --- event builders --------------------------------------------------------------------------------

    def event(self, name: str, distinct_id: str, at: int, properties: dict[str, Any]) -> Event:
        return {"event": name, "distinct_id": distinct_id, "_at": at, "uuid": self.uuid(), "properties": properties}

    def pageview(self, distinct_id: str, at: int, path: str, context: Mapping[str, Any]) -> Event:
        return self.event(
            "$pageview", distinct_id, at, {**context, "$current_url": f"https://{c.HOST}{path}", "$pathname": path}
        )

    def company(self, user: int) -> tuple[dict[str, Any], bool]:
        """The company a new user belongs to: often a colleague's, else a new one."""
        if self.company_members and self.rng.random() < 0.45:
            index = self.rng.choice(self.company_members)
            self.company_members.append(index)
            return self.companies[index], False
        index = len(self.companies)
        name = f"{self.rng.choice(c.COMPANY_WORDS)} {self.rng.choice(c.COMPANY_SUFFIXES)} {index + 1}"
        slug = name.lower().replace(" ", "-")
        company = {
            "key": slug,
            "name": name,
            "domain": f"{slug}.example",
            "industry": self.rng.choice(c.INDUSTRIES),
            "employees": int(self.rng.lognormvariate(3.5, 1.3)) + 2,
            "created_by": user,
        }
        self.companies.append(company)
        self.company_members.append(index)
        return company, True


def format_micros(at: int) -> str:
    """UTC microseconds as ISO 8601 with milliseconds, as PostHog's SDKs send timestamps."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at // SECOND_US)) + f".{at % SECOND_US // 1000:03d}Z"


class _Visitor:
    """One person's story; see the module docstring of :mod:`.simulation`."""

    def __init__(self, sim: Simulation) -> None:
        self.sim, self.rng = sim, sim.rng
        self.anon_id = sim.uuid()
        self.distinct_id = self.anon_id
        self.device = sim.device()
        self.source = sim.pick(sim._tables["source"])
        self.groups: dict[str, str] | None = None
        self.out: list[Event] = []
        self.number = len(sim.company_members)

    def context(self, session_id: str, first: bool) -> dict[str, Any]:
        context = {**self.device, "$session_id": session_id}
        if first and self.source is not None:
            context["utm_source"] = self.source
            context["$referring_domain"] = c.REFERRERS[self.source]
        if self.groups is not None:
            context["$groups"] = self.groups
        return context

    def emit(self, name: str, at: int, properties: dict[str, Any]) -> None:
        self.out.append(self.sim.event(name, self.distinct_id, at, properties))

    def browse(self, at: int, context: dict[str, Any], pages: Sequence[str]) -> int:
        for path in pages:
            at += self.rng.randrange(8 * SECOND_US, 150 * SECOND_US)
            self.out.append(self.sim.pageview(self.distinct_id, at, path, context))
        return at

    def events(self) -> list[Event]:
        sim, rng = self.sim, self.rng
        at = sim.arrival()
        signup_rate = c.SIGNUP_RATE_BY_SOURCE[self.source]
        signed_up_at: int | None = None
        for visit in range(1 + min(int(rng.expovariate(1.0)), 6)):
            context = self.context(sim.uuid(), first=visit == 0)
            landing = sim.pick(sim._landing[self.source]) if visit == 0 else "/"
            more = [sim.pick(sim._tables["marketing"]) for _ in range(min(int(rng.expovariate(0.6)), 6))]
            at = self.browse(at, context, [landing, *more])
            if at > sim.end_us:  # a visit cut off by the end of the window signs nobody up
                break
            if rng.random() < (signup_rate if visit == 0 else signup_rate / 2):
                signed_up_at = self.sign_up(at, context)
                break
            at += sim.delay(3 * DAY_US, 1.0)
        if signed_up_at is not None:
            self.customer_life(signed_up_at)
        self.out.sort(key=lambda event: event["_at"])
        return [event for event in self.out if sim._in_window(event)]

    def sign_up(self, at: int, context: dict[str, Any]) -> int:
        sim, rng = self.sim, self.rng
        at = self.browse(at, context, ["/signup"])
        first, last = rng.choice(c.FIRST_NAMES), rng.choice(c.LAST_NAMES)
        company, new_company = sim.company(self.number)
        self.distinct_id = f"user-{sim.uuid()[:13]}"
        person = {
            "email": f"{first.lower()}.{last.lower()}{self.number}@{company['domain']}",
            "name": f"{first} {last}",
            "plan": "free",
            "company": company["name"],
            "role": rng.choice(("analyst", "engineer", "founder", "marketer", "product manager")),
        }
        once = {"signup_date": format_micros(at)[:10], "initial_utm_source": self.source or "direct"}
        at += SECOND_US
        self.emit("$identify", at, {**context, "$anon_distinct_id": self.anon_id, "$set": person, "$set_once": once})
        team = f"{company['key']}:{rng.choice(c.TEAM_NAMES[: 1 + min(company['employees'] // 10, 4)]).lower()}"
        if new_company:
            group_set = {k: company[k] for k in ("name", "domain", "industry", "employees")}
            self.emit(
                "$groupidentify",
                at,
                {
                    **context,
                    "$group_type": "company",
                    "$group_key": company["key"],
                    "$group_set": {**group_set, "plan": "free"},
                },
            )
        if team not in sim.seen_teams:
            sim.seen_teams.add(team)
            self.emit(
                "$groupidentify",
                at,
                {
                    **context,
                    "$group_type": "team",
                    "$group_key": team,
                    "$group_set": {"name": team.split(":")[1].title(), "company": company["name"]},
                },
            )
        self.groups = {"company": company["key"], "team": team}
        context = {**context, "$groups": self.groups}
        method = sim.pick(sim._tables["method"])
        self.emit("signed_up", at + 2 * SECOND_US, {**context, "signup_method": method})
        return at + 2 * SECOND_US

    def customer_life(self, signed_up_at: int) -> None:
        sim, rng = self.sim, self.rng
        onboarded = rng.random() < 0.62
        at = signed_up_at
        if onboarded:
            at += sim.delay(40 * MINUTE_US, 1.6)
            context = self.context(sim.uuid(), first=False)
            at = self.browse(at, context, c.ONBOARDING_PAGES)
            self.emit("onboarding_completed", at + SECOND_US, {**context, "steps_completed": 3})
        paid_at: int | None = None
        if rng.random() < (0.38 if onboarded else 0.05):
            paid_at = at + sim.delay(3 * DAY_US, 1.1)
            self.purchases(paid_at)
        # Engagement: paying customers come back about twice a week, free users weekly and drift away sooner.
        at = signed_up_at + sim.delay(DAY_US, 1.0)
        while at <= sim.end_us:
            paying = paid_at is not None and at >= paid_at
            context = self.context(sim.uuid(), first=False)
            pages = [sim.pick(sim._tables["app"]) for _ in range(1 + min(int(rng.expovariate(0.4)), 8))]
            at = self.browse(at, context, ["/app/dashboard", *pages])
            for name, chance in (("report_viewed", 0.45), ("project_created", 0.12), ("invite_sent", 0.05)):
                if rng.random() < chance:
                    self.emit(name, at + SECOND_US, dict(context))
            if rng.random() < (0.06 if paying else 0.22):
                break
            at += sim.delay((3 if paying else 6) * DAY_US, 0.8)

    def purchases(self, at: int) -> None:
        """The first purchase after a visit to pricing and checkout, then monthly renewals until cancelled."""
        sim, rng = self.sim, self.rng
        plan = sim.pick(sim._tables["plan"])
        context = self.context(sim.uuid(), first=False)
        at = self.browse(at, context, c.CHECKOUT_PAGES[:2])
        properties = {**context, "plan": plan, "amount": c.PLANS[plan][1], "currency": "USD", "is_renewal": False}
        self.emit("purchase", at + SECOND_US, {**properties, "$set": {"plan": plan}})
        self.browse(at + SECOND_US, context, c.CHECKOUT_PAGES[2:])
        if self.groups is not None:
            company = self.groups["company"]
            self.emit(
                "$groupidentify",
                at + 2 * SECOND_US,
                {**context, "$group_type": "company", "$group_key": company, "$group_set": {"plan": plan}},
            )
        while rng.random() >= 0.12:  # about one customer in eight cancels before each renewal
            at += 30 * DAY_US + rng.randrange(HOUR_US)
            if at > sim.end_us:
                break
            renewal = {
                **self.context(sim.uuid(), first=False),
                "plan": plan,
                "amount": c.PLANS[plan][1],
                "currency": "USD",
                "is_renewal": True,
            }
            self.emit("purchase", at, renewal)
