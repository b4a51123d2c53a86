"""Narration: what the moderator announces, as phrasebook keys with values.

Stages call `say`; the sentence is looked up in the table's phrasebook."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from voicehost.game.model import Cause, FloorKind, Output, OutputKind
from voicehost.phrasebook import verdict_values
from voicehost.phrases.listener import Nomination

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator

FLOOR_INTRO = {FloorKind.SPEECH: "floor_speech", FloorKind.TIE: "floor_tie",
               FloorKind.LAST_WORD: "floor_last_word"}
REMOVAL_SAY = {Cause.FOULS: "removed_fouls", Cause.DISQUALIFIED: "disqualified",
               Cause.LEFT_TABLE: "left_table"}


# The lines that name one player to the table: with `announce_names`, "…номер 3, Алиса".
NAMED = frozenset({"floor_speech", "floor_tie", "floor_last_word", "vote_question", "leaves", "killed",
                   "removed_fouls", "disqualified", "left_table", "best_player", "worst_player"})


def say(game: Moderator, key: str, *, private: bool = False, t: float | None = None,
        **values: Any) -> None:
    """Announce `key` with its values (at the game's time, or at `t`); a club
    that announces names (`[names] announce`) hears the player's after the seat."""
    when = game.state.clock.now if t is None else t
    seat = values.get("seat")
    if game.rules.announce_names and key in NAMED and isinstance(seat, int) and seat in game.state.record.names:
        values = {**values, "name": game.state.record.names[seat]}
    game.outputs.append(Output(when, OutputKind.SAY, key, private, values))


def suggest(game: Moderator, t: float, word: str, clause: str, seat: int, what: str) -> None:
    """Tell the host (only) that a forbidden word may deserve a foul."""
    game.outputs.append(Output(t, OutputKind.SUGGEST, clause, True,
                               {"seat": seat, "suggest": what, "word": word}))


def explain(game: Moderator, event: Nomination) -> None:
    """Training mode: why a nomination was not accepted."""
    reason, values = verdict_values(event, game.rules)
    game.outputs.append(Output(event.t, OutputKind.SAY, event.reason or "", False,
                               {"explain": reason, **values}))
