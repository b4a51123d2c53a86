"""SPEC §7.2: whole games whose tallies, lift answers, fouls and
disqualifications the host says (`host_speech` lines in simulate) end with the
same protocol and the same announcements as their typed twins in tests/games/."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import GAMES
from voicehost.cli import main

HOST_GAMES = sorted((GAMES / "host").glob("*.jsonl"))


def run(capsys, script: Path, tmp_path: Path, args: list[str], name: str = "p") -> tuple[int, list[dict], dict, str]:
    protocol = tmp_path / f"{name}.json"
    code = main(["simulate", str(script), "--protocol", str(protocol), *args])
    out, err = capsys.readouterr()
    said = [json.loads(line) for line in out.splitlines()]
    return code, said, json.loads(protocol.read_text("utf-8")) if protocol.exists() else {}, err


def args_of(name: str) -> list[str]:
    return json.loads((GAMES / f"{name}.expect.json").read_text("utf-8"))["args"]


def host_line(text: str) -> str:
    words = [{"word": w, "start": 0.4 * i, "end": 0.4 * i + 0.3} for i, w in enumerate(text.split())]
    return json.dumps({"type": "host_speech", "words": words}, ensure_ascii=False)


def test_the_host_scripts_say_what_their_twins_type():
    assert len(HOST_GAMES) >= 6
    for script in HOST_GAMES:
        typed = (GAMES / script.name).read_text("utf-8")
        spoken = script.read_text("utf-8")
        assert '"host_speech"' in spoken and '"votes"' not in spoken and '"foul"' not in spoken, script.name
        assert typed.count('"type": "speech"') == spoken.count('"type": "speech"'), script.name


@pytest.mark.parametrize("script", HOST_GAMES, ids=[s.stem for s in HOST_GAMES])
def test_a_game_the_host_drives_by_voice_ends_as_its_typed_twin(script, tmp_path, capsys):
    args = args_of(script.stem)
    code, said, protocol, err = run(capsys, script, tmp_path, args, "spoken")
    assert (code, err) == (0, "")
    code, typed_said, typed_protocol, err = run(capsys, GAMES / script.name, tmp_path, args, "typed")
    assert (code, err) == (0, "")
    assert protocol == typed_protocol
    assert said == typed_said


SETUP = json.dumps({"type": "setup", "roles": {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don",
                                                "5": "citizen", "6": "sheriff", "7": "mafia", "8": "citizen",
                                                "9": "citizen", "10": "citizen"}})


def play(capsys, tmp_path, lines: list[str], *args: str) -> tuple[int, dict, str]:
    script = tmp_path / "s.jsonl"
    script.write_text("\n".join([SETUP, *lines]) + "\n", "utf-8")
    code, _, protocol, err = run(capsys, script, tmp_path, list(args))
    return code, protocol, err


def test_a_disqualification_is_taken_only_once_confirmed(tmp_path, capsys):
    code, protocol, _ = play(capsys, tmp_path, [host_line("дисквалификация 6"), host_line("подтверждаю")])
    assert code == 0 and [(e["seat"], e["cause"]) for e in protocol["eliminated"]] == [(6, "disqualified")]
    code, protocol, _ = play(capsys, tmp_path, [host_line("дисквалификация 6"), host_line("фол 3")])
    assert code == 0 and not any(e["seat"] == 6 for e in protocol["eliminated"])
    assert protocol["fouls"] == {"3": 1}


def test_undo_takes_the_last_host_input_back(tmp_path, capsys):
    code, protocol, _ = play(capsys, tmp_path, [host_line("фол третьему"), host_line("фол седьмому"),
                                                host_line("отмена")])
    assert code == 0 and protocol["fouls"] == {"3": 1}


def test_pause_and_resume_by_voice(tmp_path, capsys):
    code, protocol, _ = play(capsys, tmp_path, [host_line("пауза"), host_line("продолжаем"), host_line("стоп")])
    assert code == 0
    code, _, err = play(capsys, tmp_path, [host_line("продолжаем")])
    assert code == 2 and ":2:" in err and "not paused" in err


@pytest.mark.parametrize(("said", "why"), [
    ("подтверждаю", "nothing to confirm"),
    ("выстрел пятому", "night inputs are never taken by voice"),
    ("фол двенадцатому", "foul needs a seat"),
    ("фол 12", "must be a seat 1..10"),
    ("за седьмого четыре", "'votes' does not fit"),
])
def test_a_refused_command_is_an_error_of_its_line(said, why, tmp_path, capsys):
    code, protocol, err = play(capsys, tmp_path, [host_line("фол третьему"), host_line(said)])
    assert code == 2 and protocol == {}
    assert err.count("\n") == 1 and ":3:" in err and why in err, err


def test_host_speech_with_bad_words_is_refused_naming_the_line(tmp_path, capsys):
    code, _, err = play(capsys, tmp_path, ['{"type": "host_speech", "words": "фол 3"}'])
    assert code == 2 and ":2:" in err and "host_speech 'words'" in err


@pytest.mark.parametrize(("name", "heard"), [("fouls_and_removals", '"heard":["дисквалификация 10","подтверждаю"]'),
                                             ("tie_then_lift", '"heard":["поднять всех 6"]')])
def test_the_journal_keeps_the_hosts_words_and_replays_the_game(name, heard, tmp_path, capsys):
    journal = tmp_path / "game.jsonl"
    code, _, protocol, err = run(capsys, GAMES / "host" / f"{name}.jsonl", tmp_path, [*args_of(name), "--journal",
                                                                                     str(journal)])
    assert (code, err) == (0, "")
    text = journal.read_text("utf-8")
    assert heard in text
    assert main(["replay", str(journal), "--protocol", str(tmp_path / "replayed.json")]) == 0
    assert json.loads((tmp_path / "replayed.json").read_text("utf-8")) == protocol
