"""The whole loop end to end: a recorded WAV game through `voicehost run
--audio-file` (real Vosk model, real Piper voice) to a recorded table output,
a journal and a protocol; and the one-line errors of that path."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.realparts import JOE_VOICE, KO_MODEL, KO_TEXT, espeak_wav
from voicehost.audio import read_wav


def config(tmp: Path, model: Path = KO_MODEL, voice: Path | None = None) -> Path:
    """The Korean model listens; the voice is espeak-ng's Russian (no Russian
    Piper voice can be had here), unless `voice` names a Piper one."""
    path = tmp / "config.toml"
    path.write_text(f"""
ruleset = "4mafia"
[asr]
model = "{model}"
[tts]
voice = "{voice or tmp / 'no-such-voice.onnx'}"
[rules]
mafia_meet_seconds = 3.0
don_seconds = 1.0
sheriff_seconds = 1.0
speech_seconds = 20.0
warning_seconds = 0.0
""", "utf-8")
    return path


@pytest.fixture(scope="module")
def game_wav(tmp_path_factory) -> Path:
    """12 s of silence (night 1 and the start of seat 1's floor, while the
    moderator is still talking), then speech in seat 1's floor, then silence."""
    folder = tmp_path_factory.mktemp("wav")
    speech = espeak_wav(folder / "speech.wav", KO_TEXT, "ko")
    out = folder / "game.wav"
    subprocess.run(["sox", "-n", "-r", "22050", "-c", "1", str(folder / "pad.wav"), "trim", "0", "12"],
                   check=True, timeout=60)
    subprocess.run(["sox", str(folder / "pad.wav"), str(speech), str(folder / "pad.wav"), str(out)],
                   check=True, timeout=60)
    return out


def voicehost(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "voicehost", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_recorded_game_plays_through_to_a_recorded_output(game_wav, tmp_path):
    host = tmp_path / "host.jsonl"
    host.write_text(json.dumps({"type": "foul", "seat": 3}) + "\n", "utf-8")
    record, protocol, journal = tmp_path / "table.wav", tmp_path / "p.json", tmp_path / "j.jsonl"
    proc = voicehost("run", "--config", str(config(tmp_path)), "--audio-file", str(game_wav),
                     "--roles", "d4,m2,m7,s6", "--host-script", str(host), "--record", str(record),
                     "--protocol", str(protocol), "--journal", str(journal))
    assert proc.returncode == 0, proc.stderr
    assert "Слово игроку номер 1" in proc.stdout and "Слово игроку номер 2" in proc.stdout
    from voicehost.journal import scan_file  # the journal's own reader: lines are checked, words compact

    words = [e["event"] for _, e in scan_file(journal).entries if e["event"]["type"] == "word"]
    assert words, "the recognizer's words reach the moderator"
    assert all(12.0 <= w["start"] <= 17.0 for w in words), [w["start"] for w in words]
    assert read_wav(record).seconds > 3.0  # the announcements were spoken into the recording
    assert "запасной голос espeak-ng" in proc.stdout  # it told the host, in Russian, why it fell back
    assert json.loads(protocol.read_text("utf-8"))["fouls"] == {"3": 1}
    assert "игра не окончена" in proc.stdout
    assert " INFO " not in proc.stderr, "without -v the log keeps to warnings"


def test_piper_voice_speaks_the_loop(game_wav, tmp_path):
    record = tmp_path / "table.wav"
    proc = voicehost("-v", "run", "--config", str(config(tmp_path, voice=JOE_VOICE)), "--audio-file", str(game_wav),
                     "--roles", "d4,m2,m7,s6", "--record", str(record), "--journal", str(tmp_path / "j.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert read_wav(record).seconds > 10.0 and "espeak-ng" not in proc.stderr
    # -v: what the table chose and why, in the log on stderr
    assert "INFO voicehost.asr.factory: listening with the grammar recognizer" in proc.stderr
    assert "[asr] captions is auto" in proc.stderr


def test_wav_of_the_wrong_format_is_one_line(tmp_path):
    bogus = tmp_path / "game.wav"
    bogus.write_text("not audio")
    proc = voicehost("run", "--config", str(config(tmp_path)), "--audio-file", str(bogus))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "not a PCM WAV file" in line and "sox" in line
    assert not list(tmp_path.glob("journals/*")), "nothing is journaled for a run that did not start"


def test_missing_model_folder_is_one_line(game_wav, tmp_path):
    proc = voicehost("run", "--config", str(config(tmp_path, tmp_path / "none")), "--audio-file", str(game_wav))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "no speech model" in line and "voicehost models download" in line
