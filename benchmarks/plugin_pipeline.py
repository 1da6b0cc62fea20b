"""Events per second through the plugin pipeline (pure, no storage), against an empty pipeline.

    python benchmarks/plugin_pipeline.py [--events 200000]

Prints the rate with no plugins (the cost of the loop itself), with the four event plugins enabled, and the
ratio. Run it on a quiet machine; numbers from a shared machine are indicative only.
"""

from __future__ import annotations

import argparse
import random
import time

from local_backend.plugins.catalog import get_plugin
from local_backend.plugins.pipeline import ConfiguredPlugin, run_pipeline

AGENTS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
]
NAMES = ["$pageview", "Signed Up", "onboarding step completed", "PurchaseMade", "$autocapture"]


def make_events(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    return [
        {
            "uuid": f"uuid-{n}",
            "event": rng.choice(NAMES),
            "distinct_id": f"user-{rng.randrange(20_000)}",
            "properties": {
                "$current_url": "https://example.com/pricing",
                "$browser": "Chrome",
                "$ip": "10.0.0.1",
                "$user_agent": rng.choice(AGENTS),
                "plan": "pro",
                "$set": {"email": "someone@example.com"},
            },
            "timestamp": "2026-01-15T12:00:00.000000Z",
            "team_id": 1,
        }
        for n in range(count)
    ]


def rate(events: list[dict], plugins: list[ConfiguredPlugin]) -> float:
    start = time.perf_counter()
    for event in events:
        run_pipeline(event, plugins)
    return len(events) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    args = parser.parse_args()
    events = make_events(args.events)
    plugins = [
        ConfiguredPlugin(
            config_id=1, plugin=get_plugin(4), config={"extra_patterns": "", "drop_without_user_agent": "No"}
        ),
        ConfiguredPlugin(
            config_id=2, plugin=get_plugin(1), config={"event_properties": "$ip", "person_properties": "email"}
        ),
        ConfiguredPlugin(config_id=3, plugin=get_plugin(2), config={"defaultNamingConvention": "snake_case"}),
        ConfiguredPlugin(config_id=4, plugin=get_plugin(3), config={"percentage": "50", "salt": ""}),
    ]
    empty = rate(events, [])
    full = rate(events, plugins)
    print(f"events: {len(events)}")
    print(f"no plugins:   {empty:,.0f} events/s")
    print(f"four plugins: {full:,.0f} events/s")
    print(f"ratio (four / none): {full / empty:.3f}")


if __name__ == "__main__":
    main()
