"""Bot filter: drop events sent by crawlers, uptime monitors, link previews and headless browsers.

The user agent is read from ``$raw_user_agent`` or ``$user_agent``. Patterns are case-insensitive substrings
(never regular expressions, so a pattern cannot make matching slow).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .base import Event, Plugin
from .jobs import REPROCESS_JOB
from .property_filter import split_names
from .schema import ConfigField

__all__ = ["PLUGIN", "BOT_PATTERNS", "process_event", "is_bot"]

BOT_PATTERNS: tuple[str, ...] = (
    "googlebot", "adsbot-google", "mediapartners-google", "google-inspectiontool", "storebot-google",
    "bingbot", "bingpreview", "msnbot", "slurp", "duckduckbot", "baiduspider", "yandexbot", "yandex.com/bots",
    "sogou", "exabot", "petalbot", "applebot", "bytespider", "gptbot", "chatgpt-user", "claudebot", "ccbot",
    "perplexitybot", "ahrefsbot", "semrushbot", "mj12bot", "dotbot", "rogerbot", "screaming frog",
    "facebookexternalhit", "facebookcatalog", "twitterbot", "linkedinbot", "pinterestbot", "slackbot",
    "discordbot", "telegrambot", "whatsapp", "embedly", "ia_archiver", "archive.org_bot", "uptimerobot",
    "pingdom", "statuscake", "site24x7", "headlesschrome", "phantomjs", "lighthouse", "chrome-lighthouse",
    "python-requests", "python-urllib", "aiohttp", "go-http-client", "okhttp", "java/", "curl/", "wget/",
    "libwww-perl", "httpclient", "scrapy", "crawler", "spider", "crawling",
)  # fmt: skip
USER_AGENT_PROPERTIES = ("$raw_user_agent", "$user_agent")


@lru_cache(maxsize=8192)  # traffic repeats a modest number of distinct user agents
def is_bot(user_agent: str, extra_patterns: tuple[str, ...] = ()) -> bool:
    agent = user_agent.lower()
    return any(pattern in agent for pattern in BOT_PATTERNS) or any(
        pattern.lower() in agent for pattern in extra_patterns
    )


def process_event(event: Event, config: Mapping[str, Any]) -> Event | None:
    properties = event.get("properties") or {}
    agents = [properties[key] for key in USER_AGENT_PROPERTIES if isinstance(properties.get(key), str)]
    agents = [agent for agent in agents if agent.strip()]
    if not agents:
        return None if config.get("drop_without_user_agent") == "Yes" else event
    extra = split_names(config.get("extra_patterns"))
    return None if any(is_bot(agent, extra) for agent in agents) else event


PLUGIN = Plugin(
    id=4,
    slug="bot-filter",
    name="Bot Filter",
    description="Drop events whose user agent ($raw_user_agent or $user_agent) belongs to a crawler, uptime "
    "monitor, link preview or headless browser.",
    tag="1.0.0",
    process_event=process_event,
    config_schema=(
        ConfigField(
            key="extra_patterns",
            name="Extra user agent patterns",
            hint="Comma-separated, case-insensitive parts of user agents to drop as well, e.g. MyInternalMonitor",
        ),
        ConfigField(
            key="drop_without_user_agent",
            name="Drop events without a user agent",
            type="choice",
            choices=("No", "Yes"),
            default="No",
            required=True,
            hint="Server-side events usually have no user agent; keep them unless you only capture from browsers.",
        ),
    ),
    jobs={REPROCESS_JOB.name: REPROCESS_JOB},
)
