"""The one input pipeline: audio chunks from any source (a microphone, a
recorded file) go through the recognizer, run in an executor so the loop
never waits on it, and its words are heard on the table's loop through the
hearing stage (live/hearing.py). A live game and a recording differ only in
how the audio's time maps to the game clock (`Timing`)."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from voicehost.asr import Recognizer, Revision
from voicehost.errors import VoicehostError
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

    def __call__(self) -> Words | None:
        chunk = next(self.chunks, None)
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


__all__ = ["Timing", "hear_audio"]
