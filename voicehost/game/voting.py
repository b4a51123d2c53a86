"""Voting: the rounds, the tally, ties and the lift vote.

`start_round`, `vote_step` and `tally` run every variant's vote; the rest is
the sports vote policy (2.3, FIIM 9.4), which the city variant replaces.
Each function returns what it decided (game/effects.py); the day's vote
slice of the state it keeps itself."""
from __future__ import annotations

from voicehost.game.effects import (
    CheckWin,
    Context,
    Effects,
    Enter,
    Nightfall,
    QueueFloors,
    Remove,
    SetTimer,
    say,
)
from voicehost.game.events import Votes
from voicehost.game.keys import Key
from voicehost.game.model import Cause, FloorKind, Phase, Then, Timer
from voicehost.game.records import VoteRecord
from voicehost.rules import FirstDayVote, LaterSingleNominee


def start_round(game: Context, candidates: tuple[int, ...]) -> Effects:
    day = game.state.day
    day.vote_round += 1
    day.candidates = list(candidates)
    effects: Effects = [Enter(Phase.VOTING),
                        say(Key.VOTE_NOMINEES if day.tied is None else Key.REVOTE_NOMINEES,
                            seats=day.candidates)]
    day.vote_index = 0
    return [*effects, say(Key.VOTE_QUESTION, seat=day.candidates[0]),
            SetTimer(Timer.STEP, game.rules.vote_seconds)]


def vote_step(game: Context) -> Effects:
    day = game.state.day
    effects: Effects = [say(Key.VOTE_THANKS)]
    day.vote_index += 1
    if day.vote_index < len(day.candidates):
        return [*effects, say(Key.VOTE_QUESTION, seat=day.candidates[day.vote_index]),
                SetTimer(Timer.STEP, game.rules.vote_seconds)]
    return [*effects, Enter(Phase.TALLY)]


def full_counts(game: Context, given: dict[int, int]) -> dict[int, int]:
    """Admitted counts, the last candidate's made the remainder."""
    candidates = game.state.day.candidates
    voters, last = len(game.state.seats.alive), candidates[-1]
    counts = {seat: given.get(seat, 0) for seat in candidates}
    counts[last] = voters - sum(v for s, v in counts.items() if s != last)
    return counts


def tally(game: Context, event: Votes) -> tuple[list[int], Effects]:
    """Record a tally; its leaders in nomination order, and its announcement."""
    counts = full_counts(game, event.counts)
    day = game.state.day
    game.state.record.votes.append(VoteRecord(game.state.seats.day, day.vote_round, counts=counts))
    effects: Effects = [say(Key.VOTE_COUNT, seat=seat, count=count) for seat, count in counts.items()]
    top = max(counts.values())
    return [seat for seat in day.candidates if counts[seat] == top], effects


def no_vote(game: Context, key: Key, seat: int | None = None) -> Effects:
    game.state.day.vote_resolved = True
    return [say(key) if seat is None else say(key, seat=seat), Nightfall()]


# ----------------------------------------------------- the sports vote policy

def start_vote(game: Context) -> Effects:
    day, seats, rules = game.state.day, game.state.seats, game.rules
    nominees = [s for s in day.today if s in seats.alive]
    if day.cancel_day is not None and day.cancel_day <= seats.day:
        day.cancel_day = None
        return no_vote(game, Key.VOTE_CANCELLED)
    if not nominees:
        return no_vote(game, Key.NO_NOMINEES)
    if seats.day == 1 and rules.first_day_vote == FirstDayVote.NONE:
        return no_vote(game, Key.NO_VOTE_DAY_ONE)
    if seats.day == 1 and len(nominees) == 1:
        return no_vote(game, Key.SINGLE_DAY_ONE, seat=nominees[0])
    if len(nominees) == 1:
        seat = nominees[0]
        if rules.later_single_nominee == LaterSingleNominee.VOTE:
            day.vote_round = 1
            game.state.record.votes.append(VoteRecord(seats.day, 1, counts={seat: len(seats.alive)}))
        return [say(Key.SINGLE_NOMINEE, seat=seat), *voted_out(game, seat)]
    day.lift_only = seats.day == 1 and rules.first_day_vote == FirstDayVote.LIFT_ONLY
    return start_round(game, tuple(nominees))


def after_tally(game: Context, event: Votes) -> Effects:
    leaders, effects = tally(game, event)
    day, alive, rules = game.state.day, game.state.seats.alive, game.rules
    if rules.everyone_tied_means_night and len(leaders) > 1 and set(leaders) == alive:
        return effects + no_vote(game, Key.EVERYONE_TIED)
    if day.lift_only:
        day.tied = leaders
        return [*effects, QueueFloors(tuple(leaders), FloorKind.TIE, Then.LIFT)]
    if len(leaders) == 1:
        return effects + voted_out(game, leaders[0])
    if rules.no_revote_at_alive and len(alive) == rules.no_revote_at_alive:
        return effects + no_vote(game, Key.NO_REVOTE)
    if day.tied is not None and set(leaders) == set(day.tied):
        return effects + ask_lift(game)
    day.tied = leaders
    return [*effects, say(Key.TIE, seats=leaders),
            QueueFloors(tuple(leaders), FloorKind.TIE, Then.REVOTE)]


def ask_lift(game: Context) -> Effects:
    game.state.day.vote_round += 1
    return [Enter(Phase.LIFT_VOTE), say(Key.LIFT_QUESTION)]


def lift_votes(game: Context, count: int) -> Effects:
    day, voters = game.state.day, len(game.state.seats.alive)
    game.state.record.votes.append(VoteRecord(game.state.seats.day, day.vote_round, lift=count))
    effects: Effects = [say(Key.LIFT_COUNT, count=count)]
    if count * 2 <= voters:
        return effects + no_vote(game, Key.LIFT_NO)
    group = list(day.tied or [])
    day.vote_resolved = True
    return [*effects, say(Key.LIFT_YES, seats=group), *(Remove(seat, Cause.LIFT) for seat in group),
            CheckWin(), QueueFloors(tuple(group), FloorKind.LAST_WORD, Then.NIGHT)]


def voted_out(game: Context, seat: int) -> Effects:
    game.state.day.vote_resolved = True
    return [say(Key.LEAVES, seat=seat), Remove(seat, Cause.VOTE), CheckWin(),
            QueueFloors((seat,), FloorKind.LAST_WORD, Then.NIGHT)]
