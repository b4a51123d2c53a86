"""The table's voice: a speaker that survives any failure of one
announcement, and whose playback times are on the game clock, where the
heard words are, so its own voice is recognised as an echo."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from voicehost.audio import AudioError, Clip, Sink
from voicehost.errors import VoicehostError
from voicehost.game.moderator import Moderator
from voicehost.live.clock import Clock
from voicehost.tts import Speaker, Voice, VoiceError

log = logging.getLogger(__name__)


class SupervisedVoice:
    """A voice whose every failure is a VoiceError: the speaker logs it, skips
    that announcement and speaks the rest of the game."""

    def __init__(self, voice: Voice) -> None:
        self.voice = voice
        self.name = voice.name

    def synthesize(self, text: str) -> Iterator[Clip]:
        try:
            for clip in self.voice.synthesize(text):
                if not isinstance(clip, Clip):  # the speaker would trip over it on its own thread
                    raise VoiceError(f"the voice {self.name} gave {type(clip).__name__}, not audio")
                yield clip
        except VoicehostError:
            raise
        except Exception as exc:
            log.exception("the voice failed on %r", text)
            raise VoiceError(f"the voice {self.name} failed ({type(exc).__name__}: {exc})") from exc


class SupervisedSink:
    """A sound device whose every failure is an AudioError, as for the voice."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink

    def play(self, clip: Clip) -> None:
        try:
            self.sink.play(clip)
        except VoicehostError:
            raise
        except Exception as exc:
            log.exception("the sound device failed")
            raise AudioError(f"the sound device failed ({type(exc).__name__}: {exc})") from exc

    def close(self) -> None:
        try:
            self.sink.close()
        except Exception:  # closing at the end must not hide the game's result
            log.exception("the sound device failed to close")


def supervised_speaker(voice: Voice, table: Sink, earpiece: Sink | None, clock: Clock, *, lag: float = 0.0,
                       tail: float = 0.3, realtime: bool = True) -> Speaker:
    """A speaker on the game clock: heard words carry game time (the wall
    clock less `lag`), so playback is timed on the same clock."""
    return Speaker(SupervisedVoice(voice), SupervisedSink(table),
                   SupervisedSink(earpiece) if earpiece is not None else None,
                   lambda: clock.now() - lag, tail=tail, realtime=realtime)


def fixed_phrases(game: Moderator) -> list[str]:
    """Every announcement whose text is known before the game: rendered at start-up."""
    book = game.book
    texts = [text for text in book.say.values() if "{" not in text]
    seats = range(1, game.max_seat + 1)
    for key in ("floor_speech", "floor_tie", "floor_last_word", "vote_question", "leaves", "killed",
                "number"):
        texts += [book.text(key, seat=seat) for seat in seats]
    if game.rules.confirm_nominations:
        texts += [book.confirmation(s, game.rules.confirmation) for s in seats]
    return list(dict.fromkeys(texts))


def prerender(speaker: Speaker, game: Moderator, folder: Path) -> None:
    try:
        speaker.prerender(fixed_phrases(game), folder)
    except VoicehostError as exc:
        log.warning("could not prerender the fixed announcements: %s", exc)
