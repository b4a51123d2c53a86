"""Narration: what the moderator announces, as phrasebook keys with values.

Stages decide a `Say` (game/effects.py); the engine makes it an `Output`
here. The sentence is looked up in the table's phrasebook at the edge."""
from __future__ import annotations

from typing import TYPE_CHECKING

from voicehost.game.effects import Explain, Say, Suggest
from voicehost.game.keys import Key
from voicehost.game.model import Cause, FloorKind, Output, OutputKind

if TYPE_CHECKING:
    from voicehost.game.state import GameState
    from voicehost.phrasebook import Phrasebook
    from voicehost.records import Nomination
    from voicehost.rules import RuleOptions

FLOOR_INTRO = {FloorKind.SPEECH: Key.FLOOR_SPEECH, FloorKind.TIE: Key.FLOOR_TIE,
               FloorKind.LAST_WORD: Key.FLOOR_LAST_WORD}
REMOVAL_SAY = {Cause.FOULS: Key.REMOVED_FOULS, Cause.DISQUALIFIED: Key.DISQUALIFIED,
               Cause.LEFT_TABLE: Key.LEFT_TABLE}


# The lines that name one player to the table: with `announce_names`, "…номер 3, Алиса".
NAMED = frozenset({Key.FLOOR_SPEECH, Key.FLOOR_TIE, Key.FLOOR_LAST_WORD, Key.VOTE_QUESTION, Key.LEAVES, Key.KILLED,
                   Key.REMOVED_FOULS, Key.DISQUALIFIED, Key.LEFT_TABLE, Key.BEST_PLAYER, Key.WORST_PLAYER})


def said(state: GameState, rules: RuleOptions, effect: Say) -> Output:
    """An announcement at the game's time (or at its own `t`); a club that
    announces names (`[names] announce`) hears the player's after the seat."""
    when = state.clock.now if effect.t is None else effect.t
    values = effect.values
    if rules.announce_names and effect.key in NAMED:
        seat, names = values.get("seat"), state.record.names
        if isinstance(seat, int) and seat in names:
            values = {**values, "name": names[seat]}
    return Output(when, OutputKind.SAY, effect.key._value_, effect.private, values)


def suggestion(effect: Suggest) -> Output:
    """Tell the host (only) that a forbidden word may deserve a foul."""
    return Output(effect.t, OutputKind.SUGGEST, effect.clause, True,
                  {"seat": effect.seat, "suggest": effect.what, "word": effect.word})


def explanation(rules: RuleOptions, effect: Explain) -> Output:
    """Training mode: why a nomination was not accepted."""
    event = effect.nomination
    reason, values = verdict_values(event, rules)
    return Output(event.t, OutputKind.SAY, str(event.reason or ""), False, {"explain": reason, **values})


def verdict_values(event: Nomination, rules: RuleOptions) -> tuple[str, dict[str, object]]:
    """Why a nomination was refused: the explanation's key and its values."""
    if event.reason == "wrong_form" and event.culprit is None:
        return "extra_words_required", {"word": " ".join(rules.required_fillers)}
    if event.reason == "extra_words" and event.culprit == "[unk]":   # heard, but not as a word the rules know
        return "extra_words_unknown", {"seat": event.target}
    return event.reason or "", {"word": event.culprit or "", "seat": event.target,
                                "pause": round(event.pause or 0.0, 1),
                                "limit": rules.nomination_pause}


def verdict(book: Phrasebook, event: Nomination, rules: RuleOptions) -> str:
    """Training mode's answer to a nomination: the confirmation, or why not."""
    if event.accepted:
        return book.confirmation(event.target, rules.confirmation)
    key, values = verdict_values(event, rules)
    return book.explanation(key, **values)
