"""Each stage alone: a state in, a decision (effects) out, no engine.

A stage reads the game through a narrow `Context` and returns what it
decided; these tests build the context by hand, so a stage's rule can be
checked without playing a game up to it."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from voicehost.game import discipline, floors, night, voting
from voicehost.game import effects as fx
from voicehost.game.events import Votes
from voicehost.game.model import Cause, FloorKind, Phase, Role, Then, Timer, Winner
from voicehost.game.state import GameState
from voicehost.game.variants.sports import SportsVariant
from voicehost.phrases.grammar import Grammar
from voicehost.phrases.listener import Nomination
from voicehost.rules import RuleOptions, rules_for

SPORTS = SportsVariant()
DEAL = {1: Role.CITIZEN, 2: Role.MAFIA, 3: Role.CITIZEN, 4: Role.DON, 5: Role.CITIZEN,
        6: Role.SHERIFF, 7: Role.MAFIA, 8: Role.CITIZEN, 9: Role.CITIZEN, 10: Role.CITIZEN}


@dataclass
class FakeContext:
    """The sports variant's answers over a hand-built state: a stage's whole world."""

    rules: RuleOptions
    grammar: Grammar
    state: GameState = field(default_factory=GameState)
    default_seats: int = 10
    nominations_by_phrase: bool = True

    def seats(self) -> list[int]:
        return sorted(self.state.seats.roles)

    def side(self, seat: int) -> str:
        return SPORTS.side(self.state.seats.roles[seat])

    def role_seat(self, role: str) -> int | None:
        return next((s for s, r in self.state.seats.roles.items() if r.value == role), None)

    def speaking_order(self) -> list[int]:
        return SPORTS.speaking_order(self.state)

    def left_table_winner(self, seat: int) -> str | None:
        return SPORTS.left_table_winner(self, seat)

    def win_key(self, winner: str) -> str:
        return SPORTS.win_say[winner]


@pytest.fixture
def ctx(ru: Grammar) -> FakeContext:
    context = FakeContext(rules_for("4mafia"), ru)
    context.state.seats.roles = dict(DEAL)
    context.state.seats.alive = set(DEAL)
    context.state.seats.day, context.state.seats.night = 1, 1
    context.state.seats.phase = Phase.SPEECH
    return context


def keys(effects: fx.Effects) -> list[str]:
    return [e.key for e in effects if isinstance(e, fx.Say)]


def test_voted_out_asks_for_the_removal_and_the_win_check_before_the_last_word(ctx):
    effects = voting.voted_out(ctx, 7)
    assert effects == [fx.say("leaves", seat=7), fx.Remove(7, Cause.VOTE), fx.CheckWin(),
                       fx.QueueFloors((7,), FloorKind.LAST_WORD, Then.NIGHT)]
    assert 7 in ctx.state.seats.alive  # the removal is the engine's to apply
    assert ctx.state.day.vote_resolved


def test_a_tie_queues_tie_speeches_then_a_revote(ctx):
    ctx.state.seats.phase = Phase.TALLY
    ctx.state.day.candidates = [3, 7]
    effects = voting.after_tally(ctx, Votes({3: 5}))
    assert keys(effects) == ["vote_count", "vote_count", "tie"]
    assert effects[-1] == fx.QueueFloors((3, 7), FloorKind.TIE, Then.REVOTE)
    assert ctx.state.record.votes[-1].to_json()["counts"] == {"3": 5, "7": 5}


def test_no_nominees_means_night_without_a_vote(ctx):
    assert voting.start_vote(ctx) == [fx.say("no_nominees"), fx.Nightfall()]


def test_speech_seconds_is_a_question(ctx):
    ctx.state.record.silenced = {3}
    assert ctx.rules.silence == "skip"
    seconds, said = floors.speech_seconds(ctx, 3)
    assert seconds == 0.0
    assert keys(said) == ["silenced_skips"]
    assert ctx.state.record.silenced == {3}  # asking changed nothing


def test_speaking_order_is_a_question(ctx):
    ctx.state.day.opener = 9
    assert SPORTS.speaking_order(ctx.state) == [10, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert ctx.state.day.opener == 9


def test_a_floor_opens_with_its_timers(ctx):
    effects = floors.open_floor(ctx, 3, FloorKind.SPEECH, 60.0)
    assert effects[:2] == [fx.Enter(Phase.SPEECH), fx.say("floor_speech", seat=3)]
    assert fx.SetTimer(Timer.FLOOR_END, 60.0) in effects
    assert ctx.state.floors.floor is not None and ctx.state.floors.floor.seat == 3


def test_an_accepted_nomination_is_recorded_by_the_stage_not_the_listener(ctx):
    floors.open_floor(ctx, 3, FloorKind.SPEECH, 60.0)
    effects = floors.listener_events(ctx, [Nomination(7, True, 1.0)])
    assert keys(effects) == ["accepted"]
    assert ctx.state.day.today == [7] and ctx.state.day.nominators == {3}
    assert [n.to_json() for n in ctx.state.record.nominations] == [{"day": 1, "by": 3, "target": 7}]


def test_fourth_foul_asks_for_a_removal(ctx):
    ctx.state.record.fouls[5] = 3
    assert discipline.foul(ctx, 5) == [fx.Removal(5, Cause.FOULS)]


def test_leaving_the_table_finishes_for_the_other_team(ctx):
    effects = discipline.removal(ctx, 5, Cause.LEFT_TABLE)
    assert effects == [fx.say("left_table", seat=5), fx.Remove(5, Cause.LEFT_TABLE),
                       fx.Finish(Winner.BLACK)]


def test_a_removal_during_the_vote_cancels_it_and_restarts_it(ctx):
    ctx.state.seats.phase = Phase.VOTING
    effects = discipline.removal(ctx, 5, Cause.DISQUALIFIED)
    assert effects[-3:] == [fx.CheckWin(), fx.CancelDay(1), fx.StartVote()]


def test_the_night_2_victim_is_marked_only_if_the_game_goes_on(ctx):
    ctx.state.seats.night = 2
    effects = night.killed(ctx, 3)
    assert effects.index(fx.CheckWin()) < effects.index(fx.FirstKilled(3))
    assert ctx.state.record.first_killed is None


def test_three_quiet_rounds_are_a_draw(ctx):
    ctx.rules = rules_for("fiim")
    assert ctx.rules.quiet_rounds == "draw"
    ctx.state.seats.day = 4
    ctx.state.record.quiet_rounds = 2
    assert night.nightfall(ctx) == [fx.say("quiet_draw"), fx.Finish(Winner.DRAW)]
