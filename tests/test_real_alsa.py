"""PyAudio capture and playback through ALSA: a test-owned HOME whose
.asoundrc defines a `file` plugin microphone (reading a raw file) and a
speaker (writing one), so PortAudio lists and opens them like real devices."""
from __future__ import annotations

import math
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

RATE = 44100


@pytest.fixture
def alsa_home(tmp_path: Path) -> Path:
    tone = b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / RATE)))
                    for i in range(RATE * 2))
    (tmp_path / "mic.raw").write_bytes(tone)
    (tmp_path / ".asoundrc").write_text(textwrap.dedent(f"""\
        pcm.vhmic {{
            type file
            slave.pcm "null"
            file "/dev/null"
            infile "{tmp_path}/mic.raw"
            format "raw"
            hint {{ show on description "voicehost test microphone" }}
        }}
        pcm.vhspeaker {{
            type file
            slave.pcm "null"
            file "{tmp_path}/speaker.raw"
            format "raw"
            hint {{ show on description "voicehost test speaker" }}
        }}
        """))
    return tmp_path


def run_python(home: Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, "HOME": str(home)}, timeout=120)


def test_devices_are_listed(alsa_home):
    proc = subprocess.run([sys.executable, "-m", "voicehost", "devices"], capture_output=True, text=True,
                          env={**os.environ, "HOME": str(alsa_home)}, timeout=60)
    assert proc.returncode == 0
    assert "vhmic" in proc.stdout and "vhspeaker" in proc.stdout
    assert "ALSA lib" not in proc.stdout + proc.stderr  # native chatter kept off the terminal


def test_capture_resamples_to_16k_mono(alsa_home):
    proc = run_python(alsa_home, """
        from voicehost.audio import MicrophoneSource
        mic = MicrophoneSource("vhmic")
        data = b""
        for i, chunk in enumerate(mic.chunks()):
            data += chunk
            if i == 24:
                break
        mic.close()
        open("captured.raw", "wb").write(data)
        print(mic.rate)
    """.replace("captured.raw", str(alsa_home / "captured.raw")))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(RATE)
    captured = np.frombuffer((alsa_home / "captured.raw").read_bytes(), dtype="<i2")
    assert len(captured) == 16000  # twenty-five 40 ms chunks at 16 kHz
    spectrum = np.abs(np.fft.rfft(captured))
    assert abs(np.argmax(spectrum) * 16000 / len(captured) - 440) < 5  # the 440 Hz tone survived


def test_playback_reaches_the_device(alsa_home):
    proc = run_python(alsa_home, """
        from voicehost.audio import Clip, SpeakerSink
        sink = SpeakerSink("vhspeaker")
        sink.play(Clip(b"\\x10\\x00" * 22050, 22050))
        sink.close()
    """)
    assert proc.returncode == 0, proc.stderr
    written = (alsa_home / "speaker.raw").read_bytes()
    assert written == b"\x10\x00" * 22050


def test_unknown_device_is_one_clear_line(alsa_home):
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--audio-file", "/nonexistent.wav"],
                          capture_output=True, text=True, env={**os.environ, "HOME": str(alsa_home)},
                          timeout=60)
    assert proc.returncode == 2
    proc = run_python(alsa_home, """
        from voicehost.audio import MicrophoneSource, AudioError
        try:
            MicrophoneSource("no such mic")
        except AudioError as exc:
            print(exc)
    """)
    assert "no input device 'no such mic'" in proc.stdout and "vhmic" in proc.stdout


def _config_with_model(tmp_path: Path, device: str = "") -> Path:
    from tests.realparts import KO_MODEL

    path = tmp_path / "config.toml"
    path.write_text(f'[asr]\nmodel = "{KO_MODEL}"\n[audio]\ninput_device = "{device}"\n', "utf-8")
    return path


@pytest.mark.parametrize("device,needle", [("", "no microphone found"), ("studio mic", "no input device 'studio mic'")])
def test_run_without_the_microphone_is_one_line(device, needle, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    config = _config_with_model(tmp_path, device)
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--config", str(config),
                           "--journal", str(tmp_path / "j.jsonl")],
                          capture_output=True, text=True, env={**os.environ, "HOME": str(home)}, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert needle in line and "devices" in line
    assert not (tmp_path / "j.jsonl").exists()


def test_run_on_a_bare_machine_plays_typed_and_in_print(tmp_path):
    """No speech model, no sound card: the main command still starts a game."""
    home = tmp_path / "home"
    home.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(f'[asr]\nmodel = "{tmp_path / "none"}"\n[tts]\nvoice = "{tmp_path / "none.onnx"}"\n')
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--config", str(config),
                           "--journal", str(tmp_path / "j.jsonl")],
                          input="/roles d4 m2 m7 s6\n<80>\nвыставляю седьмого спасибо\n/quit\n",
                          capture_output=True, text=True, env={**os.environ, "HOME": str(home)}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "voicehost models download" in proc.stdout
    assert "Динамик не найден" in proc.stdout and "объявления будут только на экране" in proc.stdout
    assert "[01:20] Принят номер 7" in proc.stdout
