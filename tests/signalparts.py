"""Signals for the seat and array tests: real speech (the Korean fixture) and
room noise, as 16-bit samples."""
from __future__ import annotations

import numpy as np

from tools.latency_fixture import FIXTURE
from voicehost.audio import read_wav


def speech(seconds: float, start: float = 1.0) -> np.ndarray:
    """Real speech (the Korean fixture) as 16-bit samples."""
    samples = np.frombuffer(read_wav(FIXTURE).pcm, dtype="<i2")
    return samples[int(start * 16000):int((start + seconds) * 16000)].astype(np.int16)


def quiet(seconds: float) -> np.ndarray:
    return (np.random.default_rng(1).normal(0, 20, int(seconds * 16000))).astype(np.int16)
