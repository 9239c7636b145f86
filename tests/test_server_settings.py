"""The server's settings: flags over ABYSS_* environment variables over defaults, each checked."""

from __future__ import annotations

import attrs
import pytest

from abyss_rules.serve._settings import OPTIONS, Settings, from_env, parse_settings, to_env


def test_every_setting_has_a_flag_a_variable_and_help() -> None:
    fields = {field.name for field in attrs.fields(Settings)}
    assert fields == set(OPTIONS)
    assert from_env(to_env(Settings())) == Settings()  # what the workers read is what the parent had


def test_flags_win_over_variables_over_defaults() -> None:
    env = {"ABYSS_MAX_BODY": "1000", "ABYSS_WORKERS": "3", "ABYSS_ALLOW_SEED": "yes", "ABYSS_DB": "sqlite:///x"}
    settings = parse_settings(["--workers", "2", "--no-allow-seed"], environ=env)
    assert (settings.max_body, settings.workers, settings.allow_seed, settings.db) == (1000, 2, False, "sqlite:///x")
    assert parse_settings([], environ={}) == Settings()


@pytest.mark.parametrize("env", [{"ABYSS_MAX_BODY": "lots"}, {"ABYSS_MAX_BODY": "0"},
                                 {"ABYSS_PORT": "70000"}, {"ABYSS_LONG_POLL": "nan"},
                                 {"ABYSS_ALLOW_SEED": "maybe"}, {"ABYSS_LOG_LEVEL": "loud"},
                                 {"ABYSS_CLIENT_GAMES": "-1"}])
def test_a_bad_value_is_refused_with_its_name(env: dict[str, str]) -> None:
    with pytest.raises(ValueError) as info:
        from_env(env)
    name = next(iter(env)).removeprefix("ABYSS_").lower().replace("_", "-")
    assert next(iter(env)) in str(info.value) or name in str(info.value)
    with pytest.raises(SystemExit):
        parse_settings([], environ=env)
