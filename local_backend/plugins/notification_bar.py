"""Notification bar: a site app that shows a message bar at the top of your website.

It changes no events (its event function passes them through); what it adds is the browser code served by
``GET .../plugin_configs/:id/frontend/``, which a site loads and calls with the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Event, Plugin
from .schema import ConfigField

__all__ = ["PLUGIN", "FRONTEND", "process_event"]

FRONTEND = """\
// insightlab site app: notification bar. Call inject({ config, posthog }) once the page has loaded.
const STORAGE_KEY = 'insightlab-notification-bar-dismissed'

export function inject({ config, posthog }) {
    if (!config.message || (config.remember_dismissal === 'Yes' && localStorage.getItem(STORAGE_KEY))) {
        return
    }
    const bar = document.createElement('div')
    bar.setAttribute('role', 'status')
    bar.style.cssText = 'position:sticky;top:0;z-index:9999;padding:8px 40px 8px 16px;text-align:center;' +
        'font:14px/1.4 system-ui,sans-serif;background:' + (config.background_color || '#ebdbff') +
        ';color:' + (config.text_color || '#000000')
    const text = config.link ? document.createElement('a') : document.createElement('span')
    text.textContent = config.message
    if (config.link) {
        text.href = config.link
        text.style.color = 'inherit'
        text.addEventListener('click', () => posthog && posthog.capture('notification bar clicked'))
    }
    const close = document.createElement('button')
    close.textContent = '\\u00d7'
    close.setAttribute('aria-label', 'Dismiss')
    close.style.cssText = 'position:absolute;right:12px;top:4px;border:0;background:none;font-size:20px;cursor:pointer'
    close.addEventListener('click', () => {
        bar.remove()
        if (config.remember_dismissal === 'Yes') {
            localStorage.setItem(STORAGE_KEY, '1')
        }
    })
    bar.append(text, close)
    document.body.prepend(bar)
}

export function getFrontendApp() {
    return { inject }
}
"""


def process_event(event: Event, config: Mapping[str, Any]) -> Event:
    return event


PLUGIN = Plugin(
    id=5,
    slug="notification-bar",
    name="Notification Bar",
    description="Site app: show a dismissible message bar (with an optional link) at the top of your website.",
    tag="1.0.0",
    process_event=process_event,
    config_schema=(
        ConfigField(key="message", name="Message", required=True, default="Hello from insightlab!"),
        ConfigField(key="link", name="Link", hint="Where a click on the message goes; leave empty for none."),
        ConfigField(key="background_color", name="Background colour", default="#ebdbff"),
        ConfigField(key="text_color", name="Text colour", default="#000000"),
        ConfigField(
            key="remember_dismissal",
            name="Remember dismissal",
            type="choice",
            choices=("Yes", "No"),
            default="Yes",
            required=True,
        ),
    ),
    frontend=FRONTEND,
    processes_events=False,
)
