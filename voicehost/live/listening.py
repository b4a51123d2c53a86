"""Audio in: a live microphone and a recorded game, both through the one
input pipeline (live/pipeline.py), and the host
inputs that go with a recording."""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from voicehost.array import mic_map
from voicehost.asr import (
    CaptionedRecognizer,
    Recognizer,
    VoskRecognizer,
)
from voicehost.asr.factory import listening_recognizer as listening_recognizer  # re-exported: tests build one
from voicehost.asr.factory import recognizer_for as make_recognizer
from voicehost.audio import ChannelSource, Clip, Source
from voicehost.channels import ChannelMap
from voicehost.config import Config
from voicehost.errors import ConfigError, InputError, VoicehostError
from voicehost.game.events import Event, parse_event
from voicehost.live.clock import AudioClock, GameClock
from voicehost.live.direction import ArrayVoices
from voicehost.live.pipeline import Timing, hear_audio, hear_frames
from voicehost.live.seats import SeatVoices
from voicehost.live.table import LiveTable
from voicehost.live.texts import live_texts
from voicehost.rules import RuleOptions

log = logging.getLogger(__name__)


class HostScript:
    """Host inputs for a recorded game (tallies, shots, fouls), each applied
    as soon as the game reaches a point where it fits, as in simulate."""

    def __init__(self, path: Path | None, size: int) -> None:
        self.events: list[Event] = []
        if path is None:
            return
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{path}: the host script is not UTF-8 text") from None
        except OSError as exc:
            raise InputError(f"cannot read the host script {path}: {exc.strerror or exc}") from None
        for number, line in enumerate(text.split("\n"), 1):
            if line.strip():
                try:
                    self.events.append(parse_event(json.loads(line), size))
                except (ValueError, RecursionError, VoicehostError) as exc:
                    raise InputError(f"{path}:{number}: {' '.join(str(exc).split())}") from None

    def feed(self, live: LiveTable) -> None:
        while self.events and live.game.fits(self.events[0]):
            live.apply(self.events.pop(0))


async def listen(live: LiveTable, source: Source, recognizer: Recognizer, clock: GameClock,
                 stopped: Callable[[], bool]) -> None:
    """A live game's microphone through the input pipeline until `stopped()`. A
    word's game time is its wall-clock time less the listening lag, the clock
    the speaker times its playback on (the echo guard). The recognizer is the
    caller's: an evening's games listen with one, its stream time running on
    from game to game."""
    started = time.monotonic()
    base = recognizer.audio_time  # the stream time this game's audio starts at

    def offset() -> float:  # the deal restarts the clock: read afresh
        return clock.at(started) - live.lag - base

    show_captions(live, recognizer, offset)
    try:
        await hear_audio(live, source.chunks(), recognizer, Timing(offset, more=lambda: not stopped(), lenient=True))
    except VoicehostError as exc:
        log.error("the microphone stopped: %s", exc)


async def listen_channels(live: LiveTable, source: ChannelSource, recognizer: Recognizer, clock: GameClock,
                          stopped: Callable[[], bool], voices: SeatVoices | ArrayVoices) -> None:
    """`listen` for a microphone per seat (the seats' channels judged apart,
    live/seats.py) or an array (the seat from the direction, live/direction.py)."""
    started = time.monotonic()
    base = recognizer.audio_time

    def offset() -> float:
        return clock.at(started) - live.lag - base

    show_captions(live, recognizer, offset)
    try:
        await hear_frames(live, source.frames(), recognizer, voices,
                          Timing(offset, more=lambda: not stopped(), lenient=True))
    except VoicehostError as exc:
        log.error("the microphones stopped: %s", exc)


def array_map(config: Config) -> ChannelMap | None:
    """An array's microphones as the channels to read, or None with no array.
    An array whose seats were never measured cannot tell anyone apart: said now."""
    geometry = config.audio.array
    if geometry is None:
        return None
    if not config.table.seats:
        raise ConfigError(f"{config.source or 'the settings'}: [audio] array is set but no seat's direction is "
                          "measured ([table] seats): run `voicehost calibrate` first")
    return mic_map(geometry)


def voices_for(config: Config) -> SeatVoices | ArrayVoices:
    """How the seats' voices are told apart: by channel, or by direction."""
    out_of_turn = config.audio.out_of_turn_ms / 1000
    if config.audio.array is not None:
        return ArrayVoices(config.audio.array, config.table.seats, out_of_turn)
    return SeatVoices(config.audio.channels.seats, out_of_turn)


@dataclass
class Microphones:
    """What a live evening hears with: one microphone (`source`), or a
    microphone per seat or an array's microphones (`channels`, the seats'
    voices judged by `voices`)."""

    recognizer: Recognizer
    source: Source | None = None
    channels: ChannelSource | None = None
    voices: SeatVoices | ArrayVoices | None = None

    @classmethod
    def open(cls, config: Config, recognizer: Recognizer, record: Path | None = None) -> Microphones:
        """The configured input: `[audio] channels`, else `[audio] input_device`;
        with `record`, every mapped channel is also kept in that WAV."""
        from voicehost.audio import ChannelMicrophone, MicrophoneSource, RecordedChannels

        mapped = array_map(config) or config.audio.channels
        if not mapped.on:
            return cls(recognizer, MicrophoneSource(config.audio.input_device or None))
        channels: ChannelSource = ChannelMicrophone(mapped, config.audio.input_device)
        if record is not None:
            try:
                channels = RecordedChannels(channels, mapped, record)
            except (VoicehostError, OSError):
                channels.close()
                raise
        return cls(recognizer, channels=channels, voices=voices_for(config))

    def listen(self, live: LiveTable, clock: GameClock, stopped: Callable[[], bool]) -> Coroutine[object, None, None]:
        if self.channels is not None and self.voices is not None:
            return listen_channels(live, self.channels, self.recognizer, clock, stopped, self.voices)
        assert self.source is not None
        return listen(live, self.source, self.recognizer, clock, stopped)

    def close(self) -> None:
        for source in (self.source, self.channels):
            if source is not None:
                source.close()
        close_recognizer(self.recognizer)   # every game of the evening listened with it


def show_captions(live: LiveTable, recognizer: Recognizer, offset: Callable[[], float]) -> None:
    """The page's captions from a captions recognizer's words, shifted into
    game time by `offset()`; None once they failed (the page then shows the rule words)."""
    if isinstance(recognizer, CaptionedRecognizer):
        live.open_captions = lambda: [w.shifted(offset()) for w in recognizer.captions] \
            if recognizer.captioning else None


def close_recognizer(recognizer: Recognizer) -> None:
    """Free the recognizer and give its memory back to the system (malloc_trim)."""
    close = getattr(recognizer, "close", None)
    if close is not None:
        close()


async def play_recording(live: LiveTable, source: Source, recognizer: Recognizer, host: HostScript,
                         clock: AudioClock) -> None:
    """A recorded game through the same pipeline: the audio drives the clock,
    faster than real time; the host's inputs are applied as the game reaches them."""
    offset = live.game_now() - recognizer.audio_time
    if isinstance(recognizer, CaptionedRecognizer):
        recognizer.catch_up = None   # faster than real time: the journal must not depend on the machine's speed
    show_captions(live, recognizer, lambda: offset)
    host.feed(live)

    def more() -> bool:
        live.tick()
        host.feed(live)
        return not (live.over or live.failure is not None)

    await hear_audio(live, source.chunks(), recognizer, Timing(lambda: offset, clock.skip_to, more))
    live.tick()
    close_recognizer(recognizer)


async def play_channels(live: LiveTable, source: ChannelSource, recognizer: Recognizer, host: HostScript,
                        clock: AudioClock, voices: SeatVoices | ArrayVoices) -> None:
    """A recording of a microphone per seat or of an array, through the same
    pipeline as `play_recording`, the seats told apart as at the table."""
    offset = live.game_now() - recognizer.audio_time
    if isinstance(recognizer, CaptionedRecognizer):
        recognizer.catch_up = None
    show_captions(live, recognizer, lambda: offset)
    host.feed(live)

    def more() -> bool:
        live.tick()
        host.feed(live)
        return not (live.over or live.failure is not None)

    await hear_frames(live, source.frames(), recognizer, voices, Timing(lambda: offset, clock.skip_to, more))
    live.tick()
    close_recognizer(recognizer)


def recognizer_for(config: Config, rules: RuleOptions, out: TextIO) -> VoskRecognizer | CaptionedRecognizer:
    """The recognizer `run` and `train` listen with (voicehost.asr.factory);
    the host is told which rule words the model can never hear."""
    recognizer, missing = make_recognizer(config, rules)
    if missing:
        words = ", ".join(missing[:12]) + (" …" if len(missing) > 12 else "")
        out.write(live_texts(rules.phrasebook).text("model_missing_words", count=len(missing), words=words) + "\n")
    return recognizer


def chunks_of(clip: Clip, seconds: float = 0.1) -> Iterator[bytes]:
    step = int(clip.rate * seconds) * 2
    for i in range(0, len(clip.pcm), step):
        yield clip.pcm[i:i + step]
