"""The one input pipeline: audio chunks from any source (a microphone, a
recorded file, a microphone per seat) go through the recognizer, run in an executor so the loop
never waits on it, and its words are heard on the table's loop through the
hearing stage (live/hearing.py). A live game and a recording differ only in
how the audio's time maps to the game clock (`Timing`); one microphone and
a microphone per seat only in what a chunk gives the recognizer (a route)."""
from __future__ import annotations

import asyncio
import bisect
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from voicehost.asr import CaptionedRecognizer, Recognizer, Revision
from voicehost.audio import Frame
from voicehost.errors import VoicehostError
from voicehost.game.events import OutOfTurn
from voicehost.live.direction import ArrayVoices, blocks_of
from voicehost.live.hearing import out_of_turn
from voicehost.live.seats import SeatVoices
from voicehost.live.table import LiveTable
from voicehost.phrases.words import Word

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

Words = list[Word | Revision]
Item = TypeVar("Item")                                # what a source yields: a chunk, or a frame of channels
ItemIn = TypeVar("ItemIn", contravariant=True)


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


class _Route(Protocol[ItemIn]):
    """What one source's chunk gives the recognizer, and what the table gets besides its words."""

    def audio(self, live: LiveTable, item: ItemIn, t: float) -> bytes: ...

    def tag(self, words: Words) -> Words: ...

    def mix(self) -> bytes | None: ...

    def after(self, live: LiveTable, shift: float, lenient: bool) -> None: ...


class _Shared:
    """One microphone (or a mono file): every chunk is the recognizer's, every
    word the speaker's; with a wake word set, the host's commands hear it too
    (SPEC §7.2, the hearing stage's `host_audio`)."""

    def __init__(self, offset: Callable[[], float]) -> None:
        self.offset = offset

    def audio(self, live: LiveTable, item: bytes, t: float) -> bytes:
        if live.hearing.host_audio is not None:
            live.hearing.host_audio(item, self.offset() + t)
        return item

    def tag(self, words: Words) -> Words:
        return words

    def mix(self) -> bytes | None:
        return None

    def after(self, live: LiveTable, shift: float, lenient: bool) -> None:
        pass


async def _hear(live: LiveTable, items: Iterator[Item], recognizer: Recognizer, timing: Timing,
                route: _Route[Item]) -> None:
    """Chunks (read off the loop) -> the route -> recognizer (in an executor)
    -> the hearing stage -> the table, until the audio ends or
    `timing.more()` says stop; then the utterance's final words."""
    loop = asyncio.get_running_loop()
    while True:
        item = await loop.run_in_executor(None, next, items, None)
        if item is None:
            break
        audio = route.audio(live, item, recognizer.audio_time)
        words = await loop.run_in_executor(None, _accept, recognizer, audio, route.mix())
        shift = timing.offset()
        timing.reached(shift + recognizer.audio_time)
        _deliver(live, route.tag(words), shift, timing.lenient)
        route.after(live, shift, timing.lenient)
        if not timing.more():
            break
    _deliver(live, route.tag(await loop.run_in_executor(None, recognizer.finish)), timing.offset(), timing.lenient)


async def hear_audio(live: LiveTable, chunks: Iterator[bytes], recognizer: Recognizer, timing: Timing) -> None:
    """One microphone or a mono recording through the pipeline."""
    await _hear(live, chunks, recognizer, timing, _Shared(timing.offset))


def _accept(recognizer: Recognizer, audio: bytes, mix: bytes | None) -> Words:
    """The route's audio to the recognizer; the captions hear the plain mix when the route has one."""
    if mix is not None and isinstance(recognizer, CaptionedRecognizer):
        return recognizer.accept(audio, captions=mix)
    return recognizer.accept(audio)


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
    """A microphone per seat (SPEC §7.1): the seats' voice activity judged on
    the loop (live/seats.py), only the speaker's channel recognized (its
    bleed silenced), each word tagged with the seat whose channel heard it
    (by its time, so a word that comes out after the floor passed on is
    still its speaker's); out-of-turn speech goes to the table as
    `OutOfTurn`, the seats speaking to the page, the host's channel to the
    hearing stage's `host_audio`."""

    def __init__(self, voices: SeatVoices, offset: Callable[[], float]) -> None:
        self.voices = voices
        self.offset = offset
        self.times: list[float] = []
        self.seats: list[int | None] = []
        self.flagged: list[OutOfTurn] = []

    def audio(self, live: LiveTable, frame: Frame, t: float) -> bytes:
        chunks = {c.seat: pcm for c, pcm in frame.items() if c.seat is not None}
        host = next((pcm for c, pcm in frame.items() if c.seat is None), None)
        if host is not None and live.hearing.host_audio is not None:
            live.hearing.host_audio(host, self.offset() + t)
        speaker = live.game.floor.seat if live.game.floor is not None else None
        kept, self.flagged = self.voices.chunk(chunks, t, speaker)
        if not self.seats or self.seats[-1] != speaker:
            self.times.append(t)
            self.seats.append(speaker)
        return kept if kept is not None else bytes(min((len(c) for c in frame.values()), default=0))

    def tag(self, words: Words) -> Words:
        return _tagged(words, self._word)

    def mix(self) -> bytes | None:
        return None   # the captions hear the speaker's channel, as the decider does

    def _word(self, word: Word) -> Word:
        index = bisect.bisect_right(self.times, word.start + 1e-6) - 1
        return Word(word.word, word.start, word.end, word.conf, self.seats[index] if index >= 0 else None)

    def after(self, live: LiveTable, shift: float, lenient: bool) -> None:
        for event in self.flagged:
            _out_of_turn(live, out_of_turn(event.seat, event.start + shift, event.end + shift), lenient)
        live.seats_heard(self.voices)


async def hear_channels(live: LiveTable, frames: Iterator[Frame], recognizer: Recognizer, voices: SeatVoices,
                        timing: Timing) -> None:
    """A microphone per seat (or an N-channel recording) through the same pipeline."""
    await _hear(live, frames, recognizer, timing, _Seats(voices, timing.offset))


class _Array:
    """A microphone array in the middle (SPEC §7.1): the seat of each word is
    the one its direction names (live/direction.py), its angle kept; a word of
    a direction that names no seat is nobody's, never the speaker's. The
    recognizer hears the beam steered at the speaker, the host's commands (a
    wake word) the microphones' plain mix."""

    def __init__(self, voices: ArrayVoices, offset: Callable[[], float]) -> None:
        self.voices = voices
        self.offset = offset
        self.flagged: list[OutOfTurn] = []

    def audio(self, live: LiveTable, block: np.ndarray, t: float) -> bytes:
        speaker = live.game.floor.seat if live.game.floor is not None else None
        kept, self.flagged = self.voices.chunk(block, t, speaker)
        if live.hearing.host_audio is not None:
            live.hearing.host_audio(self.voices.raw(), self.offset() + t)
        return kept

    def tag(self, words: Words) -> Words:
        return _tagged(words, self._word)

    def mix(self) -> bytes | None:
        return self.voices.raw()   # the captions hear the whole table

    def _word(self, word: Word) -> Word:
        seat, angle = self.voices.bearing(word.start, word.end)
        # Nothing heard yet to judge by (the stream's first moment): still nobody's seat, never the speaker's.
        return Word(word.word, word.start, word.end, word.conf, seat, 0.0 if angle is None else angle)

    def after(self, live: LiveTable, shift: float, lenient: bool) -> None:
        for event in self.flagged:
            _out_of_turn(live, out_of_turn(event.seat, event.start + shift, event.end + shift), lenient)
        live.seats_heard(self.voices)


async def hear_array(live: LiveTable, blocks: Iterator[np.ndarray], recognizer: Recognizer, voices: ArrayVoices,
                     timing: Timing) -> None:
    """A microphone array (or its N-channel recording) through the same pipeline."""
    await _hear(live, blocks, recognizer, timing, _Array(voices, timing.offset))


async def hear_frames(live: LiveTable, frames: Iterator[Frame], recognizer: Recognizer,
                      voices: SeatVoices | ArrayVoices, timing: Timing) -> None:
    """Several input channels: a microphone per seat, or an array's microphones."""
    if isinstance(voices, SeatVoices):
        await hear_channels(live, frames, recognizer, voices, timing)
    else:
        await hear_array(live, blocks_of(frames, voices.mics), recognizer, voices, timing)


def _tagged(words: Words, tag: Callable[[Word], Word]) -> Words:
    """Each word, a revision's too, with its seat as `tag` gives it."""
    return [Revision(tuple(map(tag, item.old)), tuple(map(tag, item.new))) if isinstance(item, Revision)
            else tag(item) for item in words]


def _out_of_turn(live: LiveTable, event: OutOfTurn, lenient: bool) -> None:
    try:
        live.apply(event)
    except VoicehostError as exc:
        if not lenient:
            raise
        log.warning("out-of-turn speech not taken: %s", exc)


__all__ = ["Timing", "hear_array", "hear_audio", "hear_channels", "hear_frames"]
