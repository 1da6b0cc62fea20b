"""The demo product's world: pages, traffic sources, devices, countries, plans, companies.

Plotline is a made-up SaaS for planning reports, served at ``plotline.example``; its staff use
``@plotline.example`` emails, which is what the demo project's test-account filter removes. Weights are
relative frequencies.
"""

from __future__ import annotations

__all__ = [
    "HOST",
    "STAFF_DOMAIN",
    "MARKETING_PAGES",
    "LANDING_BY_SOURCE",
    "APP_PAGES",
    "ONBOARDING_PAGES",
    "CHECKOUT_PAGES",
    "SOURCES",
    "SIGNUP_RATE_BY_SOURCE",
    "REFERRERS",
    "BROWSERS",
    "OS_BY_BROWSER",
    "COUNTRIES",
    "PLANS",
    "SIGNUP_METHODS",
    "INDUSTRIES",
    "TEAM_NAMES",
    "FIRST_NAMES",
    "LAST_NAMES",
    "COMPANY_WORDS",
    "COMPANY_SUFFIXES",
    "BOT_AGENTS",
    "STAFF",
]

HOST = "plotline.example"
STAFF_DOMAIN = "plotline.example"

MARKETING_PAGES = {
    "/": 30, "/pricing": 18, "/features": 14, "/customers": 6, "/about": 4,
    "/blog/funnels-101": 8, "/blog/launch-week": 6, "/docs/getting-started": 8,
}  # fmt: skip
LANDING_BY_SOURCE = {
    "google": {"/": 5, "/blog/funnels-101": 3, "/docs/getting-started": 2, "/pricing": 1},
    "bing": {"/": 3, "/pricing": 1},
    "newsletter": {"/blog/launch-week": 4, "/blog/funnels-101": 2, "/": 1},
    "twitter": {"/blog/launch-week": 2, "/": 3},
    "linkedin": {"/customers": 2, "/": 3, "/features": 2},
    "producthunt": {"/": 6, "/pricing": 1},
    "reddit": {"/blog/funnels-101": 3, "/": 2},
    None: {"/": 6, "/pricing": 2, "/docs/getting-started": 1},  # direct traffic
}
APP_PAGES = {
    "/app/dashboard": 30, "/app/projects": 18, "/app/reports": 16, "/app/projects/new": 5,
    "/app/team": 5, "/app/integrations": 4, "/app/settings": 4, "/app/billing": 2,
}  # fmt: skip
ONBOARDING_PAGES = ("/onboarding/welcome", "/onboarding/connect-data", "/onboarding/invite-team")
CHECKOUT_PAGES = ("/pricing", "/checkout", "/checkout/success")

SOURCES = {None: 30, "google": 33, "newsletter": 7, "twitter": 6, "linkedin": 8, "producthunt": 4,
           "bing": 4, "reddit": 5}  # fmt: skip
# The chance that a first visit ends in a signup, by where the visitor came from.
SIGNUP_RATE_BY_SOURCE = {None: 0.14, "google": 0.12, "newsletter": 0.22, "twitter": 0.09, "linkedin": 0.16,
                         "producthunt": 0.25, "bing": 0.10, "reddit": 0.07}  # fmt: skip
REFERRERS = {None: "$direct", "google": "www.google.com", "bing": "www.bing.com", "newsletter": "mail.example",
             "twitter": "t.co", "linkedin": "www.linkedin.com", "producthunt": "www.producthunt.com",
             "reddit": "www.reddit.com"}  # fmt: skip

# browser -> (weight, version, user agent template)
BROWSERS = {
    "Chrome": (62, 131, "Mozilla/5.0 ({os}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"),
    "Safari": (19, 18, "Mozilla/5.0 ({os}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15"),
    "Firefox": (8, 133, "Mozilla/5.0 ({os}; rv:133.0) Gecko/20100101 Firefox/133.0"),
    "Microsoft Edge": (7, 131, "Mozilla/5.0 ({os}) AppleWebKit/537.36 (KHTML, like Gecko) Edg/131.0"),
    "Samsung Internet": (4, 26, "Mozilla/5.0 ({os}) AppleWebKit/537.36 SamsungBrowser/26.0 Mobile Safari/537.36"),
}
# browser -> {os: weight}; the os decides the device type and the user agent's platform part
OS_BY_BROWSER = {
    "Chrome": {"Windows": 48, "Mac OS X": 24, "Android": 18, "Linux": 6, "Chrome OS": 4},
    "Safari": {"Mac OS X": 55, "iOS": 45},
    "Firefox": {"Windows": 60, "Linux": 25, "Mac OS X": 15},
    "Microsoft Edge": {"Windows": 100},
    "Samsung Internet": {"Android": 100},
}
COUNTRIES = {"US": 34, "GB": 10, "DE": 9, "IN": 8, "FR": 7, "BR": 6, "CA": 5, "NL": 4, "ES": 3, "AU": 3,
             "JP": 3, "PL": 2, "SE": 2, "MX": 2, "NG": 1, "ZA": 1}  # fmt: skip
# plan -> (share of first purchases, monthly amount in USD)
PLANS = {"starter": (55, 29), "pro": (35, 99), "enterprise": (10, 499)}
SIGNUP_METHODS = {"email": 50, "google": 38, "github": 12}
INDUSTRIES = ("Software", "Retail", "Finance", "Healthcare", "Education", "Media", "Logistics", "Manufacturing")
TEAM_NAMES = ("Product", "Engineering", "Marketing", "Sales", "Data")
FIRST_NAMES = ("Ada", "Ben", "Chloe", "Dmitri", "Elena", "Farah", "Goran", "Hana", "Ivan", "Jia", "Kofi",
               "Lena", "Mateo", "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara", "Uma", "Victor", "Wei",
               "Yara")  # fmt: skip
LAST_NAMES = ("Adams", "Bauer", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Hughes", "Ito", "Jansen",
              "Kowalski", "Lopez", "Moreau", "Nakamura", "Okafor", "Petrov", "Rossi", "Schmidt", "Tanaka",
              "Usman", "Varga", "Weber", "Young", "Zhang")  # fmt: skip
COMPANY_WORDS = ("North", "Blue", "Bright", "Iron", "Silver", "Cedar", "Harbor", "Summit", "Atlas", "Nova",
                 "Pine", "Orbit", "Delta", "Maple", "Quartz", "Aurora")  # fmt: skip
COMPANY_SUFFIXES = ("Labs", "Works", "Systems", "Analytics", "Retail", "Health", "Logistics", "Media")
BOT_AGENTS = (
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "insightlab-monitor/1.0 (uptime check)",
)
# The product's own staff: (distinct id, name, role); they test sign-ups and purchases in production.
STAFF = (
    ("staff-1", "Maya Lind", "engineer"),
    ("staff-2", "Tom Reyes", "qa"),
    ("staff-3", "Ines Duarte", "product manager"),
    ("staff-4", "Karl Brandt", "support"),
    ("staff-5", "Lucia Ferri", "qa"),
)
