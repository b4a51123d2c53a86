"""A microphone array in the middle of the table (SPEC §7.1): whose voice it
is, from the direction it comes from, and the array listening toward the
speaker.

Every 40 ms step the direction of arrival is estimated over the last 80 ms
of all the microphones (pyroomacoustics' NormMUSIC over 300-3500 Hz: on the
simulated room of `voicehost bench array` it placed more utterances than its
SRP-PHAT and MUSIC, at 4 ms a call), and WebRTC's voice-activity detector
judges the microphones' mix. A voiced step whose direction is clear and near
one seat's measured angle (`[table] seats`) is that seat's voice; any other
step is nobody's. The speaker's audio for the recognizer is a delay-and-sum
beam steered at the speaker's seat, with the steps that are another seat's
voice silenced (as a microphone per seat silences bleed); with nobody on the
floor the recognizer hears the microphones' plain mix. Another seat's voice
longer than `out_of_turn` while someone holds the floor is one `OutOfTurn`."""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from voicehost.array import ArrayGeometry, mic_map, nearest_seat
from voicehost.audio import AudioError, Frame
from voicehost.channels import Channel
from voicehost.game.events import OutOfTurn
from voicehost.live.seats import HANGOVER_SECONDS, SILENT_DB, level_db

RATE = 16_000
STEP = 640                  # 40 ms: one direction, one decision
WINDOW = 1280               # the direction is judged over the last 80 ms
NFFT = 256
BAND = (300.0, 3500.0)      # speech's band: below it room modes, above it little voice
SOUND = 343.0               # m/s
CLEAR = 0.3                 # a step's direction this clear (0..1) or more can name a seat
TOLERANCE = 20.0            # degrees from a seat's angle that still name it
LOUDEST_DB = 6.0            # a word's seat is judged on its steps this close to its loudest (the speaker's)
AGREE = 0.5                 # a word's seat: more than this share of its placed steps agree
KEEP_SECONDS = 60.0         # the steps kept, for placing words the recognizer gives late
FOCUS_NFFT = 512
FOCUS_HOP = 128
MASK_FROM = 600.0           # Hz: below it the array is too small to tell directions apart
ALIASED = 3600.0            # Hz: above it the mics' spacing aliases directions
MASK_POWER = 4.0            # the spatial gain: (the speaker's share of the bin) ** MASK_POWER
MASK_FLOOR = 0.1            # never quieter than -20 dB: a mask that deep garbles the speaker


@dataclass
class _Step:
    start: float
    end: float
    angle: float
    clear: float
    voiced: bool
    seat: int | None
    level: float = -math.inf   # dBFS of the mix


@dataclass
class _Run:
    start: float
    last: float
    flagged: bool = False


class _Doa:
    """NormMUSIC over the array's microphones (pyroomacoustics)."""

    def __init__(self, geometry: ArrayGeometry) -> None:
        try:
            import pyroomacoustics as pra
        except ImportError:
            raise AudioError("a microphone array ([audio] array) needs pyroomacoustics: run scripts/setup "
                             "(or pip install 'voicehost[live]')") from None
        self.pra = pra
        positions = np.array(geometry.mics, dtype=float).T
        self.doa = pra.doa.algorithms["NormMUSIC"](positions, RATE, NFFT, c=SOUND, num_src=1,
                                                   azimuth=np.radians(np.arange(0, 360, 2.0)))

    def __call__(self, samples: np.ndarray) -> tuple[float, float]:
        """The direction (degrees) of `samples` (mics x n) and how clear it is (0..1)."""
        frames = np.array([self.pra.transform.stft.analysis(row.astype(np.float64), NFFT, NFFT // 2).T
                           for row in samples])
        self.doa.locate_sources(frames, freq_range=list(BAND))
        values = np.asarray(self.doa.grid.values, dtype=float)
        peak = float(values.max())
        clear = 0.0 if peak <= 0 or not math.isfinite(peak) else 1.0 - float(np.median(values)) / peak
        return float(np.degrees(self.doa.azimuth_recon[0])) % 360, clear


def locate(geometry: ArrayGeometry, block: np.ndarray) -> tuple[float, float]:
    """A whole utterance's direction in degrees and how clear it is (0..1): the
    calibration walk's measure."""
    return _Doa(geometry)(block)


def blocks_of(frames: Iterator[Frame], mics: tuple[Channel, ...]) -> Iterator[np.ndarray]:
    """The array's microphones, chunk by chunk, as one int16 block (mics x samples)."""
    for frame in frames:
        parts = [np.frombuffer(frame[mic], dtype="<i2") for mic in mics]
        length = min(len(p) for p in parts)
        yield np.stack([p[:length] for p in parts])


def circular_mean(angles: list[float]) -> float:
    radians = np.radians(angles)
    return float(np.degrees(math.atan2(np.sin(radians).mean(), np.cos(radians).mean()))) % 360


class Focus:
    """Listening toward one direction, frame by frame (512-sample frames, a
    quarter apart): the delay-and-sum beam at the speaker, and in each
    frequency bin a gain by how much of the bin's sound comes from there
    rather than from the loudest other direction (a spatial mask: the babble
    of other seats comes from elsewhere). Below `MASK_FROM` Hz the array is
    too small to tell directions apart and the beam passes; above
    `ALIASED` Hz its spacing aliases, and the bins take the frame's gain of
    the band below. The output runs 384 samples (24 ms) behind the input."""

    def __init__(self, geometry: ArrayGeometry) -> None:
        self.mics = np.array(geometry.mics, dtype=float)
        self.freqs = np.fft.rfftfreq(FOCUS_NFFT, 1 / RATE)
        grid = np.radians(np.arange(0, 360, 5.0))
        toward = np.stack([np.cos(grid), np.sin(grid)])                       # 2 x G
        leads = self.mics @ toward / SOUND                                     # M x G
        self.grid = np.degrees(grid)
        self.steering = np.exp(-2j * np.pi * self.freqs[None, :, None] * leads[:, None, :])   # M x F x G
        window = np.hanning(FOCUS_NFFT + 1)[:FOCUS_NFFT]
        self.window = window
        self.scale = float(np.sum(window ** 2) / FOCUS_HOP)
        self.masked = (self.freqs >= MASK_FROM) & (self.freqs <= ALIASED)
        self.above = self.freqs > ALIASED
        self.band = (self.freqs >= 1500) & (self.freqs <= ALIASED)
        self.input = np.zeros((len(self.mics), FOCUS_NFFT - FOCUS_HOP))
        self.overlap = np.zeros(FOCUS_NFFT)
        self.output = np.zeros(FOCUS_NFFT - FOCUS_HOP)   # the delay, primed with silence

    def __call__(self, block: np.ndarray, angle: float | None) -> np.ndarray:
        """The chunk `block` (mics x n) heard toward `angle` (None: the plain mix), n samples out."""
        self.input = np.concatenate([self.input, block.astype(np.float64)], axis=1)
        produced = []
        while self.input.shape[1] >= FOCUS_NFFT:
            frame = self.input[:, :FOCUS_NFFT] * self.window
            self.input = self.input[:, FOCUS_HOP:]
            spectra = np.fft.rfft(frame, axis=1)                                # M x F
            self.overlap += np.fft.irfft(self._focus(spectra, angle), n=FOCUS_NFFT) * self.window / self.scale
            produced.append(self.overlap[:FOCUS_HOP].copy())
            self.overlap = np.concatenate([self.overlap[FOCUS_HOP:], np.zeros(FOCUS_HOP)])
        self.output = np.concatenate([self.output, *produced])
        out, self.output = self.output[:block.shape[1]], self.output[block.shape[1]:]
        return out

    def _focus(self, spectra: np.ndarray, angle: float | None) -> np.ndarray:
        if angle is None:
            mixed: np.ndarray = spectra.mean(axis=0)
            return mixed
        index = int(round(angle / 5.0)) % len(self.grid)
        responses = np.einsum("mf,mfg->fg", spectra, self.steering) / len(self.mics)   # F x G
        power = np.abs(responses) ** 2
        beam_out = responses[:, index]
        gain = np.ones(len(self.freqs))
        share = power[:, index] / np.maximum(power.max(axis=1), 1e-12)
        gain[self.masked] = np.maximum(share[self.masked] ** MASK_POWER, MASK_FLOOR)
        gain[self.above] = float(np.median(gain[self.band]))
        focused: np.ndarray = beam_out * gain
        return focused


@dataclass
class ArrayVoices:
    """Voice and direction of an array's microphones, step by step; the seat
    attribution of a microphone per seat (voicehost.live.seats.SeatVoices),
    with the seat named by the direction. `out_of_turn` in seconds."""

    geometry: ArrayGeometry
    angles: dict[int, float]
    out_of_turn: float = 0.7
    told_silent: bool = False
    steered: bool = True          # False: the recognizer hears the plain mix (the bench's comparison)
    heard: set[int] = field(default_factory=set)
    runs: dict[int, _Run] = field(default_factory=dict)
    steps: deque[_Step] = field(default_factory=deque)

    def __post_init__(self) -> None:
        try:
            import webrtcvad
        except ImportError:
            raise AudioError("a microphone array ([audio] array) needs webrtcvad-wheels: run scripts/setup "
                             "(or pip install 'voicehost[live]')") from None
        self.seats = tuple(sorted(self.angles))
        self._vad = webrtcvad.Vad(2)
        self._doa = _Doa(self.geometry)
        self._history = np.zeros((len(self.geometry.mics), 0), np.int16)
        self._mix = b""
        self._focus = Focus(self.geometry)

    @property
    def speaking(self) -> frozenset[int]:
        return frozenset(self.runs)

    @property
    def mics(self) -> tuple[Channel, ...]:
        """The microphones as input channels, in the geometry's order."""
        return mic_map(self.geometry).channels

    def raw(self) -> bytes:
        """The last chunk's plain mix of the microphones (mono 16-bit)."""
        return self._mix

    def chunk(self, block: np.ndarray, t: float, speaker: int | None) -> tuple[bytes, list[OutOfTurn]]:
        """One chunk of every microphone (int16, mics x samples) from stream time
        `t`: what the recognizer hears (the beam at the speaker, other seats'
        voice silenced; the plain mix when nobody holds the floor) and the
        out-of-turn speech that just passed the limit."""
        mix = block.astype(np.float64).mean(axis=0)
        self._mix = np.clip(mix, -32768, 32767).astype("<i2").tobytes()
        toward = self.angles.get(speaker) if self.steered and speaker is not None else None
        out = self._focus(block, toward) if self.steered else mix.copy()
        flagged: list[OutOfTurn] = []
        self._history = np.concatenate([self._history, block], axis=1)[:, -(WINDOW + block.shape[1]):]
        base = self._history.shape[1] - block.shape[1]
        for offset in range(0, block.shape[1], STEP):
            end = min(offset + STEP, block.shape[1])
            step = self._step(self._history[:, max(0, base + end - WINDOW):base + end], mix[offset:end],
                              t + offset / RATE, t + end / RATE)
            if self.steered and speaker is not None and step.seat is not None and step.seat != speaker:
                out[offset:end] = 0.0   # another seat's voice: never the speaker's words
            flagged += self._follow(step, speaker)
        return np.clip(out, -32768, 32767).astype("<i2").tobytes(), flagged

    def _step(self, window: np.ndarray, mix: np.ndarray, start: float, end: float) -> _Step:
        pcm = np.clip(mix, -32768, 32767).astype("<i2")
        level = level_db(pcm.tobytes())
        loud = level > SILENT_DB
        voiced = loud and any(self._vad.is_speech(pcm[i:i + 320].tobytes(), RATE)
                              for i in range(0, len(pcm) - 319, 320))
        angle, clear = self._doa(window) if loud and window.shape[1] >= NFFT else (0.0, 0.0)
        seat = nearest_seat(self.angles, angle, TOLERANCE) if voiced and clear >= CLEAR else None
        step = _Step(start, end, angle, clear, voiced, seat, level)
        if loud:
            self.steps.append(step)
        while self.steps and self.steps[0].end < end - KEEP_SECONDS:
            self.steps.popleft()
        return step

    def _follow(self, step: _Step, speaker: int | None) -> list[OutOfTurn]:
        if step.seat is not None:
            run = self.runs.get(step.seat)
            if run is None:
                self.runs[step.seat] = _Run(step.start, step.end)
            else:
                run.last = step.end
            self.heard.add(step.seat)
        flagged = []
        for seat, run in list(self.runs.items()):
            if seat != step.seat and step.start - run.last > HANGOVER_SECONDS:
                del self.runs[seat]
            elif speaker is not None and seat != speaker and not run.flagged \
                    and run.last - run.start > self.out_of_turn:
                run.flagged = True
                flagged.append(OutOfTurn(seat, run.start, run.last))
        return flagged

    def bearing(self, start: float, end: float) -> tuple[int | None, float | None]:
        """The seat and direction (degrees, to 0.1) of what was heard over
        [start, end] (stream seconds): (None, angle) when the direction names
        no seat clearly; (None, None) when nothing at all was heard yet."""
        steps = [s for s in self.steps if s.end > start - 0.02 and s.start < end + 0.02]
        if not steps and self.steps:   # nothing loud just then: the nearest thing heard
            steps = [min(self.steps, key=lambda s: min(abs(s.start - end), abs(s.end - start)))]
        if not steps:
            return None, None
        loudest = max(s.level for s in steps)
        placed = [s.seat for s in steps if s.seat is not None and s.level >= loudest - LOUDEST_DB]
        if placed:
            seat = max(set(placed), key=placed.count)
            if placed.count(seat) > AGREE * len(placed):
                return seat, round(circular_mean([s.angle for s in steps if s.seat == seat
                                                  and s.level >= loudest - LOUDEST_DB]), 1)
        voiced = [s for s in steps if s.voiced] or steps
        return None, round(circular_mean([s.angle for s in voiced]), 1)


__all__ = ["ArrayVoices", "Focus", "blocks_of", "circular_mean", "locate"]
