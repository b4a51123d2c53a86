"""Paths are checked before the game, not after it; an unexpected error is one
line that names the journal and leaves it untouched (issue 8, items 8 and 11)."""
from __future__ import annotations

import os
import struct
import time
from pathlib import Path

import pytest

from tests.conftest import GAMES
from voicehost import cli, files
from voicehost.cli import main

GAME = str(GAMES / "red_wins_by_votes.jsonl")


def _refused(capsys, argv: list[str], needle: str) -> str:
    started = time.monotonic()
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and needle in captured.err, captured.err
    assert time.monotonic() - started < 5      # refused up front, not after a game
    return captured.err


def test_simulate_protocol_in_a_missing_folder_is_refused_before_the_game(tmp_path, capsys):
    _refused(capsys, ["simulate", GAME, "--protocol", str(tmp_path / "nodir" / "p.json")],
             "the folder")
    _refused(capsys, ["simulate", GAME, "--journal", str(tmp_path / "nodir" / "j.jsonl")], "does not exist")
    _refused(capsys, ["simulate", GAME, "--protocol", str(tmp_path)], "is a folder")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("flag", ["--protocol", "--record", "--journal"])
def test_run_outputs_in_missing_folders_are_refused_at_start(flag, tmp_path, capsys):
    _refused(capsys, ["run", "--text", "--mute", flag, str(tmp_path / "nodir" / "x.out")],
             f"{flag} {tmp_path / 'nodir' / 'x.out'}: the folder")


def test_a_fifo_is_refused_as_journal_audio_and_script(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _refused(capsys, ["run", "--text", "--mute", "--journal", str(fifo)], "not a regular file")
    _refused(capsys, ["run", "--audio-file", str(fifo)], "not a regular file")
    _refused(capsys, ["run", "--text", "--mute", "--resume", str(fifo)], "not a regular file")
    _refused(capsys, ["simulate", str(fifo)], "not a regular file")
    _refused(capsys, ["replay", str(fifo)], "not a regular file")
    _refused(capsys, ["check-phrase", str(fifo)], "not a regular file")


def _wav(path: Path, rate: int, channels: int, width: int = 2) -> Path:
    data = b"\x00\x00" * 160
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels * width, channels * width, width * 8)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


@pytest.mark.parametrize("rate,channels", [(0, 1), (16000, 0)])
def test_a_wav_with_zero_rate_or_channels_is_refused(rate, channels, tmp_path, capsys):
    wav = _wav(tmp_path / "game.wav", rate, channels)
    with pytest.raises(cli.InputError, match="--audio-file .*game.wav"):
        files.wav_file(wav, "--audio-file")


def test_a_good_wav_passes_the_check(tmp_path):
    files.wav_file(_wav(tmp_path / "ok.wav", 16000, 1), "--audio-file")


def test_an_unexpected_error_is_one_line_naming_the_journal_which_is_untouched(tmp_path, capsys, monkeypatch):
    from voicehost.journal import Journal
    from voicehost.rules import rules_for

    path = tmp_path / "game.jsonl"
    before: list[bytes] = []

    def broken(args):
        journal = Journal(path, rules_for("4mafia"))
        before.append(path.read_bytes())
        journal.close()
        return {}["no such key"]   # a bug deep inside

    monkeypatch.setitem(cli.COMMANDS, "run", broken)
    monkeypatch.delenv("VOICEHOST_DEBUG", raising=False)
    assert main(["run", "--text", "--mute"]) == 70
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert "internal error" in captured.err and "KeyError" in captured.err
    assert f"journal is kept at {path}" in captured.err
    assert path.read_bytes() == before[0]


def test_an_extensible_wav_passes_the_check(tmp_path):
    wav = _wav(tmp_path / "ext.wav", 16000, 1)
    data = bytearray(wav.read_bytes())
    data[20:22] = struct.pack("<H", 0xFFFE)          # WAVE_FORMAT_EXTENSIBLE, as sox writes
    wav.write_bytes(bytes(data))
    files.wav_file(wav, "--audio-file")


def test_verbose_is_taken_before_and_after_the_command():
    """Issue 30: `voicehost run -v` was refused; only `voicehost -v run` worked."""
    from voicehost.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["run", "-v", "--text"]).verbose is True
    assert parser.parse_args(["-v", "run", "--text"]).verbose is True
    assert parser.parse_args(["run", "--text"]).verbose is False
    assert parser.parse_args(["standings", "vecher", "--verbose"]).verbose is True
