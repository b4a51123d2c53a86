"""A microphone array end to end, in a simulated room (pyroomacoustics): the
calibration walk recorded and measured by `voicehost calibrate --audio-file`,
then a game's 6-channel recording through `voicehost run --audio-file` (the
real Korean model, espeak-ng's Russian as the table's voice): the speaker's
words are journaled as seat 1's with their direction, and a seat talking out
of turn from across the table reaches the host as a suggestion."""
from __future__ import annotations

import math
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from tests.realparts import KO_TEXT, espeak_voice, table_settings, write_wav
from voicehost.array import PRESETS
from voicehost.journal import replay_entries

pra = pytest.importorskip("pyroomacoustics")   # the [live] extra: scripts/setup installs it
RATE = 16_000
SIX = PRESETS["respeaker-6"]
CENTRE = np.array([3.0, 2.5, 0.8])


def seat_angle(seat: int) -> float:
    return (90.0 + 36.0 * (seat - 1)) % 360   # seat 1 in front of the array's y axis, then round


def record(path: Path, talks: list[tuple[int, float, np.ndarray]], seconds: float) -> Path:
    """Seats talking in a 6 x 5 x 3 m room, heard by a ReSpeaker 6-mic array, as a 6-channel WAV."""
    room = pra.ShoeBox([6.0, 5.0, 3.0], fs=RATE, materials=pra.Material(0.4), max_order=6)
    room.add_microphone_array(np.array([[CENTRE[0] + x, CENTRE[1] + y, CENTRE[2]] for x, y in SIX.mics]).T)
    for seat, start, signal in talks:
        angle = math.radians(seat_angle(seat))
        room.add_source([CENTRE[0] + 1.3 * math.cos(angle), CENTRE[1] + 1.3 * math.sin(angle), 1.2],
                        signal=signal.astype(np.float64), delay=start)
    room.simulate()
    out = np.zeros((6, int(seconds * RATE)))
    signals = room.mic_array.signals[:, :out.shape[1]]
    out[:, :signals.shape[1]] = signals
    out += np.random.default_rng(3).normal(0, 30, out.shape)
    return write_wav(path, out)


def settings(tmp: Path) -> Path:
    return table_settings(tmp, 'array = "respeaker-6"')


def test_the_walk_measures_every_seat_and_a_game_places_words_by_their_direction(tmp_path):
    config = settings(tmp_path)
    talk = espeak_voice(tmp_path, "talk", "오늘 날씨가 좋네요 만나서 반갑습니다")
    every = len(talk) / RATE + 1.5   # each seat's phrase, then a pause
    walk = record(tmp_path / "walk.wav", [(seat, 0.5 + every * (seat - 1), talk) for seat in range(1, 11)],
                  1.0 + 10 * every)
    proc = subprocess.run([sys.executable, "-m", "voicehost", "calibrate", "--config", str(config), "--audio-file",
                           str(walk), "--mute"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Место номер 1, скажите: раз, два, три, четыре, пять" in proc.stdout
    assert f"Направления 10 мест записаны в {config}" in proc.stdout
    angles = tomllib.loads(config.read_text("utf-8"))["table"]["seats"]
    assert sorted(angles, key=int) == [str(s) for s in range(1, 11)]
    assert all(abs((angles[str(s)] - seat_angle(s) + 180) % 360 - 180) <= 6 for s in range(1, 11)), angles
    assert 'array = "respeaker-6"' in config.read_text("utf-8")   # the rest of the settings kept

    speech = espeak_voice(tmp_path, "speech", KO_TEXT)
    talk_at = 12.0 + len(speech) / RATE + 1.0
    game = record(tmp_path / "game.wav", [(1, 12.0, speech), (6, talk_at, talk)], talk_at + len(talk) / RATE + 3.0)
    journal = tmp_path / "j.jsonl"
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--config", str(config), "--audio-file",
                           str(game), "--roles", "d4,m2,m7,s6", "--journal", str(journal)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Игрок номер 6 говорит не в свою очередь — фол?" in proc.stdout
    played, _, journaled = replay_entries(journal)
    words = [e.event for e in journaled if e.event.get("type") == "word"]
    speakers = [w for w in words if w.get("seat") == 1]
    assert speakers, "the speaker's words were heard from the speaker's direction"
    assert all(abs((w["angle"] - angles["1"] + 180) % 360 - 180) <= 20 for w in speakers)
    assert all("angle" in w for w in words) and {w.get("seat") for w in words} <= {1, 6, None}
    assert played.floor is not None and played.floor.seat == 1 and played.fouls[6] == 0, "a suggestion, never a foul"
