"""Whole games: every script in tests/games/ through `voicehost simulate`,
checked against its hand-written expectation (NAME.expect.json)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import GAMES
from tests.gameparts import moderator_outputs
from voicehost.cli import main

SCRIPTS = sorted(GAMES.glob("*.jsonl"))


def simulate(capsys, script: Path, tmp_path: Path, args: list[str]) -> tuple[list[dict], dict]:
    protocol = tmp_path / "protocol.json"
    code = main(["simulate", str(script), "--protocol", str(protocol), *args])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return [json.loads(line) for line in out.splitlines()], json.loads(protocol.read_text("utf-8"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_game_script(script, tmp_path, capsys):
    expect = json.loads(script.with_suffix(".expect.json").read_text("utf-8"))
    said, protocol = simulate(capsys, script, tmp_path, expect["args"])
    for key, value in expect["protocol"].items():
        assert protocol[key] == value, key
    public = [s["say"] for s in said if not s.get("private")]
    private = [s["say"] for s in said if s.get("private")]
    for text in expect.get("say_contains", []):
        assert text in public, text
    for text in expect.get("say_excludes", []):
        assert text not in public, text
    for text in expect.get("private", []):
        assert text in private and text not in public, text
    # The CLI prints announcements sorted by time; the moderator itself must emit them in order.
    times = [o.t for o in moderator_outputs(script, expect["args"])]
    assert times == sorted(times)


def test_scripts_cover_every_cause_and_winner(tmp_path, capsys):
    """Played, not grepped: the protocols the scripts produce hold every cause and winner."""
    causes, winners = set(), set()
    for script in SCRIPTS:
        expect = json.loads(script.with_suffix(".expect.json").read_text("utf-8"))
        _, protocol = simulate(capsys, script, tmp_path, expect["args"])
        causes |= {e["cause"] for e in protocol["eliminated"]}
        winners.add(protocol["winner"])
    assert {"vote", "lift", "shot", "fouls", "disqualified", "left_table", "commissar", "maniac"} <= causes
    assert {"red", "black", "draw", "city", "mafia"} <= winners
