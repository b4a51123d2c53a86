"""Discipline: fouls, their removal, and players leaving the game (3.x).

Each function returns what it decided (game/effects.py); the fouls and the
eliminations are its own slice of the state."""
from __future__ import annotations

from enum import StrEnum

from voicehost.game.effects import (
    CancelDay,
    CheckWin,
    CloseFloor,
    Context,
    Effects,
    Finish,
    Removal,
    Remove,
    StartVote,
    say,
)
from voicehost.game.keys import Key
from voicehost.game.model import Cause, Elimination, FloorKind, Phase
from voicehost.game.narration import REMOVAL_SAY
from voicehost.game.state import GameState
from voicehost.rules import RemovalCancelsVote

# Phases between the morning and the day's vote result, where a removal
# cancels that day's vote (2.3.15–2.3.16).
DAY_PHASES = {Phase.SPEECH, Phase.VOTING, Phase.TALLY, Phase.TIE_SPEECH, Phase.LIFT_VOTE,
              Phase.LAST_WORD}
VOTE_PHASES = {Phase.VOTING, Phase.TALLY, Phase.TIE_SPEECH, Phase.LIFT_VOTE}
HOST_REMOVALS = {"disqualify": Cause.DISQUALIFIED, "leave_table": Cause.LEFT_TABLE}


def apply(game: Context, kind: str, seat: int) -> Effects:
    if kind == "foul":
        return foul(game, seat)
    if kind == "unfoul":
        return unfoul(game, seat)
    return [Removal(seat, HOST_REMOVALS[kind])]


def in_own_last_word(state: GameState, seat: int) -> bool:
    floor = state.floors.floor
    return (floor is not None and floor.kind is FloorKind.LAST_WORD
            and floor.seat == seat and seat not in state.seats.alive)


def foul(game: Context, seat: int) -> Effects:
    record = game.state.record
    record.fouls[seat] += 1
    count = record.fouls[seat]
    if count >= 4:
        return [Removal(seat, Cause.FOULS)]
    if count == 3:
        if seat in game.state.seats.alive:
            record.silenced.add(seat)
        return [say(Key.THIRD_FOUL, seat=seat)]
    return [say(Key.FOUL, seat=seat, count=count)]


def unfoul(game: Context, seat: int) -> Effects:
    """The host takes back a foul given by mistake (a removal stays)."""
    record = game.state.record
    record.fouls[seat] -= 1
    if record.fouls[seat] < 3:
        record.silenced.discard(seat)
    return [say(Key.UNFOUL, seat=seat, count=record.fouls[seat])]


def removal(game: Context, seat: int, cause: Cause) -> Effects:
    """A removal by the host: 4th foul, disqualification, leaving the table."""
    effects: Effects = [say(REMOVAL_SAY[cause], seat=seat)]
    state = game.state
    if in_own_last_word(state, seat):
        return [*effects, CloseFloor()]
    seats, day = state.seats, state.day
    before_result = seats.phase in DAY_PHASES and not day.vote_resolved
    effects.append(Remove(seat, cause))
    if cause is Cause.LEFT_TABLE:
        winner = game.left_table_winner(seat)
        if winner is not None:
            return [*effects, Finish(winner)]
    effects.append(CheckWin())
    if before_result:
        effects.append(CancelDay(seats.day))
        if seats.phase in VOTE_PHASES:
            return [*effects, StartVote()]
    elif game.rules.removal_cancels_vote == RemovalCancelsVote.NEAREST:
        effects.append(CancelDay(seats.day + 1))
    floor = state.floors.floor
    if floor is not None and floor.seat == seat:
        effects.append(CloseFloor())
    return effects


def remove(state: GameState, seat: int, cause: StrEnum) -> None:
    """Applied by the engine for every stage: a player leaves the game."""
    seats, record = state.seats, state.record
    seats.alive.discard(seat)
    record.silenced.discard(seat)
    at_night = seats.phase.is_night
    record.eliminated.append(Elimination(seat, cause, day=None if at_night else seats.day,
                                         night=seats.night if at_night else None))
    record.misses = 0
