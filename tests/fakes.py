"""The stand-ins the tests share, each named as a fake: a voice, an audio
device, a speaker, a recognizer and a microphone. None of them touches a real
device or model (for those: tests/realparts.py)."""
from __future__ import annotations

import time
from collections.abc import Iterable

from voicehost.audio import Clip


class FakeVoice:
    """A stand-in voice: `seconds` of silence per announcement; `broken` texts
    raise what a buggy synthesizer would, `garbled` ones yield no audio."""

    name = "fake"

    def __init__(self, broken: tuple[str, ...] = (), garbled: tuple[str, ...] = (), seconds: float = 0.5) -> None:
        self.broken, self.garbled = broken, garbled
        self.samples = int(16000 * seconds)

    def synthesize(self, text):
        if text in self.broken:
            raise RuntimeError("synthesizer bug")
        if text in self.garbled:
            yield None
        yield Clip(b"\0\0" * self.samples, 16000)


class FakeSink:
    """A stand-in audio device: keeps the clips it was given to play, and the
    wall-clock time each started."""

    def __init__(self):
        self.clips, self.times = [], []

    def play(self, clip):
        self.times.append(time.monotonic())
        self.clips.append(clip)

    def close(self):
        pass


class FakeSpeaker:
    """A stand-in speaker: keeps what it was told to say (`said`) and to whom
    (`lines`: text, private); its own voice lies in the `echo` spans (game time)."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.lines: list[tuple[str, bool]] = []
        self.echo: list[tuple[float, float]] = []

    def say(self, text: str, *, private: bool = False, at: float | None = None) -> None:
        self.said.append(text)
        self.lines.append((text, private))

    def is_echo(self, start: float, end: float) -> bool:
        return any(start <= b and end >= a for a, b in self.echo)


class FakeRecognizer:
    """A stand-in recognizer: each chunk is the words it stands for (one word,
    or a list of them), their times given."""

    audio_time = 0.0

    def accept(self, chunk):
        return list(chunk) if isinstance(chunk, list) else [chunk]

    def finish(self):
        return []


class FakeMicrophone:
    """A stand-in microphone: yields the given chunks."""

    def __init__(self, chunks: Iterable[object]) -> None:
        self.given = chunks

    def chunks(self):
        yield from self.given

    def close(self):
        pass
