"""Narration: what the moderator announces, as phrasebook keys with values.

Stages call `say`; the sentence is looked up in the table's phrasebook."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from voicehost.game.model import Cause, FloorKind, Output

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator

FLOOR_INTRO = {FloorKind.SPEECH: "floor_speech", FloorKind.TIE: "floor_tie",
               FloorKind.LAST_WORD: "floor_last_word"}
REMOVAL_SAY = {Cause.FOULS: "removed_fouls", Cause.DISQUALIFIED: "disqualified",
               Cause.LEFT_TABLE: "left_table"}


def say(game: Moderator, key: str, *, private: bool = False, t: float | None = None,
        text: str | None = None, **values: Any) -> None:
    """Announce `key` (at the game's time, or at `t`); `text` overrides the
    phrasebook's sentence (a club's own confirmation phrase)."""
    text = text or game.book.text(key, **values)
    when = game.state.clock.now if t is None else t
    game.outputs.append(Output(when, "say", text, key, private, values))


def suggest(game: Moderator, t: float, word: str, clause: str, seat: int, what: str) -> None:
    """Tell the host (only) that a forbidden word may deserve a foul."""
    game.outputs.append(Output(t, "suggest", word, clause, True, {"seat": seat, "suggest": what}))


def explain(game: Moderator, t: float, reason: str, text: str) -> None:
    """Training mode: why a nomination was not accepted."""
    game.outputs.append(Output(t, "say", text, reason))
