"""`voicehost simulate`: output format, and bad scripts (exit 2, one line
naming the script line and the phase, no protocol written)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import GAMES, ROLES
from voicehost.cli import main

SETUP = json.dumps({"type": "setup", "roles": ROLES})
NOMINATE_7 = ('{"type": "speech", "seat": 1, "words": [{"word": "выставляю", "start": 1, "end": 1.5}, '
              '{"word": "семь", "start": 1.6, "end": 2}]}')
NOMINATE_3 = ('{"type": "speech", "seat": 2, "words": [{"word": "выставляю", "start": 1, "end": 1.5}, '
              '{"word": "три", "start": 1.6, "end": 2}]}')


def test_output_is_announcements_as_json_lines(capsys):
    assert main(["simulate", str(GAMES / "red_wins_by_votes.jsonl")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"t": 0.0, "say": "Наступает ночь"}
    assert all(set(line) <= {"t", "say", "private"} for line in lines)
    assert any(line.get("private") is True for line in lines)


def test_script_ending_mid_game_runs_on_to_the_next_needed_input(tmp_path, capsys):
    script = tmp_path / "s.jsonl"
    script.write_text(SETUP + "\n", "utf-8")
    proto = tmp_path / "p.json"
    assert main(["simulate", str(script), "--protocol", str(proto)]) == 0
    said = [json.loads(line)["say"] for line in capsys.readouterr().out.splitlines()]
    assert said[-1] == "10" and "Никто не выставлен, голосования не будет" in said
    assert json.loads(proto.read_text("utf-8"))["winner"] is None


BAD = {
    "malformed-json": ([SETUP, "{nope"], ":2:", "malformed JSON"),
    "unknown-type": ([SETUP, '{"type": "dance"}'], ":2", "unknown event type"),
    "not-setup-first": (['{"type": "shot", "seat": 1}'], ":1", "setup"),
    "bad-roles": (['{"type": "setup", "roles": {"1": "mafia"}}'], ":1", "lacks roles"),
    "wrong-role-counts": ([json.dumps({"type": "setup", "roles": {str(s): "citizen" for s in range(1, 11)}})],
                          ":1", "6 citizen"),
    "unknown-seat": ([SETUP, '{"type": "foul", "seat": 11}'], ":2", "seat 1..10"),
    "dead-seat": ([SETUP, '{"type": "shot", "seat": 5}', '{"type": "foul", "seat": 5}',
                   '{"type": "shot", "seat": null}', '{"type": "foul", "seat": 5}'], ":5", "not in the game"),
    "tally-exceeds-alive": ([SETUP, NOMINATE_7, NOMINATE_3,
                             '{"type": "votes", "counts": {"7": 11}}'], ":4", "more than the 10"),
    "passing-a-needed-tally": ([SETUP, NOMINATE_7, NOMINATE_3,
                                '{"type": "shot", "seat": 4}'], ":4", "'votes'"),
    "after-game-over": ([SETUP, '{"type": "leave_table", "seat": 6}', '{"type": "foul", "seat": 1}'], ":3",
                        "game is over"),
    "dead-role-checks": ([SETUP, '{"type": "shot", "seat": 6}', '{"type": "shot", "seat": null}',
                          '{"type": "sheriff_check", "seat": 2}'], ":4", "sheriff is out"),
}


@pytest.mark.parametrize("lines,where,needle", BAD.values(), ids=BAD.keys())
def test_bad_script(lines, where, needle, tmp_path):
    script, proto = tmp_path / "bad.jsonl", tmp_path / "p.json"
    script.write_text("\n".join(lines) + "\n", "utf-8")
    proc = subprocess.run([sys.executable, "-m", "voicehost", "simulate", str(script),
                           "--protocol", str(proto), "--journal", str(tmp_path / "j.jsonl")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert where in line and needle in line and "phase" in line
    assert not proto.exists() and not (tmp_path / "j.jsonl").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.jsonl"]


def test_missing_script_is_one_line():
    proc = subprocess.run([sys.executable, "-m", "voicehost", "simulate", "/nonexistent.jsonl"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_spec_6_1_every_protocol_has_roles_and_players(tmp_path, capsys):
    script = tmp_path / "s.jsonl"
    names = {"type": "names", "names": {"1": "Алиса", "10": "Вера Павловна"}}
    script.write_text("\n".join([SETUP, json.dumps(names, ensure_ascii=False)]) + "\n", "utf-8")
    proto = tmp_path / "p.json"
    assert main(["simulate", str(script), "--protocol", str(proto)]) == 0
    data = json.loads(proto.read_text("utf-8"))
    assert data["roles"] == json.loads(SETUP)["roles"]
    assert data["players"] == {**{str(s): str(s) for s in range(1, 11)}, "1": "Алиса", "10": "Вера Павловна"}


def test_spec_5_simulate_says_the_sheriff_sleeps_at_the_end_of_the_window(tmp_path, capsys):
    script = tmp_path / "s.jsonl"
    script.write_text("\n".join([SETUP, '{"type": "shot", "seat": null}', '{"type": "sheriff_check", "seat": 2}'])
                      + "\n", "utf-8")
    assert main(["simulate", str(script)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    woke = [line["t"] for line in lines if line["say"] == "Просыпается Шериф"][1]
    slept = [line["t"] for line in lines if line["say"] == "Шериф засыпает"][1]
    assert slept - woke == 10.0
