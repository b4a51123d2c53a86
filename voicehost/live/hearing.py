"""The hearing stage, between the recognizer and the table: it drops the
table's own voice (the echo guard), gives every word as the rules hear it
(`heard_as`: "[unk]" unless the speech rules react to it) and rounds word
times, once, to the journal's centisecond. The table only applies what
comes out of it.

With a microphone per seat (SPEC §7.1, voicehost.channels) the words come
as `ChannelWords`: whose channel heard them. The floor's rules read only the
speaker's channel; the host's channel is handed on to `host` (the host's
voice commands); other seats' voice is judged by voicehost.live.seats."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from voicehost.asr import Revision
from voicehost.channels import Channel
from voicehost.game.events import OutOfTurn
from voicehost.journal.lines import UNK
from voicehost.phrases.words import Word

log = logging.getLogger(__name__)

Heard = Word | Revision


@dataclass(frozen=True, slots=True)
class ChannelWords:
    """Words (and revisions) one channel heard, in game time: `channel` None
    is the one shared microphone; else `channel.seat` None is the host's."""

    channel: Channel | None
    words: tuple[Heard, ...]

    @property
    def seat(self) -> int | None:
        return self.channel.seat if self.channel is not None else None

    @property
    def is_host(self) -> bool:
        return self.channel is not None and self.channel.seat is None


def heard_as(word: Word, reacts_to: Callable[[str], bool]) -> Word:
    """A word as the rules hear it: "[unk]" unless they react to it, times to
    the centisecond, no confidence (the journal keeps none)."""
    return Word(word.word if reacts_to(word.word) else UNK, round(word.start, 2), round(word.end, 2),
                seat=word.seat, angle=None if word.angle is None else round(word.angle, 1))


def out_of_turn(seat: int, start: float, end: float) -> OutOfTurn:
    """Voice on `seat`'s channel out of turn, its times (game clock) to the centisecond."""
    return OutOfTurn(seat, round(start, 2), round(end, 2))


class Hearing:
    """`reacts_to(text)`: whether the speech rules have a use for a word;
    `echo(start, end)`: whether the table's own voice was playing then."""

    def __init__(self, reacts_to: Callable[[str], bool], echo: Callable[[float, float], bool]) -> None:
        self.reacts_to = reacts_to
        self.echo = echo
        self.echoes = 0
        # The host's channel (SPEC §7.2): its audio, chunk by chunk with the
        # game time it starts at, goes to `host_audio` (the host's own
        # recognizer); the words heard there come back through `channel` and
        # are handed to `host`. Unset, the host's channel is heard by nobody:
        # never a player's words.
        self.host_audio: Callable[[bytes, float], None] | None = None
        self.host: Callable[[ChannelWords], None] | None = None

    def word(self, word: Word) -> Word | None:
        """A word as the table takes it, None for the table's own voice."""
        if self.echo(word.start, word.end):
            self.echoes += 1
            log.debug("ignored own voice: %s", word.word)
            return None
        return heard_as(word, self.reacts_to)

    def revision(self, change: Revision) -> tuple[list[Word], list[Word]]:
        """The provisional words as the table took them, and the final ones,
        the table's own voice left out."""
        old = [heard_as(w, self.reacts_to) for w in change.old]
        new = [heard_as(w, self.reacts_to) for w in change.new if not self.echo(w.start, w.end)]
        return old, new

    def channel(self, heard: ChannelWords) -> tuple[Heard, ...]:
        """What of one channel's words goes to the floor's rules: all of the
        shared microphone's and the speaker's channel's; the host's are handed on."""
        if heard.is_host:
            if self.host is not None:
                self.host(heard)
            return ()
        return heard.words


__all__ = ["ChannelWords", "Hearing", "heard_as", "out_of_turn"]
