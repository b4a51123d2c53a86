"""Applying a stage's decision: the engine's one place where effects happen.

A stage (floors, voting, night, discipline, scoring, a variant) returns a list
of effects (game/effects.py). `run` applies them in order and routes each
cross-stage request to the stage that owns it, at the moment it is reached, so
the owner decides from the game as it stands then; once an effect ends the
game, the rest is dropped. The moderator (game/moderator.py) keeps the clock
and the inputs; this module is the other half of the engine."""
from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from voicehost.game import discipline, floors, narration, night, scoring, voting
from voicehost.game import effects as fx
from voicehost.game.narration import said

if TYPE_CHECKING:
    from voicehost.game.model import Phase, Timer
    from voicehost.game.variants.base import Variant
    from voicehost.records import Output


class Engine(fx.Context, Protocol):
    """What applying a decision reaches of a game: a stage's Context, the
    game's variant, the outputs said so far, and the two moves the engine
    itself makes (entering a phase, setting a timer)."""

    @property
    def variant(self) -> Variant: ...

    @property
    def outputs(self) -> list[Output]: ...

    def enter(self, phase: Phase) -> None: ...

    def set_timer(self, name: Timer, seconds: float) -> None: ...


def run(game: Engine, effects: fx.Effects) -> bool:
    """Apply a stage's decision in order; True (and the rest dropped) once
    an effect has ended the game."""
    outputs, state, rules = game.outputs, game.state, game.rules
    for effect in effects:
        # The most frequent effects are applied inline, most frequent first (the
        # engine runs thousands of games a second); the others by the table `APPLY`.
        if isinstance(effect, fx.Say):
            outputs.append(said(state, rules, effect))
        elif isinstance(effect, fx.SetTimer):
            clock = state.clock
            clock.timers[effect.name] = clock.base + effect.seconds
        elif isinstance(effect, fx.Enter):
            game.enter(effect.phase)
        elif isinstance(effect, fx.CloseFloor):
            if run(game, floors.close_floor(game)):
                return True
        elif APPLY[type(effect)](game, effect):
            return True
    return False


# One applier an effect type (the table `APPLY` below); True: the game ended.


def say(game: Engine, effect: fx.Say) -> bool:
    game.outputs.append(narration.said(game.state, game.rules, effect))
    return False


def suggest(game: Engine, effect: fx.Suggest) -> bool:
    game.outputs.append(narration.suggestion(effect))
    return False


def explain(game: Engine, effect: fx.Explain) -> bool:
    game.outputs.append(narration.explanation(game.rules, effect))
    return False


def enter(game: Engine, effect: fx.Enter) -> bool:
    game.enter(effect.phase)
    return False


def set_timer(game: Engine, effect: fx.SetTimer) -> bool:
    game.set_timer(effect.name, effect.seconds)
    return False


def set_deadline(game: Engine, effect: fx.SetDeadline) -> bool:
    game.state.clock.timers[effect.name] = effect.at
    return False


def clear_timers(game: Engine, effect: fx.ClearTimers) -> bool:
    game.state.clock.timers.clear()
    return False


def remove(game: Engine, effect: fx.Remove) -> bool:
    discipline.remove(game.state, effect.seat, effect.cause)
    return False


def removal(game: Engine, effect: fx.Removal) -> bool:
    return run(game, discipline.removal(game, effect.seat, effect.cause))


def check_win(game: Engine, effect: fx.CheckWin) -> bool:
    winner = game.variant.winner(game)
    return winner is not None and finish(game, winner)


def finish_with(game: Engine, effect: fx.Finish) -> bool:
    return finish(game, effect.winner)


def start_speeches(game: Engine, effect: fx.StartSpeeches | None = None) -> bool:
    return run(game, floors.start_speeches(game))


def queue_floors(game: Engine, effect: fx.QueueFloors) -> bool:
    return run(game, floors.queue_floors(game, effect.seats, effect.kind, effect.then))


def close_floor(game: Engine, effect: fx.CloseFloor) -> bool:
    return run(game, floors.close_floor(game))


def start_vote(game: Engine, effect: fx.StartVote) -> bool:
    return run(game, game.variant.start_vote(game))


def start_round(game: Engine, effect: fx.StartRound) -> bool:
    return run(game, voting.start_round(game, effect.candidates))


def ask_lift(game: Engine, effect: fx.AskLift) -> bool:
    return run(game, voting.ask_lift(game))


def cancel_day(game: Engine, effect: fx.CancelDay) -> bool:
    game.state.day.cancel_day = effect.day
    return False


def nightfall(game: Engine, effect: fx.Nightfall) -> bool:
    return run(game, game.variant.nightfall(game))


def morning(game: Engine, effect: fx.Morning) -> bool:
    return run(game, night.morning(game))


def dawn(game: Engine, effect: fx.Dawn) -> bool:
    return run(game, game.variant.dawn(game))


def first_killed(game: Engine, effect: fx.FirstKilled) -> bool:
    game.state.record.first_killed = effect.seat
    return False


def finish(game: Engine, winner: StrEnum) -> bool:
    run(game, scoring.finish(game, winner))
    return True


# How the engine applies each effect (a stage's decision); True: the game ended.
APPLY: dict[type, Callable[[Engine, Any], bool]] = {
    fx.Say: say, fx.Suggest: suggest, fx.Explain: explain,
    fx.Enter: enter, fx.SetTimer: set_timer,
    fx.SetDeadline: set_deadline, fx.ClearTimers: clear_timers,
    fx.Remove: remove, fx.Removal: removal, fx.CheckWin: check_win,
    fx.Finish: finish_with, fx.StartSpeeches: start_speeches,
    fx.QueueFloors: queue_floors, fx.CloseFloor: close_floor,
    fx.StartVote: start_vote, fx.StartRound: start_round,
    fx.AskLift: ask_lift, fx.CancelDay: cancel_day,
    fx.Nightfall: nightfall, fx.Morning: morning, fx.Dawn: dawn,
    fx.FirstKilled: first_killed,
}
