"""The end of the game and its scores: the win, the best move, the best and
worst player, and the points (4.x). Each input's function returns what it
decided (game/effects.py); the record's scores are its own slice."""
from __future__ import annotations

from enum import StrEnum

from voicehost.game.effects import Context, Effects, Enter, say
from voicehost.game.events import BestMove, Protest
from voicehost.game.keys import Key
from voicehost.game.model import Phase, Team, Then
from voicehost.game.records import BestMoveRecord

BEST_MOVE_BONUS = {3: 0.5, 2: 0.25}
PROTEST_SAY = {"changed": Key.PROTEST_CHANGED, "annulled": Key.PROTEST_ANNULLED, "replayed": Key.PROTEST_REPLAYED}


def finish(game: Context, winner: StrEnum) -> Effects:
    """The game ends with `winner`: nothing queued goes on."""
    game.state.record.winner = winner
    floors = game.state.floors
    floors.queue, floors.then = [], Then.NOTHING
    game.state.day.speakers = []
    return [Enter(Phase.GAME_OVER), say(game.win_key(winner))]


def best_move(game: Context, event: BestMove) -> Effects:
    """The night-2 victim's best move: three seats, scored by the blacks among them."""
    floor = game.state.floors.floor
    assert floor is not None  # admission put us in the night-2 victim's last word
    seat, named = floor.seat, list(event.seats)
    blacks = sum(1 for s in named if game.side(s) == Team.BLACK)
    game.state.record.best_move = BestMoveRecord(seat, tuple(named), blacks)
    return [say(Key.BEST_MOVE, seat=seat, seats=named)]


def award(game: Context, seat: int, kind: str) -> Effects:
    record = game.state.record
    if kind == "best_player":
        record.best_player = seat
    else:
        record.worst_player = seat
    return [say(Key(kind), seat=seat)]


def protest_passes(team_size: int, votes: int) -> bool:
    """1.8.3: every player of the protesting team as dealt, and one opponent at least."""
    return votes >= team_size + 1


def protest(game: Context, event: Protest) -> Effects:
    """Kept on record; the standings apply its outcome (SPEC §6.3)."""
    game.state.record.protest = event
    team = sum(1 for seat in game.seats() if game.side(seat) == event.team)
    passed = protest_passes(team, event.votes)
    return [say(PROTEST_SAY[event.outcome] if passed else Key.PROTEST_FAILED, count=event.votes)]


def points(game: Context) -> dict[int, float]:
    record = game.state.record
    points = {seat: 0.0 for seat in game.seats()}
    for seat in game.state.seats.roles:
        if record.winner == game.side(seat):
            points[seat] += 1.0
    if record.best_move:
        points[record.best_move.seat] += BEST_MOVE_BONUS.get(record.best_move.blacks, 0.0)
    if record.best_player is not None:
        points[record.best_player] += 0.75
    if record.worst_player is not None:
        points[record.worst_player] -= 1.0
    return points
