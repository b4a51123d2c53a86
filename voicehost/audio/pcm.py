"""Audio as streams of chunks: 16 kHz mono 16-bit PCM (what the recognizer
takes), a clip, a frame of every mapped channel, and the shapes of a source
and a sink; a WAV file (wavfile.py) and a microphone (devices.py) are two
sources of the same thing."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from voicehost.channels import Channel
from voicehost.errors import VoicehostError

RATE = 16_000  # what the recognizer takes: 16 kHz, mono, 16-bit


CHUNK_SECONDS = 0.04  # 40 ms: the text partial follows the audio this closely


class AudioError(VoicehostError):
    """A device or file that cannot give or take audio."""


@dataclass(frozen=True)
class Clip:
    """Mono 16-bit PCM."""

    pcm: bytes
    rate: int

    @property
    def seconds(self) -> float:
        return len(self.pcm) / 2 / self.rate


def to_mono16(pcm: bytes, rate: int, channels: int, width: int, target: int = RATE) -> bytes:
    """Mix to mono and resample (linear interpolation) to `target` Hz, 16-bit."""
    if width == 2:
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32)
    elif width == 1:
        samples = (np.frombuffer(pcm, dtype=np.uint8).astype(np.float32) - 128.0) * 256.0
    elif width == 4:
        samples = np.frombuffer(pcm, dtype="<i4").astype(np.float32) / 65536.0
    else:
        raise AudioError(f"unsupported sample width: {width * 8} bit")
    if channels > 1:
        samples = samples[: len(samples) - len(samples) % channels].reshape(-1, channels).mean(axis=1)
    if rate != target and len(samples):
        count = max(1, int(round(len(samples) * target / rate)))
        positions = np.linspace(0, len(samples) - 1, count)
        samples = np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)
    return np.clip(samples, -32768, 32767).astype("<i2").tobytes()


class Source(Protocol):
    """Yields 16 kHz mono 16-bit chunks until the audio ends."""

    def chunks(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


Frame = dict[Channel, bytes]   # one chunk of every mapped channel, each 16 kHz mono 16-bit


class ChannelSource(Protocol):
    """Yields one `Frame` per chunk until the audio ends (a microphone per seat)."""

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


def split_channels(pcm: bytes, rate: int, channels: int, width: int, wanted: dict[int, Channel]) -> Frame:
    """The `wanted` channels (numbered from 1) of interleaved PCM, each as 16 kHz mono 16-bit."""
    dtype = {1: "u1", 2: "<i2", 4: "<i4"}.get(width)
    if dtype is None:
        raise AudioError(f"unsupported sample width: {width * 8} bit")
    usable = len(pcm) - len(pcm) % (channels * width)
    samples = np.frombuffer(pcm[:usable], dtype=dtype).reshape(-1, channels)
    return {channel: to_mono16(np.ascontiguousarray(samples[:, number - 1]).tobytes(), rate, 1, width)
            for number, channel in wanted.items()}


class Sink(Protocol):
    """Takes mono 16-bit PCM and plays or stores it."""

    def play(self, clip: Clip) -> None: ...

    def close(self) -> None: ...


class NullSink:
    def play(self, clip: Clip) -> None:
        pass

    def close(self) -> None:
        pass
