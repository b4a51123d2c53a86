"""Discipline: fouls, their removal, and players leaving the game (3.x)."""
from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from voicehost.game import narration, scoring
from voicehost.game.model import Cause, Elimination, FloorKind, Phase

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator

# Phases between the morning and the day's vote result, where a removal
# cancels that day's vote (2.3.15–2.3.16).
DAY_PHASES = {Phase.SPEECH, Phase.VOTING, Phase.TALLY, Phase.TIE_SPEECH, Phase.LIFT_VOTE,
              Phase.LAST_WORD}
VOTE_PHASES = {Phase.VOTING, Phase.TALLY, Phase.TIE_SPEECH, Phase.LIFT_VOTE}
HOST_REMOVALS = {"disqualify": Cause.DISQUALIFIED, "leave_table": Cause.LEFT_TABLE}


def apply(game: Moderator, kind: str, seat: int) -> None:
    if kind == "foul":
        foul(game, seat)
    elif kind == "unfoul":
        unfoul(game, seat)
    else:
        removal(game, seat, HOST_REMOVALS[kind])


def in_own_last_word(game: Moderator, seat: int) -> bool:
    floor = game.state.floors.floor
    return (floor is not None and floor.kind is FloorKind.LAST_WORD
            and floor.seat == seat and seat not in game.state.seats.alive)


def foul(game: Moderator, seat: int) -> None:
    record = game.state.record
    record.fouls[seat] += 1
    count = record.fouls[seat]
    if count >= 4:
        removal(game, seat, Cause.FOULS)
    elif count == 3:
        game.say("third_foul", seat=seat)
        if seat in game.state.seats.alive:
            record.silenced.add(seat)
    else:
        game.say("foul", seat=seat, count=count)


def unfoul(game: Moderator, seat: int) -> None:
    """The host takes back a foul given by mistake (a removal stays)."""
    record = game.state.record
    record.fouls[seat] -= 1
    if record.fouls[seat] < 3:
        record.silenced.discard(seat)
    game.say("unfoul", seat=seat, count=record.fouls[seat])


def removal(game: Moderator, seat: int, cause: Cause) -> None:
    """A removal by the host: 4th foul, disqualification, leaving the table."""
    from voicehost.game import floors

    game.say(narration.REMOVAL_SAY[cause], seat=seat)
    if in_own_last_word(game, seat):
        floors.close_floor(game)
        return
    seats, day = game.state.seats, game.state.day
    before_result = seats.phase in DAY_PHASES and not day.vote_resolved
    remove(game, seat, cause)
    if cause is Cause.LEFT_TABLE:
        winner = game.variant.left_table_winner(game, seat)
        if winner is not None:
            scoring.finish(game, winner)
            return
    if scoring.check_win(game):
        return
    if before_result:
        day.cancel_day = seats.day
        if seats.phase in VOTE_PHASES:
            return game.variant.start_vote(game)
    elif game.rules.removal_cancels_vote == "nearest":
        day.cancel_day = seats.day + 1
    floor = game.state.floors.floor
    if floor is not None and floor.seat == seat:
        floors.close_floor(game)


def remove(game: Moderator, seat: int, cause: StrEnum) -> None:
    seats, record = game.state.seats, game.state.record
    seats.alive.discard(seat)
    record.silenced.discard(seat)
    at_night = seats.phase.is_night
    record.eliminated.append(Elimination(seat, cause, day=None if at_night else seats.day,
                                         night=seats.night if at_night else None))
    record.misses = 0
