"""The host's spoken commands as inputs (SPEC §7.2): one heard utterance
parsed (voicehost.phrases.host) and read as the same event the page and typed
play make (`parse_event`), so the game judges it as it judges them.
`check_command` is the `voicehost check-command` contract."""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from voicehost.errors import InputError, VoicehostError
from voicehost.game.events import Control, Event, EventType, parse_event
from voicehost.game.model import SEATS
from voicehost.game.moderator import new_game
from voicehost.jsontypes import JSONObject
from voicehost.phrasebook import load_phrasebook
from voicehost.phrases.host import HostCommand, HostGrammar, load_host_grammar, parse_host
from voicehost.refusals import RefuseKey
from voicehost.rules import RuleOptions

# The controls that are the game's own inputs; "undo" and "confirm" act on the table.
GAME_CONTROLS = ("pause", "resume", "next")


@dataclass(frozen=True)
class HostInput:
    """A heard utterance as the table takes it: the input, or "undo"/"confirm"."""

    said: str
    command: HostCommand
    event: Event | None

    @property
    def control(self) -> str | None:
        return self.command.control if self.event is None else None


def host_input(words: Sequence[str], rules: RuleOptions, *, wake: bool = False, wake_word: str = "",
               size: int = len(SEATS), grammar: HostGrammar | None = None) -> HostInput:
    """The input an utterance makes, read as any other (`parse_event`); an
    `InputError` carrying the refusal's key when it makes none. `grammar`:
    the table language's host grammar unless given (a bench's stand-ins)."""
    command = parse_host(words, grammar or load_host_grammar(rules.language), wake=wake, wake_word=wake_word)
    said = " ".join(" ".join(words).split())
    if command.event is not None:
        return HostInput(said, command, parse_event(command.event, size))
    if command.control in GAME_CONTROLS:
        return HostInput(said, command, Control(EventType(command.control)))
    return HostInput(said, command, None)


CONFIRM_SECONDS = 10.0   # "подтверждаю" and a wake-word command's "отмена" come within this


@dataclass(frozen=True)
class HostStep:
    """What the table does with an utterance: apply `event` (journaled with
    `heard`), undo the last host input, or wait for a confirmation of `awaiting`."""

    heard: tuple[str, ...]
    event: Event | None = None
    undo: bool = False
    awaiting: Event | None = None


@dataclass
class HostDesk:
    """The host's spoken commands at one table: each utterance becomes a step;
    a disqualification waits for "подтверждаю" within `CONFIRM_SECONDS` (of
    the caller's clock), and anything else said meanwhile lets it lapse. With
    a wake word (`wake`), "отмена" and "подтверждаю" are taken without it
    within `CONFIRM_SECONDS` of a command said back."""

    rules: RuleOptions
    size: int = len(SEATS)
    wake: bool = False
    wake_word: str = ""
    grammar: HostGrammar | None = None   # the table language's unless given
    pending: tuple[Event, str, float] | None = None
    last: float | None = None   # when the last command was taken (or awaited its confirmation)

    def take(self, words: Sequence[str], now: float) -> HostStep:
        taken = self._input(words, now)
        pending, self.pending = self.pending, None
        if taken.control == "confirm":
            if pending is None or now - pending[2] > CONFIRM_SECONDS:
                raise InputError("there is nothing to confirm", key=RefuseKey.NOTHING_TO_CONFIRM)
            self.last = now
            return HostStep((pending[1], taken.said), event=pending[0])
        if taken.control == "undo":
            self.last = None
            return HostStep((taken.said,), undo=True)
        assert taken.event is not None
        self.last = now
        if taken.command.needs_confirm:
            self.pending = (taken.event, taken.said, now)
            return HostStep((taken.said,), awaiting=taken.event)
        return HostStep((taken.said,), event=taken.event)

    def complete(self, words: Sequence[str], now: float) -> bool:
        """Whether `words` already make a command no further word could change
        (a tally could go on naming candidates), so it may be taken before the utterance ends."""
        try:
            taken = self._input(words, now)
        except InputError:
            return False
        return taken.command.event is None or taken.command.event.get("type") not in ("votes", "lift_votes")

    def _input(self, words: Sequence[str], now: float) -> HostInput:
        try:
            return host_input(words, self.rules, wake=self.wake, wake_word=self.wake_word, size=self.size,
                              grammar=self.grammar)
        except InputError as exc:
            if exc.key is not RefuseKey.NO_WAKE_WORD or self.last is None or now - self.last > CONFIRM_SECONDS:
                raise
            try:
                bare = host_input(words, self.rules, size=self.size, grammar=self.grammar)
            except InputError:
                raise exc from None
            if bare.control not in ("undo", "confirm"):
                raise
            return bare


def refusal_json(error: VoicehostError, rules: RuleOptions) -> JSONObject:
    book = load_phrasebook(rules.phrasebook)
    return {"accepted": False, "reason": str(error.key), "message": " ".join(book.refusal(error).split())}


def check_command(text: str, rules: RuleOptions, *, wake: bool = False, wake_word: str = "") -> str:
    """`voicehost check-command`: one utterance judged without a game, as one JSON line."""
    try:
        taken = host_input(text.split(), rules, wake=wake, wake_word=wake_word,
                           size=new_game(rules).max_seat)
        result: JSONObject = taken.command.to_json()
    except InputError as exc:
        result = refusal_json(exc, rules)
    return json.dumps(result, ensure_ascii=False) + "\n"


__all__ = ["CONFIRM_SECONDS", "GAME_CONTROLS", "HostDesk", "HostInput", "HostStep", "check_command", "host_input",
           "refusal_json"]
