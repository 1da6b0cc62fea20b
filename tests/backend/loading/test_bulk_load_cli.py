"""``load-events`` on the command line: a summary on success, one clear line and exit code 2 on bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

from local_backend.__main__ import main

GOOD = "event,distinct_id,timestamp,plan\nsignup,u1,2026-01-10T10:00:00Z,pro\n,u2,2026-01-10T10:00:00Z,\n"


@pytest.fixture
def setup(tmp_path, capsys):
    db = tmp_path / "a.db"
    assert main(["create-project", "--db", str(db), "--name", "Shop"]) == 0
    capsys.readouterr()
    events = tmp_path / "events.csv"
    events.write_text(GOOD, encoding="utf-8")
    return db, events


def test_load_events_prints_counts_and_first_reasons(setup, capsys):
    db, events = setup
    assert main(["load-events", "--db", str(db), "--project", "1", str(events), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Loaded 1 events (0 already stored, 1 rejected, 0 dropped by plugins) from 2 rows in ")
    assert "  row 2: event is missing\n" in out
    assert main(["load-events", "--db", str(db), "--project", "1", str(events), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("Loaded 0 events (1 already stored, 1 rejected,")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--project", "7", "{events}"], "error: Project 7 does not exist."),
        (["--project", "1", "{dir}/nope.csv"], "error: No such file: "),
        (["--project", "1", "{dir}/events.txt"], "error: Cannot tell the format of events.txt"),
        (["--project", "1", "{dir}/cols.csv"], "error: cols.csv has no distinct_id or timestamp columns."),
        (["--project", "1", "--format", "parquet", "{events}"], "error: events.csv: not a readable Parquet file"),
        (["--project", "1", "--batch-size", "0", "{events}"], "error: batch size must be between 1 and 1000000."),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(setup, capsys, args, message):
    db, events = setup
    (events.parent / "events.txt").write_text(GOOD)
    (events.parent / "cols.csv").write_text("event,user\nsignup,u1\n")
    argv = [a.format(events=events, dir=events.parent) for a in args]
    assert main(["load-events", "--db", str(db), *argv, "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(message)
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.out == ""


def test_a_database_that_does_not_exist_is_not_created(tmp_path, capsys):
    events = tmp_path / "events.csv"
    events.write_text(GOOD)
    assert main(["load-events", "--db", str(tmp_path / "typo.db"), "--project", "1", str(events)]) == 2
    assert capsys.readouterr().err == f"error: No such database: {tmp_path / 'typo.db'}\n"
    assert not (tmp_path / "typo.db").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--project", "1", "--format", "xml"], "invalid choice: 'xml'"),
        (["--project", "1", "--batch-size", "many"], "not a whole number: 'many'"),
        (["--project", "one"], "invalid int value: 'one'"),
        ([], "the following arguments are required: --project"),
    ],
)
def test_argument_errors_exit_with_2(setup, capsys, args, message):
    db, events = setup
    with pytest.raises(SystemExit) as raised:
        main(["load-events", "--db", str(db), str(events), *args])
    assert raised.value.code == 2
    assert message in capsys.readouterr().err


def test_the_progress_bar_goes_to_stderr_and_the_summary_to_stdout(setup):
    db, events = setup
    done = subprocess.run(
        [sys.executable, "-m", "local_backend", "load-events", "--db", str(db), "--project", "1", str(events)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0
    assert "events.csv: 2ev" in done.stderr
    assert done.stdout.startswith("Loaded 1 events")
