"""How many of `voicehost bench array`'s 15 nominations the test model can
hear at all, whatever listens toward the speaker: the same room, babble and
noise, each segment recognized whole (the stand-ins' grammar, as the bench's
recognizer), a nomination counted when the words said while the speaker spoke
hold the trigger right before the speaker's number. The speaker's words are
picked by time (an oracle for the direction), and the oracle rows know the
speaker's own signal, so each row is an upper bound for its kind of front end.
Prints figures; asserts nothing.

    .venv/bin/python -m tools.array_ceiling
    # with `pip install nara_wpe`, the rows with WPE dereverberation too
"""
from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np

from voicehost.bench import array as bench
from voicehost.bench.latency import model_and_config
from voicehost.bench.seats import SPEAKER, Fixture, Segment
from voicehost.live.direction import Focus
from voicehost.phrases.grammar import load_grammar

RATE = 16_000
FRAME, HOP = 512, 128


def _stft(x: np.ndarray) -> np.ndarray:
    """channels x frames x bins."""
    window = np.hanning(FRAME + 1)[:FRAME]
    count = 1 + max(0, x.shape[-1] - FRAME) // HOP
    frames = np.stack([x[..., k * HOP:k * HOP + FRAME] * window for k in range(count)], axis=-2)
    return np.fft.rfft(frames, axis=-1)


def _istft(spectra: np.ndarray, length: int) -> np.ndarray:
    window = np.hanning(FRAME + 1)[:FRAME]
    frames = np.fft.irfft(spectra, n=FRAME, axis=-1) * window
    out = np.zeros(length)
    norm = np.zeros(length)
    for k, frame in enumerate(frames):
        part = out[k * HOP:k * HOP + FRAME]
        part += frame[:part.size]
        norm[k * HOP:k * HOP + FRAME] += window[:part.size] ** 2
    return out / np.maximum(norm, 1e-8)


def _ideal_mask(mixture: np.ndarray, own: np.ndarray) -> np.ndarray:
    """The ideal ratio mask at mic 1: the best any learned mask could do."""
    mixed, target = _stft(mixture[0]), _stft(own[0])
    rest = mixed - target
    gain = np.abs(target) ** 2 / (np.abs(target) ** 2 + np.abs(rest) ** 2 + 1e-9)
    return _istft(mixed * gain, mixture.shape[1])


def _focus(x: np.ndarray, angle: float) -> np.ndarray:
    """The table's own beam and mask, steered at the speaker all along."""
    focus = Focus(bench.geometry())
    step = int(RATE * bench.CHUNK)
    out = np.concatenate([focus(x[:, k:k + step], angle) for k in range(0, x.shape[1], step)])
    return np.concatenate([out[384:], np.zeros(384)])   # its 24 ms delay taken back


def _dereverberated(x: np.ndarray) -> np.ndarray | None:
    try:
        from nara_wpe.utils import istft, stft
        from nara_wpe.wpe import wpe
    except ImportError:
        return None
    spectra = stft(x.astype(np.float64), size=FRAME, shift=HOP).transpose(2, 0, 1)
    clean = istft(wpe(spectra, taps=10, delay=3, iterations=3).transpose(1, 2, 0), size=FRAME, shift=HOP)
    return np.pad(clean[:, :x.shape[1]], ((0, 0), (0, max(0, x.shape[1] - clean.shape[1]))))


class Judge:
    """Each segment recognized on its own, with the stand-ins' grammar."""

    def __init__(self, segments: list[Segment], stand_ins: dict[str, str]) -> None:
        from vosk import KaldiRecognizer, Model, SetLogLevel

        SetLogLevel(-1)
        self.recognizer = lambda: KaldiRecognizer(self.model, RATE, json.dumps(sorted(stand_ins), ensure_ascii=False))
        self.model = Model(str(model_and_config()[0]))
        self.segments, self.stand_ins = segments, stand_ins
        self.grammar = load_grammar("ru")

    def heard(self, mono: np.ndarray) -> int:
        count = 0
        for index, segment in enumerate(self.segments):
            start = segment.begin - 0.3
            end = self.segments[index + 1].begin - 0.3 if index + 1 < len(self.segments) else mono.size / RATE
            said = [self.stand_ins.get(w["word"], w["word"]) for w in self._words(mono, start, end)
                    if segment.said[0] - 0.3 <= start + w["start"] <= segment.said[1] + 0.3]
            count += any(a == self.grammar.trigger and self.grammar.number(b) == segment.number
                         for a, b in zip(said, said[1:], strict=False))
        return count

    def _words(self, mono: np.ndarray, start: float, end: float) -> list[dict[str, float | str]]:
        recognizer = self.recognizer()
        recognizer.SetWords(True)
        pcm = np.clip(mono[int(start * RATE):int(end * RATE)], -32768, 32767).astype("<i2").tobytes()
        words = []
        for at in range(0, len(pcm), 3200):
            if recognizer.AcceptWaveform(pcm[at:at + 3200]):
                words += json.loads(recognizer.Result()).get("result", [])
        return words + json.loads(recognizer.FinalResult()).get("result", [])


def main() -> None:
    fixture = Fixture.load()
    recording = bench.room_parts(fixture.transcript, fixture.pcm, fixture.number)   # the bench's, seeded
    dry, segments = recording.dry, recording.segments
    own = recording.room.hear({SPEAKER: dry[SPEAKER]}, dry.shape[1])   # the speaker alone in the room
    mixture = recording.speech + recording.babble + recording.noise
    angle = recording.angles[SPEAKER]
    judge = Judge(segments, fixture.stand_ins)
    rows: list[tuple[str, Callable[[], np.ndarray | None]]] = [
        ("the speaker's dry voice (no room)", lambda: dry[SPEAKER]),
        ("the speaker alone in the room, mic 1 (reverberation only)", lambda: own[0]),
        ("the whole table, the mics' plain mix", lambda: mixture.mean(axis=0)),
        ("the whole table, the table's beam and mask at the speaker", lambda: _focus(mixture, angle)),
        ("the whole table, the ideal ratio mask (oracle)", lambda: _ideal_mask(mixture, own)),
        ("the speaker alone in the room, WPE-dereverberated", lambda: _first(_dereverberated(own))),
    ]
    print(f"nominations the test model hears of {len(segments)} (bench array's room, RT60 {bench.RT60} s):")
    for name, signal in rows:
        mono = signal()
        print(f"  {name}: " + (f"{judge.heard(mono)}/{len(segments)}" if mono is not None
                               else "needs `pip install nara_wpe`"))


def _first(x: np.ndarray | None) -> np.ndarray | None:
    return None if x is None else x[0]


if __name__ == "__main__":
    main()
