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
from voicehost.phrases.host import HostCommand, load_host_grammar, parse_host
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
               size: int = len(SEATS)) -> HostInput:
    """The input an utterance makes, read as any other (`parse_event`); an
    `InputError` carrying the refusal's key when it makes none."""
    command = parse_host(words, load_host_grammar(rules.language), wake=wake, wake_word=wake_word)
    said = " ".join(" ".join(words).split())
    if command.event is not None:
        return HostInput(said, command, parse_event(command.event, size))
    if command.control in GAME_CONTROLS:
        return HostInput(said, command, Control(EventType(command.control)))
    return HostInput(said, command, None)


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


__all__ = ["GAME_CONTROLS", "HostInput", "check_command", "host_input", "refusal_json"]
