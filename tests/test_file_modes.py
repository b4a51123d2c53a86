"""Issue 30, item 3: every file that holds roles or answers is its owner's alone
(0600): the live journals of `run --text` and `run --serve` (they were 0644) and
everything beside them, an older journal resumed, and every other writer
(protocols and their CSV, exports, simulate's journal, a series' files)."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GAMES
from voicehost.cli import main

GAME = GAMES / "red_wins_by_votes.jsonl"
PLAYERS = "Алиса, Борис, Вера, Глеб, Даша, Егор, Жанна, Захар, Ира, Кирилл"


def _modes(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.rglob("*") if p.is_file()}


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute", *args],
                          input="/roles d4 m2 m7 s6\n/foul 3\n/quit\n", capture_output=True, text=True,
                          timeout=60, env={**os.environ, "HOME": str(tmp)})


@pytest.mark.parametrize("serve", [[], ["--serve", "--port", "0"]], ids=["text", "serve"])
def test_a_live_games_journal_and_every_file_beside_it_are_0600(tmp_path, serve):
    games = tmp_path / "games"
    games.mkdir()
    proc = _run(tmp_path, "--journal", str(games / "g.jsonl"), *serve)
    assert proc.returncode == 0, proc.stderr
    modes = _modes(games)
    assert {"g.jsonl", "g.jsonl.key"} <= set(modes), modes
    assert set(modes.values()) == {0o600}, modes


def test_an_older_journal_made_0644_is_0600_once_resumed(tmp_path):
    journal = tmp_path / "g.jsonl"
    assert _run(tmp_path, "--journal", str(journal)).returncode == 0
    os.chmod(journal, 0o644)
    proc = _run(tmp_path, "--resume", str(journal))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600


def test_simulate_export_and_a_series_write_their_files_0600(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    journal, protocol = out / "g.jsonl", out / "g.protocol.json"
    assert main(["simulate", str(GAME), "--journal", str(journal), "--protocol", str(protocol)]) == 0
    assert main(["export", str(journal), "--format", "polemica", "-o", str(out / "g.polemica.json")]) == 0
    config = tmp_path / "config.toml"
    config.write_text(f'series_dir = "{tmp_path / "series"}"\n', "utf-8")
    assert main(["series", "new", "club", "--players", PLAYERS, "--config", str(config)]) == 0
    assert main(["series", "add", "club", str(protocol), "--config", str(config)]) == 0
    capsys.readouterr()
    modes = {**_modes(out), **{f"series/{k}": v for k, v in _modes(tmp_path / "series").items()}}
    assert len(modes) >= 6 and set(modes.values()) == {0o600}, modes
