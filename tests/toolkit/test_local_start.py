"""`local.start` hands the demo dataset's size, seed and clock to the `demo` command."""

from __future__ import annotations

import pytest

from toolkit import local
from toolkit.errors import LocalBackendError


@pytest.fixture
def demo_calls(monkeypatch):
    calls: list[tuple[str, ...]] = []

    def record(*args: str) -> str:
        calls.append(args)
        raise LocalBackendError("stopped before serving")

    monkeypatch.setattr(local, "_cli", record)
    return calls


def test_events_seed_and_now_reach_the_demo_command(demo_calls, tmp_path):
    with pytest.raises(LocalBackendError):
        local.start(tmp_path / "a.db", now="2026-01-15T12:00:00Z", events=500, seed=3)
    db = str((tmp_path / "a.db").resolve())
    assert demo_calls == [("demo", "--db", db, "--now", "2026-01-15T12:00:00Z", "--events", "500", "--seed", "3")]


def test_without_them_the_demo_command_keeps_its_defaults(demo_calls, tmp_path):
    with pytest.raises(LocalBackendError):
        local.start(tmp_path / "a.db")
    assert demo_calls == [("demo", "--db", str((tmp_path / "a.db").resolve()))]


def test_seed_zero_is_passed_and_not_taken_for_missing(demo_calls, tmp_path):
    with pytest.raises(LocalBackendError):
        local.start(tmp_path / "a.db", events=0, seed=0)
    assert demo_calls[0][-4:] == ("--events", "0", "--seed", "0")
