"""Hand-written events of the funnel tests: who did which step when, and why each person counts."""

from __future__ import annotations

EVENTS = [
    # alice: all three, 10 min then 1 h
    ("$pageview", "alice", "2026-01-10T10:00:00Z", {"$browser": "Chrome"}),
    ("signup", "alice", "2026-01-10T10:10:00Z", {"$browser": "Chrome"}),
    ("purchase", "alice", "2026-01-10T11:10:00Z", {"$browser": "Chrome"}),
    # bob: two steps, 30 min
    ("$pageview", "bob", "2026-01-11T09:00:00Z", {"$browser": "Safari"}),
    ("signup", "bob", "2026-01-11T09:30:00Z", {"$browser": "Safari"}),
    # carol: only the first step
    ("$pageview", "carol", "2026-01-12T08:00:00Z", {"$browser": "Chrome"}),
    # dave: signs up and buys without a pageview: not in the funnel
    ("signup", "dave", "2026-01-12T08:00:00Z"),
    ("purchase", "dave", "2026-01-12T08:05:00Z"),
    # erin: before the range
    ("$pageview", "erin", "2026-01-01T08:00:00Z"),
    ("signup", "erin", "2026-01-01T08:01:00Z"),
]
