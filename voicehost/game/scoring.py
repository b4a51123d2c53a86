"""The end of the game and its scores: the win check, the best move, the
best and worst player, and the points (4.x)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from voicehost.game.events import BestMove, Protest
from voicehost.game.model import Phase, Team
from voicehost.game.records import BestMoveRecord

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator

BEST_MOVE_BONUS = {3: 0.5, 2: 0.25}
PROTEST_SAY = {"changed": "protest_changed", "annulled": "protest_annulled", "replayed": "protest_replayed"}


def check_win(game: Moderator) -> bool:
    """End the game if the variant says a side has won; True once it is over."""
    winner = game.variant.winner(game)
    if winner is not None:
        finish(game, winner)
    return game.state.seats.phase is Phase.GAME_OVER


def finish(game: Moderator, winner: str) -> None:
    game.state.record.winner = winner
    floors = game.state.floors
    floors.queue, floors.then = [], ""
    game.state.day.speakers = []
    game.enter(Phase.GAME_OVER)
    game.say(game.variant.win_say[winner])


def best_move(game: Moderator, event: BestMove) -> None:
    """The night-2 victim's best move: three seats, scored by the blacks among them."""
    floor = game.state.floors.floor
    assert floor is not None  # admission put us in the night-2 victim's last word
    seat, named = floor.seat, list(event.seats)
    blacks = sum(1 for s in named if game.side(s) == Team.BLACK)
    game.state.record.best_move = BestMoveRecord(seat, tuple(named), blacks)
    game.say("best_move", seat=seat, seats=named)


def award(game: Moderator, seat: int, kind: str) -> None:
    record = game.state.record
    if kind == "best_player":
        record.best_player = seat
    else:
        record.worst_player = seat
    game.say(kind, seat=seat)


def protest_passes(team_size: int, votes: int) -> bool:
    """1.8.3: every player of the protesting team as dealt, and one opponent at least."""
    return votes >= team_size + 1


def protest(game: Moderator, event: Protest) -> None:
    """Kept on record; the standings apply its outcome (SPEC §6.3)."""
    game.state.record.protest = event
    team = sum(1 for seat in game.seats() if game.side(seat) == event.team)
    passed = protest_passes(team, event.votes)
    game.say(PROTEST_SAY[event.outcome] if passed else "protest_failed", count=event.votes)


def result_text(game: Moderator) -> str | None:
    """How the game ended, in the phrasebook's words."""
    winner = game.state.record.winner
    return game.book.text(game.variant.win_say[winner]) if winner else None


def points(game: Moderator) -> dict[int, float]:
    record, roles = game.state.record, game.state.seats.roles
    points = {seat: 0.0 for seat in game.seats()}
    for seat, role in roles.items():
        if record.winner == game.variant.side(role):
            points[seat] += 1.0
    if record.best_move:
        points[record.best_move.seat] += BEST_MOVE_BONUS.get(record.best_move.blacks, 0.0)
    if record.best_player is not None:
        points[record.best_player] += 0.75
    if record.worst_player is not None:
        points[record.worst_player] -= 1.0
    return points
