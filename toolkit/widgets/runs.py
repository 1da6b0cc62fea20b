"""How a builder's Run behaves while it is in flight: a note once it lasts, and only the newest result shown.

- `BusyNote` says "Running…" (and turns the Run button's icon into a spinner) only once a run has lasted
  `BUSY_AFTER` seconds: a quick run does not flash a note, a slow one says it is working.
- `RunTickets` numbers the runs: a run's result is shown only if no Run was started after it, so clicking
  Run again while an earlier one is still waiting for the API supersedes it (its answer, when it comes, is
  dropped; the HTTP request itself is left to finish, as a browser's superseded request is).
- `clicked_in_page` tells a click made in the page (a comm message from the browser: the builder then runs
  off the kernel's event loop, so the page stays responsive and a second click can supersede the first) from
  ``button.click()`` in a cell (it runs to the end before the cell's next line, which may read ``df``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

__all__ = ["BUSY_AFTER", "BUSY_TEXT", "BusyNote", "RunTickets", "clicked_in_page", "running_loop"]

BUSY_AFTER = 0.5
"""Seconds a run lasts before the builder says it is running."""
BUSY_TEXT = "Running…"


class BusyNote:
    """Shows ``text`` in ``note`` (and a spinner on ``button``) once a run has lasted ``delay`` seconds."""

    def __init__(
        self,
        note: widgets.HTML,
        button: widgets.Button,
        render: Callable[[str], str],
        *,
        delay: float = BUSY_AFTER,
        text: str = BUSY_TEXT,
    ) -> None:
        self.note, self.button, self.render = note, button, render
        self.delay, self.text = delay, text
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._shown_for: int | None = None

    def start(self, ticket: int) -> None:
        """A run numbered ``ticket`` began: show the note if it is still running after the delay."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            # a thread, not the event loop: a run started from code holds the loop until it ends
            self._timer = threading.Timer(self.delay, self._show, args=(ticket,))
            self._timer.daemon = True
            self._timer.start()

    def _show(self, ticket: int) -> None:
        with self._lock:
            if self._timer is None or self._timer.args != (ticket,):
                return
            self._shown_for = ticket
            self.note.value = self.render(self.text)
            self.button.icon = "spinner"

    def stop(self, ticket: int) -> None:
        """Run ``ticket`` ended: no note, unless a newer run is still going on."""
        with self._lock:
            if self._timer is not None and self._timer.args == (ticket,):
                self._timer.cancel()
                self._timer = None
            if self._timer is None:
                self._shown_for = None
                self.note.value = ""
                self.button.icon = "play"

    @property
    def shown(self) -> bool:
        """Whether the note is showing."""
        return self._shown_for is not None


class RunTickets:
    """Numbers the runs; only the newest one may show its result."""

    def __init__(self) -> None:
        self.latest = 0

    def issue(self) -> int:
        self.latest += 1
        return self.latest

    def is_latest(self, ticket: int) -> bool:
        return ticket == self.latest


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running this code (the kernel's, in a notebook), or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def clicked_in_page() -> bool:
    """Whether the code runs for a click in the page (the kernel is handling a widget's comm message)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipywidgets depends on IPython
        return False
    kernel = getattr(get_ipython(), "kernel", None)
    if kernel is None or not hasattr(kernel, "get_parent"):
        return False
    try:
        parent: Any = kernel.get_parent("shell")
    except TypeError:  # older kernels take no channel
        parent = kernel.get_parent()
    header = (parent or {}).get("header") or {}
    return header.get("msg_type") == "comm_msg"
