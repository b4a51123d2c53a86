"""Voting: the rounds, the tally, ties and the lift vote.

`start_round`, `vote_step` and `tally` run every variant's vote; the rest is
the sports vote policy (2.3, FIIM 9.4), which the city variant replaces."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from voicehost.game import discipline, floors, scoring
from voicehost.game.events import Votes
from voicehost.game.model import Cause, FloorKind, Phase
from voicehost.game.records import VoteRecord

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator


def start_round(game: Moderator, candidates: list[int]) -> None:
    game.enter(Phase.VOTING)
    day = game.state.day
    day.vote_round += 1
    day.candidates = list(candidates)
    game.say("vote_nominees" if day.tied is None else "revote_nominees", seats=day.candidates)
    day.vote_index = 0
    game.say("vote_question", seat=day.candidates[0])
    game.set_timer("step", game.rules.vote_seconds)


def vote_step(game: Moderator) -> None:
    day = game.state.day
    game.say("vote_thanks")
    day.vote_index += 1
    if day.vote_index < len(day.candidates):
        game.say("vote_question", seat=day.candidates[day.vote_index])
        game.set_timer("step", game.rules.vote_seconds)
    else:
        game.enter(Phase.TALLY)


def full_counts(game: Moderator, given: dict[int, int]) -> dict[int, int]:
    """Admitted counts, the last candidate's made the remainder."""
    candidates = game.state.day.candidates
    voters, last = len(game.state.seats.alive), candidates[-1]
    counts = {seat: given.get(seat, 0) for seat in candidates}
    counts[last] = voters - sum(v for s, v in counts.items() if s != last)
    return counts


def tally(game: Moderator, event: Votes) -> list[int]:
    """Record and announce a tally; returns its leaders in nomination order."""
    counts = full_counts(game, event.counts)
    day = game.state.day
    game.state.record.votes.append(VoteRecord(game.state.seats.day, day.vote_round, counts=counts))
    for seat, count in counts.items():
        game.say("vote_count", seat=seat, count=count)
    top = max(counts.values())
    return [seat for seat in day.candidates if counts[seat] == top]


def no_vote(game: Moderator, key: str, **values: Any) -> None:
    game.say(key, **values)
    game.state.day.vote_resolved = True
    game.variant.nightfall(game)


# ----------------------------------------------------- the sports vote policy

def start_vote(game: Moderator) -> None:
    day, seats, rules = game.state.day, game.state.seats, game.rules
    nominees = [s for s in day.today if s in seats.alive]
    if day.cancel_day is not None and day.cancel_day <= seats.day:
        day.cancel_day = None
        return no_vote(game, "vote_cancelled")
    if not nominees:
        return no_vote(game, "no_nominees")
    if seats.day == 1 and rules.first_day_vote == "none":
        return no_vote(game, "no_vote_day_one")
    if seats.day == 1 and len(nominees) == 1:
        return no_vote(game, "single_day_one", seat=nominees[0])
    if len(nominees) == 1:
        seat = nominees[0]
        game.say("single_nominee", seat=seat)
        if rules.later_single_nominee == "vote":
            day.vote_round = 1
            game.state.record.votes.append(VoteRecord(seats.day, 1, counts={seat: len(seats.alive)}))
        return voted_out(game, seat)
    day.lift_only = seats.day == 1 and rules.first_day_vote == "lift_only"
    start_round(game, nominees)


def after_tally(game: Moderator, event: Votes) -> None:
    leaders = tally(game, event)
    day, alive, rules = game.state.day, game.state.seats.alive, game.rules
    if rules.everyone_tied_means_night and len(leaders) > 1 and set(leaders) == alive:
        return no_vote(game, "everyone_tied")
    if day.lift_only:
        day.tied = leaders
        return floors.queue_floors(game, leaders, FloorKind.TIE, then="lift")
    if len(leaders) == 1:
        return voted_out(game, leaders[0])
    if rules.no_revote_at_alive and len(alive) == rules.no_revote_at_alive:
        return no_vote(game, "no_revote")
    if day.tied is not None and set(leaders) == set(day.tied):
        return ask_lift(game)
    day.tied = leaders
    game.say("tie", seats=leaders)
    floors.queue_floors(game, leaders, FloorKind.TIE, then="revote")


def ask_lift(game: Moderator) -> None:
    game.enter(Phase.LIFT_VOTE)
    game.state.day.vote_round += 1
    game.say("lift_question")


def lift_votes(game: Moderator, count: int) -> None:
    day, voters = game.state.day, len(game.state.seats.alive)
    game.state.record.votes.append(VoteRecord(game.state.seats.day, day.vote_round, lift=count))
    game.say("lift_count", count=count)
    if count * 2 <= voters:
        return no_vote(game, "lift_no")
    group = list(day.tied or [])
    game.say("lift_yes", seats=group)
    day.vote_resolved = True
    for seat in group:
        discipline.remove(game, seat, Cause.LIFT)
    if not scoring.check_win(game):
        floors.queue_floors(game, group, FloorKind.LAST_WORD, then="night")


def voted_out(game: Moderator, seat: int) -> None:
    game.say("leaves", seat=seat)
    game.state.day.vote_resolved = True
    discipline.remove(game, seat, Cause.VOTE)
    if not scoring.check_win(game):
        floors.queue_floors(game, [seat], FloorKind.LAST_WORD, then="night")
