"""The ``%%sql`` cell magic through IPython's own shell: loaded with ``%load_ext toolkit``, run against a client
whose session answers PostHog's `HogQLQueryResponse` by hand."""

from __future__ import annotations

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

import toolkit
from toolkit import Client
from toolkit.magic import SqlMagicError, parse_sql_line

from .fakes import BASE, KEY, FakeSession

QUERY_PATH = "/api/projects/1/query/"
ANSWER = {
    "results": [["signup", 3], ["purchase", 1]],
    "columns": ["event", "c"],
    "types": [["event", "String"], ["c", "UInt64"]],
    "hogql": "select event, count() as c from events group by event",
    "clickhouse": None,
    "sqlite": "SELECT ...",
    "limit": None,
    "offset": None,
    "hasMore": None,
    "timezone": "UTC",
    "error": None,
}


@pytest.fixture
def shell():
    ip = InteractiveShell.instance()
    saved = dict(ip.user_ns)
    ip.run_line_magic("load_ext", "toolkit")
    toolkit.load_ipython_extension(ip)  # a fresh %sql_client choice for each test
    yield ip
    ip.user_ns.clear()
    ip.user_ns.update(saved)


def _client(fake: FakeSession, project: int = 1) -> Client:
    fake.routes[("POST", f"/api/projects/{project}/query/")] = (200, ANSWER)
    return Client(base_url=BASE, api_key=KEY, project_id=project, session=fake)


def test_a_cell_runs_against_the_only_client_and_shows_its_frame(shell):
    assert "toolkit" in shell.extension_manager.loaded
    fake = FakeSession()
    shell.user_ns["analyst"] = _client(fake)
    result = shell.run_cell("%%sql\nselect event, count() as c from events group by event\n")
    frame = result.result
    assert isinstance(frame, pd.DataFrame)
    assert frame["event"].tolist() == ["signup", "purchase"] and str(frame["c"].dtype) == "Int64"
    text = fake.calls[0].json["query"]["query"]
    assert "select event, count() as c from events group by event" in text
    assert text.endswith("\nlimit 50000 offset 0")


def test_placeholders_come_from_the_notebooks_variables_as_values(shell):
    fake = FakeSession()
    shell.user_ns.update(analyst=_client(fake), wanted="signup", since=pd.Timestamp("2026-01-05", tz="UTC"))
    shell.run_cell("%%sql\nselect event, count() as c from events\nwhere event = {wanted} and timestamp >= {since}\n")
    node = fake.calls[0].json["query"]
    assert node["values"] == {"wanted": "signup", "since": "2026-01-05T00:00:00+00:00"}
    assert "{wanted}" in node["query"] and "'signup'" not in node["query"]


def test_a_name_keeps_the_frame_and_limit_bounds_the_rows(shell):
    fake = FakeSession()
    shell.user_ns["analyst"] = _client(fake)
    result = shell.run_cell("%%sql counts --limit 1\nselect event, count() as c from events group by event\n")
    assert shell.user_ns["counts"] is result.result
    assert fake.calls[0].json["query"]["query"].endswith("\nlimit 1 offset 0")
    assert len(result.result) == 1


def test_with_several_clients_the_cell_names_one(shell, capsys):
    first, second = FakeSession(), FakeSession()
    shell.user_ns.update(local=_client(first), cloud=_client(second, project=2))
    assert shell.run_cell("%%sql\nselect 1\n").result is None
    assert "several clients (cloud, local)" in capsys.readouterr().err
    shell.run_cell("%%sql --client cloud\nselect 1\n")
    assert (len(first.calls), len(second.calls)) == (0, 1)
    shell.run_line_magic("sql_client", "local")
    shell.run_cell("%%sql\nselect 1\n")
    assert (len(first.calls), len(second.calls)) == (1, 1)


@pytest.mark.parametrize(
    "cell, message",
    [
        ("%%sql\nselect {nowhere}\n", "no variable for the placeholder(s) {nowhere}"),
        ("%%sql --client nobody\nselect 1\n", "no variable 'nobody' holds a client"),
        ("%%sql --client wanted\nselect 1\n", "'wanted' is a str, not a toolkit.Client"),
        ("%%sql --limit many\nselect 1\n", "--limit takes a whole number"),
    ],
)
def test_a_cell_that_cannot_run_says_why_without_a_traceback(shell, capsys, cell, message):
    fake = FakeSession()
    shell.user_ns.update(analyst=_client(fake), wanted="signup")
    assert shell.run_cell(cell).result is None
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err + captured.out
    assert fake.calls == []


def test_no_client_at_all_is_said(shell, capsys):
    assert shell.run_cell("%%sql\nselect 1\n").result is None
    assert "no toolkit.Client in the notebook" in capsys.readouterr().err


def test_the_servers_error_is_shown_as_its_message(shell, capsys):
    fake = FakeSession()
    analyst = _client(fake)
    error = {"type": "validation_error", "code": "invalid_input", "detail": "Unable to resolve field: evnt"}
    fake.routes[("POST", QUERY_PATH)] = (400, error)
    shell.user_ns["analyst"] = analyst
    assert shell.run_cell("%%sql\nselect evnt from events\n").result is None
    err = capsys.readouterr().err
    assert "ValidationError: 400 invalid_input: Unable to resolve field: evnt" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "line, message",
    [("a b", "unexpected 'b'"), ("--client", "--client needs a value"), ("1x", "must be a Python name")],
)
def test_malformed_lines_are_refused(line, message):
    with pytest.raises(SqlMagicError, match=message):
        parse_sql_line(line)
