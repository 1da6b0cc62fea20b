"""Settings come from the argument, else the environment, else a default; a missing key is named."""

from __future__ import annotations

import pytest

from toolkit import Client, ConfigError
from toolkit.config import resolve_settings


@pytest.mark.parametrize(
    "arguments, environ, expected",
    [
        ({"api_key": "phx_arg"}, {}, ("http://127.0.0.1:8000", "phx_arg", "@current")),
        (
            {"base_url": "https://arg.example.com/", "api_key": "phx_arg", "project_id": 7},
            {
                "POSTHOG_HOST": "https://env.example.com",
                "POSTHOG_PERSONAL_API_KEY": "phx_env",
                "POSTHOG_PROJECT_ID": "9",
            },
            ("https://arg.example.com", "phx_arg", "7"),
        ),
        (
            {},
            {
                "POSTHOG_HOST": "https://env.example.com",
                "POSTHOG_PERSONAL_API_KEY": "phx_env",
                "POSTHOG_PROJECT_ID": "9",
            },
            ("https://env.example.com", "phx_env", "9"),
        ),
        # the common aliases
        (
            {},
            {"POSTHOG_BASE_URL": "https://alias.example.com", "POSTHOG_API_KEY": "phx_alias"},
            ("https://alias.example.com", "phx_alias", "@current"),
        ),
        # the primary name wins over the alias
        (
            {},
            {
                "POSTHOG_HOST": "https://h",
                "POSTHOG_BASE_URL": "https://b",
                "POSTHOG_PERSONAL_API_KEY": "phx_p",
                "POSTHOG_API_KEY": "phx_a",
            },
            ("https://h", "phx_p", "@current"),
        ),
        # empty values count as unset
        (
            {"api_key": ""},
            {"POSTHOG_API_KEY": "phx_env", "POSTHOG_HOST": " "},
            ("http://127.0.0.1:8000", "phx_env", "@current"),
        ),
        (
            {"api_key": "phx_a", "project_id": "@current"},
            {"POSTHOG_PROJECT_ID": "3"},
            ("http://127.0.0.1:8000", "phx_a", "@current"),
        ),
    ],
)
def test_precedence(arguments, environ, expected):
    settings = resolve_settings(**arguments, environ=environ)
    assert (settings.base_url, settings.api_key, settings.project_id) == expected


@pytest.mark.parametrize(
    "arguments, environ, words",
    [
        ({}, {}, ["api_key", "POSTHOG_PERSONAL_API_KEY", "POSTHOG_API_KEY"]),
        ({"api_key": "phx_a", "base_url": "localhost:8000"}, {}, ["base_url", "localhost:8000"]),
        ({"api_key": "phx_a"}, {"POSTHOG_PROJECT_ID": "my-project"}, ["project_id", "my-project"]),
    ],
)
def test_config_error_names_what_is_wrong(arguments, environ, words):
    with pytest.raises(ConfigError) as caught:
        resolve_settings(**arguments, environ=environ)
    for word in words:
        assert word in str(caught.value)


def test_client_reads_the_environment_when_built(monkeypatch):
    monkeypatch.setenv("POSTHOG_HOST", "https://eu.example.com")
    monkeypatch.setenv("POSTHOG_API_KEY", "phx_fromenv")
    monkeypatch.setenv("POSTHOG_PROJECT_ID", "12")
    client = Client()
    assert (client.base_url, client.project_id) == ("https://eu.example.com", "12")
    assert client.project_path("insights/") == "/api/projects/12/insights/"
    assert "phx_fromenv" not in repr(client.settings)


def test_client_without_key_fails_early(monkeypatch):
    for name in ("POSTHOG_PERSONAL_API_KEY", "POSTHOG_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="POSTHOG_PERSONAL_API_KEY"):
        Client(base_url="http://127.0.0.1:1")
