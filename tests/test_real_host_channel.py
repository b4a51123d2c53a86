"""SPEC §7.2 end to end with a real model: an 11-channel recording through
`voicehost run --audio-file`, the host's channel carrying spoken commands
that pause the game, foul seat 3 and undo the foul; and one microphone with
a wake word. No Russian model can be
had here, so the real Korean model hears Korean stand-ins (as the latency
bench's fixture does, tools/latency_fixture.py), given to the table as a
club's host grammar over the shipped one: "라디오" is "пауза", "게임" is
"фол", "어제" is seat 3, "버스" is "отмена"."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.realparts import KO_MODEL, write_wav
from tools.latency_fixture import _espeak
from voicehost.journal import replay_entries

RATE = 16_000
COMMANDS = [(5.0, "라디오"), (8.0, "게임 어제"), (11.5, "버스")]   # pause, foul 3, undo (audio seconds)
NUMBERS = "\n".join(f'[{seat}]\ncardinal = ["{word}"]\nordinal = ["{word}{seat}"]\n'
                    for seat, word in zip(range(1, 11), ["하나", "둘", "어제", "넷", "다섯", "여섯", "일곱", "여덟",
                                                         "아홉", "열"], strict=True))
HOST = """
numbers = "numbers.ko.toml"
[controls]
pause = ["라디오"]
resume = ["라모"]
next = ["다음"]
undo = ["버스"]
confirm = ["확인"]
[seat_commands]
foul = ["게임"]
disqualify = ["실격"]
best_player = ["최고"]
worst_player = ["최악"]
[votes]
each = ["표"]
lift = ["모두"]
[words]
before_seat = ["번호"]
after_count = ["투표"]
zero = ["영"]
night = ["총"]
"""


def recording(folder: Path) -> Path:
    total = int(15.0 * RATE)
    mixed = np.random.default_rng(5).normal(0, 30, (11, total)).astype(np.float32)   # channel 0: the host
    for at, text in COMMANDS:
        voice = _espeak(text, 150)
        mixed[0, int(at * RATE):int(at * RATE) + len(voice)] += voice
    return write_wav(folder / "host.wav", mixed)


def config(tmp: Path) -> Path:
    club = tmp / "grammars"
    club.mkdir()
    (club / "host.ru.toml").write_text(HOST, "utf-8")
    (club / "numbers.ko.toml").write_text(NUMBERS, "utf-8")
    channels = "\n".join(f"{seat} = {seat + 1}" for seat in range(1, 11))
    path = tmp / "config.toml"
    path.write_text(f"""
ruleset = "4mafia"
grammars_dir = "{club}"
[audio]
out_of_turn_ms = 700
[audio.channels]
host = 1
{channels}
[asr]
model = "{KO_MODEL}"
[tts]
voice = "{tmp / 'no-such-voice.onnx'}"
[rules]
mafia_meet_seconds = 3.0
speech_seconds = 60.0
warning_seconds = 0.0
""", "utf-8")
    return path


def test_the_host_pauses_fouls_and_undoes_by_voice_on_the_host_channel(tmp_path):
    journal = tmp_path / "j.jsonl"
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--config", str(config(tmp_path)),
                           "--audio-file", str(recording(tmp_path)), "--roles", "d4,m2,m7,s6",
                           "--journal", str(journal)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Ведущий: пауза" in out and "Ведущий: фол игроку 3" in out, out
    said_back = next(line for line in out.splitlines() if "Ведущий: фол игроку 3" in line)
    assert "(только ведущему)" in said_back, "confirmed privately on the host's channel"
    assert "Отмена: фол игроку 3" in out, out
    game, _, entries = replay_entries(journal)
    heard = [e.event for e in entries if "heard" in e.event]
    assert heard == [{"type": "pause", "heard": ["라디오"]}], heard   # the foul was taken back
    assert game.paused_at is not None and game.fouls[3] == 0
    assert '"heard":["게임 어제"]' in journal.read_text("utf-8") and '"heard":["버스"]' in journal.read_text("utf-8")


def test_behind_the_wake_word_on_one_microphone_said_back_aloud_and_undone_within_ten_seconds(tmp_path):
    """One microphone, `[host] wake_word` = "라모" (the stand-in of "ведущий"): "라모 라디오"
    pauses and is said back aloud; "게임 어제" without the wake word is table talk;
    a bare "버스" within 10 s takes the pause back."""
    total = int(16.0 * RATE)
    mono = np.random.default_rng(6).normal(0, 30, total).astype(np.float32)
    for at, text in [(5.0, "라모 라디오"), (8.5, "게임 어제"), (11.5, "버스")]:
        voice = _espeak(text, 150)
        mono[int(at * RATE):int(at * RATE) + len(voice)] += voice
    wav_path = write_wav(tmp_path / "table.wav", mono)
    path = config(tmp_path)
    text = path.read_text("utf-8")
    text = text[:text.index("[audio]")] + '[host]\nwake_word = "라모"\n' + text[text.index("[asr]"):]
    path.write_text(text, "utf-8")
    journal = tmp_path / "j.jsonl"
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--config", str(path), "--audio-file",
                           str(wav_path), "--roles", "d4,m2,m7,s6", "--journal", str(journal)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Ведущий: пауза" in proc.stdout and "Отмена: пауза" in proc.stdout, proc.stdout
    said_back = next(line for line in proc.stdout.splitlines() if "Ведущий: пауза" in line)
    assert "(только ведущему)" not in said_back, "said aloud on the table, not in the earpiece"
    assert "фол игроку 3" not in proc.stdout
    game, _, _ = replay_entries(journal)
    assert game.paused_at is None and game.fouls[3] == 0
    assert '"heard":["라모 라디오"]' in journal.read_text("utf-8")
