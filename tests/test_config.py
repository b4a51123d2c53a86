"""config.toml: every documented key is real, unknown keys and wrong types are refused."""
from __future__ import annotations

import re
import tomllib

import pytest

from tests.conftest import ROOT
from voicehost.config import load_config
from voicehost.errors import ConfigError
from voicehost.rules import KEYS


def test_shipped_config_loads():
    config = load_config(ROOT / "config.toml")
    assert config.rules().name == "4mafia"


def test_every_rules_key_is_documented_in_config_toml():
    text = (ROOT / "config.toml").read_text("utf-8")
    documented = set(re.findall(r"^# (\w+) = ", text, flags=re.M))
    assert documented == set(KEYS)


def test_documented_defaults_are_the_presets_defaults():
    text = (ROOT / "config.toml").read_text("utf-8")
    uncommented = "\n".join(line[2:].split("  #")[0] for line in text.splitlines()
                            if re.match(r"^# \w+ = ", line))
    values = tomllib.loads(uncommented)
    rules = load_config(None).rules()
    for key, value in values.items():
        expected = getattr(rules, key)
        assert (list(expected) if isinstance(expected, tuple) else expected) == value, key


@pytest.mark.parametrize("body,needle", [
    ('colour = "red"', "colour"),
    ('ruleset = 4', "ruleset"),
    ('ruleset = "chess"', "chess"),
    ('[rules]\nspeech_seconds = "long"', "speech_seconds"),
    ('[rules]\nwarp = 1', "warp"),
    ('[rules]\nfirst_day_vote = "sometimes"', "first_day_vote"),
    ('[rules]\nconfirmation = "Принят {номер}"', "confirmation"),
    ('[rules\n', "TOML"),
])
def test_bad_config_names_the_key(body, needle, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(body, "utf-8")
    with pytest.raises(ConfigError, match=needle):
        load_config(path)


def test_config_overrides_reach_the_game(tmp_path, capsys):
    from voicehost.cli import main

    path = tmp_path / "config.toml"
    path.write_text('ruleset = "fiim"\n[rules]\nconfirmation = "Принято"\n', "utf-8")
    assert main(["simulate", str(ROOT / "tests/games/red_wins_by_votes.jsonl"), "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert '"Принято"' in out and "Принят номер" not in out
