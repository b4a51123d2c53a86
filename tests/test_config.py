"""config.toml: every documented key is real, unknown keys and wrong types are refused."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

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


# ---------------------------------------------------------------- issue 8, item 7

@pytest.mark.parametrize("key", ["speech_seconds", "pass_silence", "warning_seconds", "nomination_pause",
                                 "vote_seconds", "don_seconds"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1.0", "1e300"])
def test_durations_must_be_finite_and_in_range(key, value, tmp_path):
    from voicehost.rules import parse_set, rules_for

    path = tmp_path / "club.toml"
    path.write_text(f"[rules]\n{key} = {value}\n", "utf-8")
    with pytest.raises(ConfigError, match=rf"club.toml \[rules\]: '{key}' must be") as caught:
        load_config(path)
    assert "config.toml" not in str(caught.value)
    with pytest.raises(ConfigError, match=rf"--set: '{key}' must be"):
        rules_for("4mafia", parse_set([f"{key}={value}"]))


@pytest.mark.parametrize("key", ["speech_seconds", "pass_silence", "nomination_pause", "vote_seconds"])
def test_zero_seconds_are_refused_but_warning_zero_turns_it_off(key):
    from voicehost.rules import parse_set, rules_for

    with pytest.raises(ConfigError, match=f"'{key}' must be more than 0 seconds"):
        rules_for("4mafia", parse_set([f"{key}=0"]))
    assert rules_for("4mafia", parse_set(["warning_seconds=0"])).warning_seconds == 0.0


@pytest.mark.parametrize("body,needle", [
    ("[web]\nport = 99999", r"\[web\] 'port' must be from 0 to 65535"),
    ("[web]\nport = -1", r"'port' must be from 0 to 65535"),
    ("[asr]\nlisten_lag = nan", r"'listen_lag' must be a finite number"),
    ("[asr]\nstable_ms = -5", r"'stable_ms' must be from 0"),
    ("[tts]\necho_tail = inf", r"'echo_tail' must be a finite number"),
    ('[rules]\nphrasebook = "ru"', r"'phrasebook' = 'ru' is not a phrasebook"),
    ('[rules]\ngrammar = "nosuch"', r"'grammar' = 'nosuch' does not load"),
    ('[rules]\ngrammar = "../../etc/passwd"', r"'grammar' must be a plain name"),
    ('ruleset = "chess"', r"club.toml: unknown ruleset 'chess'"),
])
def test_bad_settings_are_refused_at_load_naming_the_file(body, needle, tmp_path):
    path = tmp_path / "club.toml"
    path.write_text(body, "utf-8")
    with pytest.raises(ConfigError, match=needle) as caught:
        load_config(path)
    assert "club.toml" in str(caught.value) and "\n" not in str(caught.value)


def test_phrasebook_and_grammar_from_set_are_checked_before_the_game(capsys):
    from voicehost.cli import main

    assert main(["simulate", str(ROOT / "tests/games/red_wins_by_votes.jsonl"), "--set", "phrasebook=ru"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "'phrasebook' = 'ru' is not a phrasebook" in captured.err


@pytest.mark.parametrize("content,needle", [(b"ruleset = \"\xff\xfe\"\n", "not UTF-8"),
                                            (None, "is a folder")])
def test_unreadable_config_is_one_line_naming_the_file(content, needle, tmp_path, capsys):
    from voicehost.cli import main

    path = tmp_path / "club.toml"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    assert main(["check-phrase", "--text", "выставляю седьмого", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and str(path) in err


@pytest.mark.parametrize("kind", ["pipe", "endless device", "empty device"])
def test_a_config_that_is_no_file_is_one_line_or_no_settings(kind, tmp_path, capsys):
    """A pipe would wait for ever and /dev/zero never ends: one line each;
    /dev/null reads as no settings at all."""
    import os

    from voicehost.cli import main

    path = {"endless device": Path("/dev/zero"), "empty device": Path("/dev/null")}.get(kind, tmp_path / "club.toml")
    if kind == "pipe":
        os.mkfifo(path)
    code = main(["check-phrase", "--text", "выставляю седьмого", "--config", str(path)])
    captured = capsys.readouterr()
    if kind == "empty device":
        assert code == 0 and '"accepted": true' in captured.out
    else:
        assert code == 2 and captured.err.count("\n") == 1 and str(path) in captured.err
        assert ("a pipe, not a file" if kind == "pipe" else "over 1 MB") in captured.err


def test_set_takes_a_list_of_fillers():
    from voicehost.rules import parse_set, rules_for

    assert rules_for("4mafia", parse_set(["required_fillers=a,b"])).required_fillers == ("a", "b")
    assert rules_for("4mafia", parse_set(['required_fillers=["кандидатуру", "игрока"]'])).required_fillers == (
        "кандидатуру", "игрока")


def test_port_on_the_command_line_is_checked(capsys):
    from voicehost.cli import main

    with pytest.raises(SystemExit) as caught:
        main(["serve", "--port", "99999"])
    assert caught.value.code == 2
    assert "not a port 0..65535" in capsys.readouterr().err


def test_inherit_loops_are_refused(tmp_path):
    from voicehost.phrasedata import PhraseData

    (tmp_path / "a.toml").write_text('inherit = "b"\n[say]\nx = "1"\n', "utf-8")
    (tmp_path / "b.toml").write_text('inherit = "a"\n', "utf-8")
    (tmp_path / "c.toml").write_text('inherit = "d"\n[say]\nx = "2"\n', "utf-8")
    (tmp_path / "d.toml").write_text('[say]\nx = "1"\ny = "3"\n', "utf-8")
    with pytest.raises(ConfigError, match="loops back"):
        PhraseData(tmp_path).read_inherited("a", "phrasebook", ConfigError)
    assert PhraseData(tmp_path).read_inherited("c", "phrasebook", ConfigError) == {
        "say": {"x": "2", "y": "3"}}


def test_check_phrase_and_run_read_the_same_settings(tmp_path):
    """Issue 7: one settings loader. The project's config.toml asks for a filler;
    the same phrase gets the same verdict from check-phrase and from a typed game."""
    import os
    import subprocess
    import sys

    (tmp_path / "config.toml").write_text('[rules]\nrequired_fillers = ["кандидатуру"]\n', "utf-8")
    env = {**os.environ, "VOICEHOST_ROOT": str(tmp_path), "HOME": str(tmp_path)}
    verdicts = {}
    for phrase, seat in (("выставляю седьмого", 7), ("выставляю кандидатуру третьего", 3)):
        done = subprocess.run([sys.executable, "-m", "voicehost", "check-phrase", "--speaker", "1",
                               "--text", phrase], capture_output=True, text=True, timeout=60, env=env)
        assert done.returncode == 0, done.stderr
        verdicts[seat] = [json.loads(line)["accepted"] for line in done.stdout.splitlines()]
    assert verdicts == {7: [False], 3: [True]}
    lines = "/roles d4 m2 m7 s6\n<80>\nвыставляю седьмого\nвыставляю кандидатуру третьего\n/quit\n"
    done = subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute"], input=lines,
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Принят номер 3" in done.stdout and "Принят номер 7" not in done.stdout
    assert str(tmp_path / "journals") in done.stdout


def test_phrasebooks_and_grammars_share_the_inherit_loader_with_its_loop_check(tmp_path):
    from voicehost.errors import DataError
    from voicehost.phrasebook import load_phrasebook
    from voicehost.phrases.grammar import load_grammar

    (tmp_path / "p1.toml").write_text('inherit = "p2"\n[say]\nx = "1"\n', "utf-8")
    (tmp_path / "p2.toml").write_text('inherit = "p1"\n', "utf-8")
    with pytest.raises(DataError, match="'inherit' loops back"):
        load_phrasebook("p1", tmp_path)
    with pytest.raises(DataError, match="'inherit' loops back"):
        load_grammar("p1", tmp_path)
    (tmp_path / "p3.toml").write_bytes(b'[say]\nx = "\xff"\n')
    with pytest.raises(DataError, match="p3.toml: the phrasebook is not UTF-8"):
        load_phrasebook("p3", tmp_path)


def test_names_announce_turns_on_the_rules_named_announcements(tmp_path):
    from voicehost.config import load_settings

    path = tmp_path / "config.toml"
    path.write_text("[names]\nannounce = true\n", "utf-8")
    assert load_settings(path)[1].announce_names is True
    path.write_text("[names]\nannounce = 1\n", "utf-8")
    with pytest.raises(Exception, match="announce"):
        load_settings(path)


def test_rule_choices_are_enums_read_from_text_and_written_as_text():
    from voicehost.rules import (
        CHOICE_ENUMS,
        FirstDayVote,
        QuietRounds,
        RemovalCancelsVote,
        Silence,
        parse_set,
        rules_for,
    )

    rules = rules_for("fiim", parse_set(["first_day_vote=lift_only"]))
    assert rules.first_day_vote is FirstDayVote.LIFT_ONLY and rules.quiet_rounds is QuietRounds.DRAW
    assert rules.silence is Silence.SHORT_SPEECH and rules.removal_cancels_vote is RemovalCancelsVote.NEAREST
    data = rules.to_json()
    assert all(type(data[key]) is str for key in CHOICE_ENUMS)
    assert json.dumps(data["quiet_rounds"]) == '"draw"'
    with pytest.raises(ConfigError, match=r"^--set: 'silence' must be one of skip, short_speech, got 'loud'$"):
        rules_for("4mafia", parse_set(["silence=loud"]))
    with pytest.raises(ConfigError, match=r"^--set: 'game' must be text, got 3$"):
        rules_for("4mafia", parse_set(["game=3"]))
