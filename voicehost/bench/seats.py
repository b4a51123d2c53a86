"""`voicehost bench seats`: a microphone per seat (SPEC §7.1) on an
11-channel recording built from the real-model fixture audio the latency
bench uses (tools/latency_fixture.py: Korean stand-ins the Korean model
really recognises play the Russian words).

Seat 1 holds the floor and makes the fixture's nominations, one fresh game
each, as the latency bench does; before every other one, another seat says a
trigger and a number of its own (1-3 s, out of turn) on its channel, so bleed
that reached the recognizer would nominate in the speaker's name; every
seat's voice leaks into its neighbours' channels at -20 dB; every channel
has its own room noise. The recording goes through the table's input
pipeline (`hear_channels`) paced like a microphone, three runs."""
from __future__ import annotations

import copy
import resource
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from voicehost.bench.source import Transcript, source_tool
from voicehost.bench.stats import percentile

if TYPE_CHECKING:
    from voicehost.asr import Recognizer
    from voicehost.bench.latency import TimingSink
    from voicehost.live import LiveTable
    from voicehost.live.pipeline import Timing
    from voicehost.live.playback import Speaker
    from voicehost.live.telling import Listener

RATE = 16_000
CHUNK = 0.04
SEATS = 10
SPEAKER = 1
BLEED = 0.1            # -20 dB
NOISE = 30.0           # room noise (16-bit standard deviation) on every channel
INTERJECTORS = (2, 10, 5, 7, 4, 9, 3)   # the speaker's neighbours first: their bleed is the worst
SHIFT = 30.0           # game time of the recording's start (the floor opened then)


@dataclass
class Segment:
    """One fresh game: the speaker's nomination, maybe another seat's interjection (audio seconds)."""

    number_end: float
    number: int
    said: tuple[float, float]
    interjection: tuple[int, float, float, int] | None = None   # seat, start, end, its number

    @property
    def begin(self) -> float:
        return self.interjection[1] if self.interjection is not None else self.said[0]


def _clips(transcript: Transcript, pcm: np.ndarray) -> list[tuple[np.ndarray, Transcript]]:
    """Each fixture utterance as its own samples, from a little before its first word to after its last."""
    out = []
    for utterance in transcript["utterances"]:
        words = utterance["words"]
        start, end = words[0]["start"] - 0.15, words[-1]["end"] + 0.15
        out.append((pcm[int(start * RATE):int(end * RATE)].astype(np.float32),
                    {**utterance, "offset": words[0]["start"] - start}))
    return out


def build(transcript: Transcript, pcm: np.ndarray,
          number: Callable[[str], int]) -> tuple[np.ndarray, list[Segment]]:
    """The 11 channels (host, seats 1-10) as int16 samples, and what each segment holds."""
    dry, segments = script(transcript, pcm, number)
    mixed = dry.copy()
    for seat in range(1, SEATS + 1):
        for neighbour in (seat % SEATS + 1, (seat - 2) % SEATS + 1):
            mixed[neighbour] += BLEED * dry[seat]
    mixed += np.random.default_rng(7).normal(0, NOISE, mixed.shape).astype(np.float32)
    return np.clip(mixed, -32768, 32767).astype(np.int16), segments


def script(transcript: Transcript, pcm: np.ndarray, number: Callable[[str], int],
           speaker: int = SPEAKER) -> tuple[np.ndarray, list[Segment]]:
    """What each seat says (host, seats 1-10; float samples, no bleed, no noise), and what each segment holds."""
    clips = _clips(transcript, pcm)
    speeches = clips[1:]
    long_ones = [c for c in clips[1:] if len(c[1]["words"]) == 3]
    dry = np.zeros((SEATS + 1, 0), np.float32)
    segments: list[Segment] = []

    def put(channel: int, clip: np.ndarray | None, seconds: float) -> float:
        nonlocal dry
        at = dry.shape[1] / RATE
        block = np.zeros((SEATS + 1, int(seconds * RATE)), np.float32)
        if clip is not None:
            block[channel, :len(clip)] = clip
        dry = np.concatenate([dry, block], axis=1)
        return at

    put(0, None, 0.6)
    lead = clips[0]
    put(speaker, lead[0], len(lead[0]) / RATE + 0.8)   # the lead-in settles the model; not measured
    for index, (clip, utterance) in enumerate(speeches):
        words = utterance["words"]
        said_number = number(words[1]["word"])
        interjection = None
        if index % 2 == 0:   # before the speaker's nomination: bleed that reached the recognizer would nominate
            other = next(c for c in long_ones[index // 2 % len(long_ones):] + long_ones
                         if number(c[1]["words"][1]["word"]) != said_number)
            seat = (INTERJECTORS[index // 2 % len(INTERJECTORS)] + speaker - 2) % SEATS + 1
            start = put(seat, other[0], len(other[0]) / RATE + 0.8)
            interjection = (seat, start, start + len(other[0]) / RATE, number(other[1]["words"][1]["word"]))
        at = put(speaker, clip, len(clip) / RATE + 0.8)
        segments.append(Segment(at + utterance["offset"] + words[1]["end"] - words[0]["start"], said_number,
                                (at, at + len(clip) / RATE), interjection))
        put(0, None, 0.6)
    return dry, segments


def paced(audio: np.ndarray, start: int, end: int, t0: float) -> Iterator[np.ndarray]:
    """Samples [start, end) of every channel as a device hands them over: 40 ms at a time, in real time."""
    step = int(RATE * CHUNK)
    for index in range(start, end, step):
        pause = t0 + (index + step) / RATE - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        yield audio[:, index:min(index + step, end)]


@dataclass
class Tally:
    crosstalk: int = 0
    bleed_words: int = 0
    flagged: int = 0
    interjections: int = 0
    false_flags: int = 0
    latencies: list[float] = field(default_factory=list)
    not_announced: int = 0
    wrong: int = 0


def _score(segment: Segment, live: LiveTable, suggestions: list[tuple[int, float]], said: list[tuple[float, str]],
           t0: float, tally: Tally) -> None:
    wanted = f"Принят номер {segment.number}"
    hit = next((at for at, text in said if text == wanted), None)
    if hit is None:
        tally.not_announced += 1
    else:
        tally.latencies.append(hit - (t0 + segment.number_end))
    others = [seat for seat in live.game.today if seat != segment.number]
    interjected = segment.interjection
    tally.crosstalk += sum(1 for seat in others if interjected is not None and seat == interjected[3])
    tally.wrong += sum(1 for seat in others if interjected is None or seat != interjected[3])
    flagged = False
    for seat, start in suggestions:
        if interjected is not None and seat == interjected[0] and \
                interjected[1] - 0.5 <= start - SHIFT <= interjected[2]:
            flagged = True
        else:
            tally.false_flags += 1
    if interjected is not None:
        tally.interjections += 1
        tally.flagged += flagged
        tally.bleed_words += sum(1 for start, end in _speakers_words(live)
                                 if end > interjected[1] and start < interjected[2] and start < segment.said[0])


def _speakers_words(live: LiveTable) -> list[tuple[float, float]]:
    """The times (audio seconds) of the words journaled as the speaker's."""
    out = []
    for entry in live.entries:
        event = entry.event
        start, end = event.get("start"), event.get("end")
        if event.get("type") == "word" and event.get("seat") == SPEAKER and isinstance(start, (int, float)) \
                and isinstance(end, (int, float)):
            out.append((start - SHIFT, end - SHIFT))
    return out


def _suggestions(into: list[tuple[int, float]]) -> Listener:
    """A listener noting each out-of-turn suggestion: (seat, game time)."""
    return lambda outputs: into.extend((int(str(o.values["seat"])), o.t) for o in outputs if o.key == "out_of_turn")


def _ticking(live: LiveTable) -> Callable[[], bool]:
    """After each chunk: the clock's own work, and on."""
    return lambda: live.tick() is not None


# What feeds one segment's samples [start, end) to the live table, paced from t0.
Hear = Callable[["LiveTable", int, int, float, "Recognizer", "Timing"], Awaitable[None]]


async def play_segments(make: Callable[[], Recognizer], speaker: Speaker, sink: TimingSink, length: int,
                        segments: list[Segment], tally: Tally, hear: Hear) -> None:
    """The recording as one short game per segment (segment 0 is the lead-in),
    on one recognizer, each scored from what the table said and suggested."""
    from voicehost.bench.latency import day_game
    from voicehost.live import AudioClock, LiveTable
    from voicehost.live.listening import close_recognizer
    from voicehost.live.pipeline import Timing
    from voicehost.live.writer import JournalWriter

    recognizer = make()
    base, clock = day_game(), AudioClock(SHIFT)
    folder = Path(tempfile.mkdtemp(prefix="voicehost-bench-"))
    bounds = [0] + [int((s.begin - 0.3) * RATE) for s in segments] + [length]
    t0 = time.perf_counter()
    for index in range(len(bounds) - 1):
        writer = JournalWriter(folder / f"game-{index}.jsonl", base.rules)
        live = LiveTable(copy.deepcopy(base), clock, speaker, journal=writer)
        suggestions: list[tuple[int, float]] = []
        live.listeners.append(_suggestions(suggestions))
        first = len(sink.played)
        await hear(live, bounds[index], bounds[index + 1], t0, recognizer,
                   Timing(lambda: SHIFT, clock.skip_to, _ticking(live)))
        await live.synced()
        speaker.wait(30)
        if index:
            said = [(at, next((t for t, c in speaker.cache.items() if c is clip), ""))
                    for at, clip in sink.played[first:]]
            _score(segments[index - 1], live, suggestions, said, t0, tally)
        live.close()
    close_recognizer(getattr(recognizer, "recognizer", recognizer))   # the model's own, under the stand-ins
    shutil.rmtree(folder, ignore_errors=True)


async def _one_run(make: Callable[[], Recognizer], speaker: Speaker, sink: TimingSink, channels: np.ndarray,
                   segments: list[Segment], tally: Tally) -> None:
    from voicehost.channels import Channel, Input
    from voicehost.live.pipeline import hear_channels
    from voicehost.live.seats import SeatVoices

    mapped = [Channel(Input("", 1), None)] + [Channel(Input("", seat + 1), seat) for seat in range(1, SEATS + 1)]
    voices = SeatVoices(range(1, SEATS + 1), 0.7, told_silent=True)

    async def hear(live: LiveTable, start: int, end: int, t0: float, recognizer: Recognizer, timing: Timing) -> None:
        frames = ({channel: block[number].tobytes() for number, channel in enumerate(mapped)}
                  for block in paced(channels, start, end, t0))
        await hear_channels(live, frames, recognizer, voices, timing)

    await play_segments(make, speaker, sink, channels.shape[1], segments, tally, hear)


def _number(seat: int | None) -> int:
    assert seat is not None, "every stand-in number is a seat"
    return seat


def table_ears(fixture: ModuleType, stand_ins: dict[str, str]) -> tuple[Speaker, TimingSink, Callable[[], Recognizer]]:
    """The table's voice (its 'Принят' lines prerendered, each start timed) and
    a factory of the real model's recognizers under the fixture's stand-ins."""
    from voicehost.asr import VoskRecognizer, load_model
    from voicehost.bench.latency import TimingSink, day_game, model_and_config, pick_voice
    from voicehost.live.playback import Speaker
    from voicehost.live.speaking import prerender

    model_dir, config = model_and_config()
    sink = TimingSink()
    speaker = Speaker(pick_voice(config), sink, None, time.perf_counter)
    prerender(speaker, day_game(), config.path("models/.phrase-cache"))
    model = load_model(model_dir, low_latency_cache=config.path("models/.low-latency"))

    def make() -> Recognizer:
        inner = VoskRecognizer(model, phrases=sorted(stand_ins))
        inner.warm_up()
        wrapped: Recognizer = fixture.StandIns(inner, stand_ins)
        return wrapped

    return speaker, sink, make


@dataclass(frozen=True)
class Fixture:
    """The real-model fixture (tools/latency_fixture.py): its module, its
    transcript and samples, and the seat each stand-in number word names."""

    tool: ModuleType
    transcript: Transcript
    pcm: np.ndarray
    number: Callable[[str], int]

    @property
    def stand_ins(self) -> dict[str, str]:
        stand_ins: dict[str, str] = self.transcript["stand_ins"]
        return stand_ins

    @classmethod
    def load(cls) -> Fixture:
        from voicehost.audio import read_wav
        from voicehost.phrases.grammar import load_grammar

        tool = source_tool("latency_fixture")
        transcript = tool.load_transcript()
        grammar = load_grammar("ru")
        return cls(tool, transcript, np.frombuffer(read_wav(tool.FIXTURE).pcm, dtype="<i2"),
                   lambda word: _number(grammar.number(transcript["stand_ins"][word])))


def seats(runs: int = 3) -> None:
    import asyncio

    fixture = Fixture.load()
    channels, segments = build(fixture.transcript, fixture.pcm, fixture.number)
    speaker, sink, make = table_ears(fixture.tool, fixture.stand_ins)
    tally = Tally()
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(runs):
        asyncio.run(_one_run(make, speaker, sink, channels, segments, tally))
    after = resource.getrusage(resource.RUSAGE_SELF)
    speaker.close()
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    audio = runs * channels.shape[1] / RATE
    print(f"seat channels: {channels.shape[0]} (host + {SEATS} seats)")
    print(f"crosstalk nominations: {tally.crosstalk}")
    print(f"bleed words counted for the speaker: {tally.bleed_words}")
    print(f"out-of-turn speech flagged: {tally.flagged}/{tally.interjections}")
    print(f"false out-of-turn flags: {tally.false_flags}")
    p50, p95 = (1000 * percentile(tally.latencies, q) if tally.latencies else float("nan") for q in (0.5, 0.95))
    print(f"speaker's nominations: p50 {p50:.0f} ms, p95 {p95:.0f} ms ({tally.not_announced} not announced, "
          f"{tally.wrong} wrong numbers)")
    print(f"CPU: {100 * cpu / audio:.0f}% of one core for {audio:.0f} s of audio")
    print(f"peak RSS: {after.ru_maxrss / 1024:.0f} MB")


__all__ = ["build", "script", "seats"]
