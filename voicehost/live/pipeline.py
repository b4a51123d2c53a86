"""The one input pipeline: audio chunks from any source (a microphone, a
recorded file) go through the recognizer, run in an executor so the loop
never waits on it, and its words are heard on the table's loop through the
hearing stage (live/hearing.py). A live game and a recording differ only in
how the audio's time maps to the game clock (`Timing`)."""
from __future__ import annotations

import asyncio
import bisect
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from voicehost.asr import Recognizer, Revision
from voicehost.audio import RATE, Frame
from voicehost.errors import VoicehostError
from voicehost.game.events import OutOfTurn
from voicehost.live.hearing import out_of_turn
from voicehost.live.seats import SeatVoices
from voicehost.live.table import LiveTable
from voicehost.phrases.words import Word

log = logging.getLogger(__name__)

Words = list[Word | Revision]


@dataclass
class Timing:
    """`offset()`: what to add to the recognizer's stream time to get game
    time; `reached(t)`: the audio has come this far in game time (a
    recording's clock follows it); `more()`: whether to go on after a chunk;
    `lenient`: words the table refuses are lost and the audio goes on (a
    live microphone has nobody to tell)."""

    offset: Callable[[], float]
    reached: Callable[[float], None] = lambda t: None
    more: Callable[[], bool] = lambda: True
    lenient: bool = False


class _Step:
    """One chunk read and recognized, off the loop; None once the audio ended."""

    def __init__(self, chunks: Iterator[bytes], recognizer: Recognizer) -> None:
        self.chunks = chunks
        self.recognizer = recognizer
        self.chunk = b""   # the last chunk read: the host's commands hear it too behind a wake word

    def __call__(self) -> Words | None:
        chunk = next(self.chunks, None)
        self.chunk = chunk or b""
        return None if chunk is None else self.recognizer.accept(chunk)


async def hear_audio(live: LiveTable, chunks: Iterator[bytes], recognizer: Recognizer, timing: Timing) -> None:
    """Audio -> recognizer (in an executor) -> the hearing stage -> the table, until
    the audio ends or `timing.more()` says stop; then the utterance's final words."""
    loop = asyncio.get_running_loop()
    step = _Step(chunks, recognizer)
    while True:
        words = await loop.run_in_executor(None, step)
        if words is None:
            break
        shift = timing.offset()
        timing.reached(shift + recognizer.audio_time)
        _deliver(live, words, shift, timing.lenient)
        if live.hearing.host_audio is not None:   # one microphone, commands behind the wake word (SPEC §7.2)
            live.hearing.host_audio(step.chunk, shift + recognizer.audio_time - len(step.chunk) / 2 / RATE)
        if not timing.more():
            break
    _deliver(live, await loop.run_in_executor(None, recognizer.finish), timing.offset(), timing.lenient)


def _deliver(live: LiveTable, words: Words, shift: float, lenient: bool) -> None:
    if not words:
        return
    shifted = [w.shifted(shift) for w in words]
    if not lenient:
        live.hear(shifted)
        return
    try:
        live.hear(shifted)
    except VoicehostError as exc:  # nobody to answer: the words are lost, the game goes on
        log.warning("words not heard: %s", exc)


class _Seats:
    """Which seat's channel the recognizer heard at each stream time, so a
    word is tagged with the seat that said it even when it comes out after
    the floor passed on."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.seats: list[int | None] = []

    def add(self, t: float, seat: int | None) -> None:
        if not self.seats or self.seats[-1] != seat:
            self.times.append(t)
            self.seats.append(seat)

    def at(self, t: float) -> int | None:
        index = bisect.bisect_right(self.times, t + 1e-6) - 1
        return self.seats[index] if index >= 0 else None

    def tag(self, words: Words) -> Words:
        return [Revision(tuple(self._word(w) for w in item.old), tuple(self._word(w) for w in item.new))
                if isinstance(item, Revision) else self._word(item) for item in words]

    def _word(self, word: Word) -> Word:
        return Word(word.word, word.start, word.end, word.conf, self.at(word.start))


async def hear_channels(live: LiveTable, frames: Iterator[Frame], recognizer: Recognizer, voices: SeatVoices,
                        timing: Timing) -> None:
    """A microphone per seat (SPEC §7.1): the seats' voice activity judged on
    the loop (live/seats.py), only the speaker's channel recognized (its bleed
    silenced), each word tagged with its seat; out-of-turn speech goes to the
    table as `OutOfTurn`, the seats speaking to the page."""
    loop = asyncio.get_running_loop()
    history = _Seats()
    while True:
        frame = await loop.run_in_executor(None, next, frames, None)
        if frame is None:
            break
        chunks = {c.seat: pcm for c, pcm in frame.items() if c.seat is not None}
        host = next((pcm for c, pcm in frame.items() if c.seat is None), None)
        if host is not None and live.hearing.host_audio is not None:
            live.hearing.host_audio(host, timing.offset() + recognizer.audio_time)
        speaker = live.game.floor.seat if live.game.floor is not None else None
        t = recognizer.audio_time
        kept, flagged = voices.chunk(chunks, t, speaker)
        history.add(t, speaker)
        silence = bytes(min((len(c) for c in frame.values()), default=0))
        words = await loop.run_in_executor(None, recognizer.accept, kept if kept is not None else silence)
        shift = timing.offset()
        timing.reached(shift + recognizer.audio_time)
        _deliver(live, history.tag(words), shift, timing.lenient)
        for event in flagged:
            _out_of_turn(live, out_of_turn(event.seat, event.start + shift, event.end + shift), timing.lenient)
        live.seats_heard(voices)
        if not timing.more():
            break
    _deliver(live, history.tag(await loop.run_in_executor(None, recognizer.finish)), timing.offset(),
             timing.lenient)


def _out_of_turn(live: LiveTable, event: OutOfTurn, lenient: bool) -> None:
    try:
        live.apply(event)
    except VoicehostError as exc:
        if not lenient:
            raise
        log.warning("out-of-turn speech not taken: %s", exc)


__all__ = ["Timing", "hear_audio", "hear_channels"]
