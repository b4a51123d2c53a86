"""A microphone per seat end to end: an 11-channel WAV through `voicehost run
--audio-file` (the real Korean model, espeak-ng's Russian as the table's
voice): the speaker's words are journaled as seat 1's, the neighbours' bleed
is nobody's, and a seat talking out of turn reaches the host as a suggestion."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.realparts import KO_TEXT, espeak_voice, table_settings, write_wav
from voicehost.journal import replay_entries

RATE = 16_000


@pytest.fixture(scope="module")
def seats_wav(tmp_path_factory) -> tuple[Path, float, float]:
    """12 s of room noise (night 1 and the start of seat 1's floor), seat 1's
    speech, 1 s, seat 5 talking out of turn (2 s and more), 3 s; each voice
    leaks into its neighbours' channels at -20 dB. Returns the file and
    where seat 5's talk starts and ends (audio seconds)."""
    folder = tmp_path_factory.mktemp("seats")
    speech = espeak_voice(folder, "speech", KO_TEXT)
    talk = espeak_voice(folder, "talk", "오늘 날씨가 좋네요 만나서 반갑습니다")
    assert len(talk) / RATE > 1.5
    start = 12.0
    talk_at = start + len(speech) / RATE + 1.0
    total = int((talk_at + len(talk) / RATE + 3.0) * RATE)
    dry = np.zeros((11, total), np.float32)   # channel 0: the host; channel k: seat k
    dry[1, int(start * RATE):int(start * RATE) + len(speech)] = speech
    dry[5, int(talk_at * RATE):int(talk_at * RATE) + len(talk)] = talk
    mixed = dry.copy()
    for seat in range(1, 11):
        for neighbour in (seat % 10 + 1, (seat - 2) % 10 + 1):
            mixed[neighbour] += 0.1 * dry[seat]
    mixed += np.random.default_rng(3).normal(0, 30, mixed.shape).astype(np.float32)
    return write_wav(folder / "seats.wav", mixed), talk_at, talk_at + len(talk) / RATE


def config(tmp: Path) -> Path:
    channels = "\n".join(f"{seat} = {seat + 1}" for seat in range(1, 11))
    return table_settings(tmp, f"[audio.channels]\nhost = 1\n{channels}")


def test_a_multichannel_recording_attributes_words_by_channel_and_flags_out_of_turn_speech(seats_wav, tmp_path):
    wav, talk_start, talk_end = seats_wav
    journal = tmp_path / "j.jsonl"
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--config", str(config(tmp_path)),
                           "--audio-file", str(wav), "--roles", "d4,m2,m7,s6", "--journal", str(journal)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Игрок номер 5 говорит не в свою очередь — фол?" in proc.stdout
    game, _, journaled = replay_entries(journal)
    entries = [e.event for e in journaled]
    words = [e for e in entries if e.get("type") == "word"]
    assert words, "the speaker's channel was heard"
    assert {w["seat"] for w in words} == {1}, "only the speaker's channel reaches the recognizer"
    (flag,) = [e for e in entries if e.get("type") == "out_of_turn"]
    assert flag["seat"] == 5
    # game time runs behind the audio by the night's start; seat 5 talked for the whole flagged span
    assert flag["end"] - flag["start"] > 0.7 and flag["start"] == round(flag["start"], 2)
    assert game.floor is not None and game.floor.seat == 1 and game.fouls[5] == 0, "a suggestion, never a foul"


@pytest.fixture
def four_channel_home(tmp_path: Path) -> Path:
    """A test-owned HOME whose ALSA `file` plugin microphone reads a raw
    4-channel recording: channel k holds the constant 1000 * k."""
    samples = np.zeros((44100 * 2, 4), np.int16)
    for k in range(4):
        samples[:, k] = 1000 * (k + 1)
    (tmp_path / "mic.raw").write_bytes(samples.tobytes())
    (tmp_path / ".asoundrc").write_text(f"""pcm.vhmic {{
    type file
    slave.pcm "null"
    file "/dev/null"
    infile "{tmp_path}/mic.raw"
    format "raw"
    hint {{ show on description "voicehost test microphone" }}
}}
""")
    (tmp_path / "config.toml").write_text('[audio]\ninput_device = "vhmic"\n[audio.channels]\nhost = 1\n1 = 2\n3 = 4\n'
                                          '4 = 9\n', "utf-8")
    return tmp_path


def test_every_mapped_channel_of_a_real_alsa_device_is_read_apart(four_channel_home):
    """Real PortAudio over ALSA: the mapped channels (host, seats 1 and 3)
    arrive each as its own 16 kHz mono stream; `voicehost devices` shows the
    device's channel count and names what each mapped channel reads."""
    import os

    env = {**os.environ, "HOME": str(four_channel_home)}
    code = """
import numpy as np
from voicehost.audio import ChannelMicrophone
from voicehost.channels import parse_channels
mic = ChannelMicrophone(parse_channels({"host": 1, "1": 2, "3": 4}, "test"), "vhmic")
for i, frame in enumerate(mic.frames()):
    if i == 3:
        print(sorted((c.who, int(np.frombuffer(p, "<i2").mean()), len(p)) for c, p in frame.items()))
        break
mic.close()
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[('1', 2000, 1280), ('3', 4000, 1280), ('host', 1000, 1280)]"
    listed = subprocess.run([sys.executable, "-m", "voicehost", "devices", "--config",
                             str(four_channel_home / "config.toml")], capture_output=True, text=True, env=env,
                            timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert "host: input 1 of vhmic" in listed.stdout and "3: input 4 of vhmic" in listed.stdout
    assert "4: input 9 of vhmic" in listed.stdout
    (line,) = [line for line in listed.stdout.splitlines() if line.endswith("Hz)") and "vhmic" in line]
    assert "(in " in line and " channels" in line, "each device with its channel counts"
