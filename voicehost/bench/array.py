"""`voicehost bench array`: a microphone array in the middle of the table
(SPEC §7.1) in a room simulated with pyroomacoustics: 6 x 5 x 3 m, RT60
0.5 s (Sabine), an oval table for ten (2.8 x 1.8 m) around a 6-mic circular
array (radius 46 mm) at its centre, the talkers' mouths at the seats. The
talkers say the real-model fixture's utterances (tools/latency_fixture.py:
Korean stand-ins the Korean model really recognises play the Russian words);
babble from two other seats at -6 dB and diffuse noise (eight noise sources
about the room) at 20 dB SNR run under everything.

First the calibration walk: each seat says one utterance, `locate` measures
its angle. Then the direction: every seat says ten utterances over the
babble, and each is given the seat its direction names (`bearing`). Then the
nominations: seat 1 makes the fixture's nominations, one fresh game each,
another seat interjecting a trigger and a number before every other one,
paced like a microphone through the table's input pipeline (`hear_array`),
once listening with the beam and once to the plain mix."""
from __future__ import annotations

import math
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from voicehost.bench.seats import (
    RATE,
    SEATS,
    Fixture,
    Segment,
    Tally,
    _clips,
    paced,
    play_segments,
    script,
    table_ears,
)
from voicehost.bench.source import Transcript
from voicehost.bench.stats import percentile

if TYPE_CHECKING:
    from voicehost.array import ArrayGeometry
    from voicehost.asr import Recognizer
    from voicehost.bench.latency import TimingSink
    from voicehost.live import LiveTable
    from voicehost.live.pipeline import Timing
    from voicehost.live.playback import Speaker

ROOM = (6.0, 5.0, 3.0)
RT60 = 0.5
CENTRE = (3.0, 2.5)
ARRAY_HEIGHT = 0.8
MOUTH_HEIGHT = 1.2
TABLE = (1.4, 0.9)        # the oval's half-axes, metres
RADIUS_MM = 46.0
BABBLE_DB = -6.0
SNR_DB = 20.0
CHUNK = 0.04
SPEAKER = 1


def geometry() -> ArrayGeometry:
    from voicehost.array import ArrayGeometry

    mics = tuple((RADIUS_MM / 1000 * math.cos(2 * math.pi * k / 6), RADIUS_MM / 1000 * math.sin(2 * math.pi * k / 6))
                 for k in range(6))
    return ArrayGeometry("bench", mics, tuple(range(1, 7)))


def seat_place(seat: int) -> tuple[float, float, float]:
    """A seat's mouth, round the oval table (seat 1 at the head, then anticlockwise)."""
    theta = 2 * math.pi * (seat - 1) / SEATS
    return CENTRE[0] + TABLE[0] * math.cos(theta), CENTRE[1] + TABLE[1] * math.sin(theta), MOUTH_HEIGHT


@dataclass
class Room:
    """Each seat's (and each noise source's) impulse responses to the array's mics."""

    rirs: dict[int, list[np.ndarray]]
    noise_rirs: list[list[np.ndarray]]

    @classmethod
    def build(cls, mics: ArrayGeometry) -> Room:
        import pyroomacoustics as pra

        absorption, order = pra.inverse_sabine(RT60, ROOM)
        room = pra.ShoeBox(list(ROOM), fs=RATE, materials=pra.Material(absorption), max_order=order)
        room.add_microphone_array(np.array([[CENTRE[0] + x, CENTRE[1] + y, ARRAY_HEIGHT] for x, y in mics.mics]).T)
        rng = np.random.default_rng(11)
        places = [seat_place(seat) for seat in range(1, SEATS + 1)]
        noise = [(rng.uniform(0.3, ROOM[0] - 0.3), rng.uniform(0.3, ROOM[1] - 0.3), rng.uniform(0.3, 2.7))
                 for _ in range(8)]
        for place in places + noise:
            room.add_source(list(place))
        room.compute_rir()
        rirs = [[np.asarray(room.rir[m][s], np.float32) for m in range(len(mics.mics))]
                for s in range(len(places) + len(noise))]
        return cls({seat: rirs[seat - 1] for seat in range(1, SEATS + 1)}, rirs[SEATS:])

    def hear(self, dry: dict[int, np.ndarray], length: int) -> np.ndarray:
        """The mics' signals (float) of the seats' dry signals."""
        from scipy.signal import fftconvolve

        out = np.zeros((len(next(iter(self.rirs.values()))), length), np.float32)
        for seat, signal in dry.items():
            if not np.any(signal):
                continue
            for m, rir in enumerate(self.rirs[seat]):
                wet = fftconvolve(signal, rir)[:length]
                out[m, :len(wet)] += wet
        return out

    def diffuse(self, length: int, rng: np.random.Generator) -> np.ndarray:
        from scipy.signal import fftconvolve

        out = np.zeros((len(self.noise_rirs[0]), length), np.float32)
        for rirs in self.noise_rirs:
            source = rng.normal(0, 1, length).astype(np.float32)
            for m, rir in enumerate(rirs):
                out[m] += fftconvolve(source, rir)[:length]
        return out


def _level(x: np.ndarray) -> float:
    """The active speech level (as ITU-T P.56 means it, simply): the RMS of the
    20 ms frames within 30 dB of the loudest, pauses left out."""
    frames = x.reshape(-1)[:x.size - x.size % 320].reshape(-1, 320)
    rms = np.sqrt(np.mean(np.square(frames.astype(np.float64)), axis=1))
    if not len(rms) or rms.max() <= 0:
        return 0.0
    active = rms[rms >= rms.max() * 10 ** (-30 / 20)]
    return float(np.sqrt(np.mean(np.square(active))))


def _scaled(x: np.ndarray, level: float) -> np.ndarray:
    have = _level(x)
    out: np.ndarray = x * (level / have) if have > 0 else x
    return out


def levelled(room: Room, speech: np.ndarray, babble: np.ndarray, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray]:
    """The babble at -6 dB of the speech and the room's diffuse noise at 20 dB SNR."""
    level = _level(speech)
    return (_scaled(babble, level * 10 ** (BABBLE_DB / 20) * math.sqrt(2)),   # two talkers, each -6 dB
            _scaled(room.diffuse(speech.shape[1], rng), level * 10 ** (-SNR_DB / 20)))


def mixed(room: Room, speech: np.ndarray, babble: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The speech at the mics with babble at -6 dB and diffuse noise at 20 dB SNR, as int16."""
    scaled, noise = levelled(room, speech, babble, rng)
    return _int16(speech + scaled + noise)


def _int16(x: np.ndarray) -> np.ndarray:
    samples: np.ndarray = np.clip(x, -32768, 32767).astype(np.int16)
    return samples


def _babble(clips: list[np.ndarray], seats: tuple[int, int], length: int, rng: np.random.Generator
            ) -> dict[int, np.ndarray]:
    """Two other seats talking on and on (the fixture's utterances end to end)."""
    out = {}
    for seat in seats:
        signal = np.zeros(length, np.float32)
        at = int(rng.integers(0, RATE // 2))
        while at < length:
            clip = clips[int(rng.integers(len(clips)))]
            end = min(length, at + len(clip))
            signal[at:end] = clip[:end - at]
            at = end + int(rng.integers(RATE // 10, RATE // 2))
        out[seat] = signal
    return out


def others(seat: int, rng: np.random.Generator, besides: tuple[int, ...] = ()) -> tuple[int, int]:
    pool = [s for s in range(1, SEATS + 1) if s != seat and s not in besides]
    first, second = rng.choice(pool, 2, replace=False)
    return int(first), int(second)


def calibrate(room: Room, mics: ArrayGeometry, clip: np.ndarray) -> dict[int, float]:
    """The calibration walk in the room: each seat says one utterance, quiet room."""
    from voicehost.live.direction import locate

    angles = {}
    for seat in range(1, SEATS + 1):
        heard = room.hear({seat: clip}, len(clip) + RATE // 2)
        angles[seat] = round(locate(mics, np.clip(heard, -32768, 32767).astype(np.int16))[0], 1)
    return angles


@dataclass
class Placed:
    correct: int = 0
    unknown: int = 0
    wrong: int = 0

    @property
    def count(self) -> int:
        return self.correct + self.unknown + self.wrong


def directions(room: Room, mics: ArrayGeometry, angles: dict[int, float], clips: list[np.ndarray],
               per_seat: int = 10) -> Placed:
    """Every seat says `per_seat` utterances over two other seats' babble; each
    utterance gets the seat its direction names."""
    from voicehost.live.direction import ArrayVoices

    rng = np.random.default_rng(5)
    placed = Placed()
    step = int(RATE * CHUNK)
    for seat in range(1, SEATS + 1):
        for n in range(per_seat):
            clip = clips[(seat + n) % len(clips)]
            lead = RATE // 2
            length = lead + len(clip) + RATE // 2
            speech = np.zeros(length, np.float32)
            speech[lead:lead + len(clip)] = clip
            babble = room.hear(_babble(clips, others(seat, rng), length, rng), length)
            audio = mixed(room, room.hear({seat: speech}, length), babble, rng)
            voices = ArrayVoices(mics, angles, told_silent=True)
            for at in range(0, length, step):
                voices.chunk(audio[:, at:at + step], at / RATE, seat)
            said, _ = voices.bearing(lead / RATE, (lead + len(clip)) / RATE)
            if said is None:
                placed.unknown += 1
            elif said == seat:
                placed.correct += 1
            else:
                placed.wrong += 1
    return placed


@dataclass
class Recording:
    """The nominations game at the array, its parts kept apart (float, mics x samples)."""

    dry: np.ndarray          # what each seat says (seats 1-10 by row; row 0 silent)
    speech: np.ndarray       # every seat's voice at the mics
    babble: np.ndarray       # two other seats' chatter, at -6 dB each
    noise: np.ndarray        # the room's diffuse noise, at 20 dB SNR
    segments: list[Segment]
    angles: dict[int, float]  # the seats' angles from the calibration walk
    room: Room

    @property
    def mixture(self) -> np.ndarray:
        """What the array records (int16)."""
        return _int16(self.speech + self.babble + self.noise)


def room_parts(transcript: Transcript, pcm: np.ndarray, number: Callable[[str], int], speaker: int = SPEAKER,
               limit: int | None = None) -> Recording:
    """The array's recording of the nominations game, seeded: the same every run."""
    mics = geometry()
    room = Room.build(mics)
    clips = [clip for clip, _ in _clips(transcript, pcm)]
    angles = calibrate(room, mics, clips[0])
    dry, segments = script(transcript, pcm, number, speaker)
    if limit is not None:
        segments = segments[:limit]
        dry = dry[:, :int((segments[-1].said[1] + 0.8) * RATE)]
    length = dry.shape[1]
    rng = np.random.default_rng(3)
    speech = room.hear({seat: dry[seat] for seat in range(1, SEATS + 1)}, length)
    babble = room.hear(_babble(clips, others(speaker, rng, _interjectors(segments)), length, rng), length)
    return Recording(dry, speech, *levelled(room, speech, babble, rng), segments, angles, room)


def _interjectors(segments: list[Segment]) -> tuple[int, ...]:
    return tuple({s.interjection[0] for s in segments if s.interjection is not None})


async def _one_run(make: Callable[[], Recognizer], speaker: Speaker, sink: TimingSink, audio: np.ndarray,
                   segments: list[Segment], angles: dict[int, float], steered: bool, tally: Tally) -> None:
    from voicehost.live.direction import ArrayVoices
    from voicehost.live.pipeline import hear_array

    voices = ArrayVoices(geometry(), angles, 0.7, told_silent=True, steered=steered)

    async def hear(live: LiveTable, start: int, end: int, t0: float, recognizer: Recognizer, timing: Timing) -> None:
        await hear_array(live, paced(audio, start, end, t0), recognizer, voices, timing)

    await play_segments(make, speaker, sink, audio.shape[1], segments, tally, hear)


def array() -> None:
    import asyncio

    fixture = Fixture.load()
    recording = room_parts(fixture.transcript, fixture.pcm, fixture.number)
    audio, segments, angles = recording.mixture, recording.segments, recording.angles
    clips = [clip for clip, _ in _clips(fixture.transcript, fixture.pcm)]
    placed = directions(recording.room, geometry(), angles, clips)
    speaker, sink, make = table_ears(fixture.tool, fixture.stand_ins)
    beam, plain = Tally(), Tally()
    before = resource.getrusage(resource.RUSAGE_SELF)
    asyncio.run(_one_run(make, speaker, sink, audio, segments, angles, True, beam))
    after = resource.getrusage(resource.RUSAGE_SELF)
    asyncio.run(_one_run(make, speaker, sink, audio, segments, angles, False, plain))
    speaker.close()
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    seconds = audio.shape[1] / RATE
    total = len(segments)
    print(f"array: {audio.shape[0]} mics; room RT60 {RT60} s")
    print(f"seat from direction: {placed.correct}/{placed.count} correct ({placed.unknown} unknown)"
          f"; {placed.wrong} given to a wrong seat")
    print(f"crosstalk nominations: {beam.crosstalk}")
    print(f"nominations heard with the beam: {total - beam.not_announced}/{total}, "
          f"without: {total - plain.not_announced}/{total}")
    p50, p95 = (1000 * percentile(beam.latencies, q) if beam.latencies else float("nan") for q in (0.5, 0.95))
    print(f"speaker's nominations: p50 {p50:.0f} ms, p95 {p95:.0f} ms")
    print(f"CPU: {100 * cpu / seconds:.0f}% of one core for {seconds:.0f} s of audio")
    print(f"calibrated angles: {', '.join(f'{s}: {a:.0f}' for s, a in angles.items())}")


__all__ = ["Recording", "Room", "array", "geometry", "room_parts", "seat_place"]
