"""The moderator: the whole game as a pure state machine.

Inputs go in with the time they happened (`handle`, `advance`); outputs come
out (what to say, what to suggest to the host); nothing here sleeps, plays
sound or opens a socket. The live loop, the simulator, journal replay and the
web page all drive this one engine.

The engine is small: it keeps the clock and the timers, admits or refuses an
input (game/admission.py), and hands the input to the stage that owns it:
floors, voting, night, discipline, scoring. A stage decides and returns its
decision as effects (game/effects.py); the engine is the one place that
applies them, turns announcements into outputs (narration), and routes a
cross-stage request (a removal, a win check, the next floors, nightfall) to
the stage that owns it. What differs between sports mafia and the city
variant is a `Variant` composed in; the stages ask the engine, which asks it.

Timers belong to the phase that set them and die with it. A timer fires at
its deadline, stamped with that deadline, however late `advance` is called:
so advancing to t1 and then t2 leaves the same state as advancing to t2, and a
journal of inputs with their times replays to the identical game."""
from __future__ import annotations

import copy
from collections.abc import Callable
from enum import Enum, StrEnum
from typing import Any, Literal

from voicehost.errors import GameError
from voicehost.game import apply, discipline, floors, narration, scoring
from voicehost.game import effects as fx
from voicehost.game.admission import admit
from voicehost.game.admission import fits as admission_fits
from voicehost.game.admission import precheck as admission_precheck
from voicehost.game.events import (
    BestMove,
    Candidates,
    Control,
    Event,
    Heard,
    LiftVotes,
    Names,
    OutOfTurn,
    Protest,
    SeatEvent,
    Seating,
    Setup,
    Speech,
    Votes,
    event_type,
)
from voicehost.game.keys import Key
from voicehost.game.model import Output, OutputKind, Phase, Timer
from voicehost.game.state import GameState
from voicehost.game.variants import Variant, variant_for
from voicehost.game.views import StateView
from voicehost.phrasebook import Phrasebook, load_phrasebook
from voicehost.phrases.grammar import Grammar, load_grammar
from voicehost.phrases.words import Word
from voicehost.refusals import RefuseKey
from voicehost.rules import RuleOptions


def _deadline(timer: tuple[str, float]) -> float:
    return timer[1]


def new_game(rules: RuleOptions) -> Moderator:
    """A new game of `rules`, its grammar and phrasebook loaded (Moderator.for_rules)."""
    return Moderator.for_rules(rules)


class Moderator(StateView):
    def __init__(self, rules: RuleOptions, grammar: Grammar, phrasebook: Phrasebook) -> None:
        """A game of `rules` that hears with `grammar` and speaks from
        `phrasebook`, both loaded by the caller (`for_rules` loads them)."""
        self.rules = rules
        self.grammar = grammar
        self.book = phrasebook
        self.variant: Variant = variant_for(rules)
        self.state = GameState()
        self.outputs: list[Output] = []

    @classmethod
    def for_rules(cls, rules: RuleOptions) -> Moderator:
        """A new game of `rules`, with the grammar and phrasebook they name."""
        return cls(rules, load_grammar(rules.grammar), load_phrasebook(rules.phrasebook))

    # ----------------------------------------------------------------- driving

    def handle(self, event: Event, now: float) -> list[Output]:
        """Advance the clock to `now`, then apply one input; all or nothing.

        A refused input leaves the game exactly as it was, clock included: the
        timers due by `now` still fire on the next `advance`, so nothing they
        announce is lost. Callers that can should `advance(now)` first."""
        mark = len(self.outputs)
        take, judged = INPUTS[type(event)]
        if judged:
            self._admit(event, now, mark)
        else:   # heard words, voice out of turn, the players' names: they fit anywhere
            self._advance(now)
        take(self, event)
        return self.outputs[mark:]

    def _admit(self, event: Event, now: float, mark: int) -> None:
        """Refuse `event` (GameError) where the game stands at `now`, leaving
        the game exactly as it was; else advance the clock to `now`."""
        due = self.next_deadline()
        if due is None or due > now:
            admit(self, event)  # nothing fires on the way to `now`: judge it here
            self._advance(now)
            return
        saved = self._save()
        self._advance(now)
        try:
            admit(self, event)
        except GameError:
            self.state = saved
            del self.outputs[mark:]
            raise

    def _save(self) -> GameState:
        """A copy of the state; what never changes (grammar, rules, the game
        itself as the listener's context) is shared, not copied."""
        memo: dict[int, object] = {id(self): self, id(self.grammar): self.grammar,
                                   id(self.rules): self.rules}
        return copy.deepcopy(self.state, memo)

    def copy(self) -> Moderator:
        """An independent game to go on from this one. The state is copied;
        the rules, grammar and phrasebook never change, and the outputs said
        so far are frozen: those are shared (the copy's list is its own)."""
        memo: dict[int, object] = {id(self.grammar): self.grammar, id(self.rules): self.rules,
                                   id(self.book): self.book, id(self.outputs): list(self.outputs)}
        return copy.deepcopy(self, memo)

    def advance(self, now: float) -> list[Output]:
        mark = len(self.outputs)
        self._advance(now)
        return self.outputs[mark:]

    def next_deadline(self) -> float | None:
        clock = self.state.clock
        if clock.paused_at is not None or not clock.timers:
            return None
        return min(clock.timers.values())

    def waiting_for(self) -> str | None:
        """The input the game cannot go on without, if it is stuck on one."""
        phase = self.state.seats.phase
        if phase is Phase.SETUP:
            return "setup"
        if phase is Phase.GAME_OVER:
            return None
        if self.state.clock.paused_at is not None:
            return "resume"
        return {
            Phase.TALLY: "votes",
            Phase.LIFT_VOTE: "lift_votes",
            Phase.CANDIDATES: "candidates",
            Phase.HUNT: None if self.state.clock.timers else "shot",
        }.get(phase)

    def fits(self, event: Event) -> bool:
        """Whether `event` can be applied where the game stands now."""
        return admission_fits(self, event)

    def precheck(self, event: Event) -> None:
        """Refuse, before anything moves, an input that can never fit."""
        admission_precheck(self, event)

    def where(self) -> str:
        """The game's phase in words, for error messages."""
        phase, floor = self.state.seats.phase, self.state.floors.floor
        if phase in (Phase.SETUP, Phase.GAME_OVER):
            return str(phase.value)
        stage = f"night {self.night}" if phase.is_night else f"day {self.day}"
        detail = phase.value
        if floor is not None:
            detail = f"{floor.kind.value} of seat {floor.seat}"
        elif phase in (Phase.VOTING, Phase.TALLY, Phase.LIFT_VOTE):
            detail = f"{phase.value}, round {self.state.day.vote_round}"
        return f"{stage}, {detail}"

    def error(self, message: str, event: Event | None = None, *, key: RefuseKey | Literal[""] = "",
              **values: object) -> GameError:
        """A refusal: the English message for the log, and the phrasebook's
        [refuse] key with its values for the table's language."""
        return GameError(message, phase=self.where(), event=event_type(event) if event else "",
                         key=key, values=values)

    # ------------------------------------------------------------- the clock

    def _advance(self, now: float) -> None:
        clock = self.state.clock
        while clock.paused_at is None and clock.timers:
            name, deadline = min(clock.timers.items(), key=_deadline)
            if deadline > now:
                break
            del clock.timers[name]
            clock.fired += 1
            clock.now = max(clock.now, deadline)
            self._fire(name)
        clock.now = max(clock.now, now)

    def _fire(self, name: str) -> None:
        if name == Timer.STEP:  # the most frequent: a number call, a vote question, a night window
            self._run(self.variant.step(self))
        elif name == Timer.FLOOR_END:
            self._run([fx.say(Key.FLOOR_OVER), fx.CloseFloor()])
        elif name == Timer.FLOOR_WARN:
            self.say(Key.TEN_SECONDS)
        elif name == Timer.PASS and self.state.floors.listener is not None:
            listener = self.state.floors.listener
            self._run(floors.listener_events(self, listener.expire(self.state.clock.now)))

    def set_timer(self, name: Timer, seconds: float) -> None:
        self.state.clock.timers[name] = self.state.clock.base + seconds

    def enter(self, phase: Phase) -> None:
        """Move to `phase` if the variant's transition table allows it; the
        old phase's timers die, and its floor unless the new phase is a floor."""
        seats = self.state.seats
        if phase is not seats.phase and phase not in self.variant.transitions[seats.phase]:
            raise RuntimeError(f"moderator bug: {seats.phase.value} -> {phase.value}")
        seats.phase = phase
        self.state.clock.timers.clear()
        if phase not in floors.FLOOR_PHASES.values():
            self.state.floors.floor = None
            self.state.floors.listener = None

    def say(self, key: Key, *, private: bool = False, t: float | None = None,
            **values: object) -> None:
        self.outputs.append(narration.said(self.state, self.rules, fx.Say(key, private=private, t=t, **values)))

    # ------------------------------------------------------ applying decisions

    def _run(self, effects: fx.Effects) -> bool:
        """Apply a stage's decision in order (game/apply.py); True (and the
        rest dropped) once an effect has ended the game."""
        return apply.run(self, effects)

    # ------------------------------------------------------------ the words

    def _speech(self, event: Speech) -> None:
        """A whole floor's words: each is heard when it starts, until the floor closes."""
        floor = self.state.floors.floor
        assert floor is not None
        floor.heard = True
        for word in event.words:
            heard = word.shifted(floor.start)
            if self.state.floors.floor is not floor or heard.start >= floor.end:
                break
            self._advance(heard.start)
            if self.state.floors.floor is not floor:
                break
            self._hear(heard)

    def _hear(self, word: Word) -> None:
        listening, clock = self.state.floors, self.state.clock
        if listening.listener is None or clock.paused_at is not None:
            return
        if word.seat is not None and (listening.floor is None or listening.floor.seat != word.seat):
            return   # SPEC §7.1: another seat's channel is never the speaker's words
        if word.unplaced:
            return   # SPEC §7.1: an array heard it from a direction that names no seat
        events = listening.listener.hear(word)
        clock.now = max(clock.now, word.end)
        self._run(floors.listener_events(self, events))
        if listening.listener is None:
            return
        deadline = listening.listener.pass_deadline
        if deadline is None:
            clock.timers.pop(Timer.PASS, None)
        else:
            clock.timers[Timer.PASS] = deadline

    def _out_of_turn(self, event: OutOfTurn) -> None:
        """SPEC §7.1: voice on a living seat's channel while another holds the
        floor is suggested to the host as a foul; the game itself is untouched."""
        floor = self.state.floors.floor
        if floor is None or floor.seat == event.seat or event.seat not in self.state.seats.alive \
                or self.state.clock.paused_at is not None or self.phase.is_night:
            return
        self.outputs.append(Output(event.start, OutputKind.SUGGEST, Key.OUT_OF_TURN.value, True,
                                   {"seat": event.seat, "suggest": "foul"}))

    # ----------------------------------------------------------------- inputs

    # One handler an input type (the table `INPUTS` below); an admitted input: nothing here refuses.

    def _setup(self, event: Setup) -> None:
        self.state.seats.roles = self.variant.deal(event.roles)
        self.state.seats.alive = set(self.state.seats.roles)
        self.state.seats.night = 1
        self._run(self.variant.first_night(self))

    def _heard(self, event: Heard) -> None:
        self._hear(event.word)

    def _names(self, event: Names) -> None:
        """The protocol's players, the exports (fits anywhere)."""
        names = self.state.record.names
        for seat, name in event.names.items():
            if name:
                names[seat] = name
            else:
                names.pop(seat, None)

    def _votes(self, event: Votes) -> None:
        self._run(self.variant.after_tally(self, event))

    def _lift_votes(self, event: LiftVotes) -> None:
        self._run(self.variant.lift_votes(self, event.count))

    def _best_move(self, event: BestMove) -> None:
        self._run(scoring.best_move(self, event))

    def _control_input(self, event: Control) -> None:
        self._control(event.type)

    def _candidates(self, event: Candidates) -> None:
        self._run(self.variant.candidates(self, list(event.seats)))

    def _seat_input(self, event: SeatEvent) -> None:
        self._run(self._seat_event(event))

    def _protest(self, event: Protest) -> None:
        self._run(scoring.protest(self, event))

    def _seating(self, event: Seating) -> None:
        self.state.record.names = dict(sorted(event.names.items()))
        self.say(Key.SEATING, players=[[seat, name] for seat, name in sorted(event.names.items())])

    def _seat_event(self, event: SeatEvent) -> fx.Effects:
        seat = event.seat
        if event.type in ("best_player", "worst_player"):
            assert seat is not None
            return scoring.award(self, seat, event.type)
        if event.type == "nominate":
            assert seat is not None
            return floors.host_nomination(self, seat)
        if event.type in discipline.HOST_REMOVALS or event.type in ("foul", "unfoul"):
            assert seat is not None
            return discipline.apply(self, event.type, seat)
        return self.variant.night_input(self, event)

    def _control(self, kind: str) -> None:
        clock = self.state.clock
        if kind == "pause":
            clock.paused_at = clock.now
            self.say(Key.PAUSED)
        elif kind == "resume":
            assert clock.paused_at is not None
            shift = clock.now - clock.paused_at
            clock.timers = {name: t + shift for name, t in clock.timers.items()}
            if self.state.floors.floor is not None:
                self.state.floors.floor.end += shift
            clock.paused_at = None
            self.say(Key.RESUMED)
            self._restart_count()
        else:
            self._run(floors.close_floor(self))

    def _restart_count(self) -> None:
        """The mafia's number calls, interrupted (a pause, a crash resumed
        paused) before the shot: they start again from one, as a host at the
        table would, so the mafia never shoots on a count that broke off."""
        night, phase = self.state.night, self.state.seats.phase
        if phase is Phase.HUNT and not night.shot_entered and 0 < night.hunt_index < self.variant.default_seats:
            night.hunt_index = 0
            self.state.clock.timers[Timer.STEP] = self.state.clock.now + self.rules.number_call_seconds
            self.say(Key.COUNT_AGAIN)

    # --------------------------------------- what the stages ask (a Context)

    @property
    def max_seat(self) -> int:
        return self.variant.max_seat

    @property
    def default_seats(self) -> int:
        return self.variant.default_seats

    @property
    def nominations_by_phrase(self) -> bool:
        return self.variant.nominations_by_phrase

    def seats(self) -> list[int]:
        return sorted(self.state.seats.roles) if self.state.seats.roles else list(
            range(1, self.variant.default_seats + 1))

    def seat_of(self, role: Enum) -> int:
        return next(seat for seat, r in self.state.seats.roles.items() if r is role)

    def role_seat(self, role: str) -> int | None:
        """The seat dealt the role named `role`, if one was."""
        return next((s for s, r in self.state.seats.roles.items() if r.value == role), None)

    def side(self, seat: int) -> str:
        return self.variant.side(self.state.seats.roles[seat])

    def speaking_order(self) -> list[int]:
        return self.variant.speaking_order(self.state)

    def left_table_winner(self, seat: int) -> StrEnum | None:
        return self.variant.left_table_winner(self, seat)

    def win_key(self, winner: str) -> Key:
        return self.variant.win_say[winner]

    # ---------------------------------------------------------- for readers

    def in_own_last_word(self, seat: int) -> bool:
        return discipline.in_own_last_word(self.state, seat)

    def best_move_open(self) -> bool:
        return self.variant.best_move_floor(self)

    def result_text(self) -> str | None:
        """How the game ended, in the phrasebook's words."""
        winner = self.state.record.winner
        return self.book.text(self.win_key(winner)) if winner else None

    def points(self) -> dict[int, float]:
        return scoring.points(self)


# How the moderator takes each input: its handler, and whether admission judges
# it first (False: it fits anywhere, and nothing of it is refused).
INPUTS: dict[type, tuple[Callable[[Moderator, Any], None], bool]] = {
    Heard: (Moderator._heard, False), OutOfTurn: (Moderator._out_of_turn, False),
    Names: (Moderator._names, False),
    Setup: (Moderator._setup, True), Speech: (Moderator._speech, True), Votes: (Moderator._votes, True),
    LiftVotes: (Moderator._lift_votes, True), BestMove: (Moderator._best_move, True),
    Control: (Moderator._control_input, True), Candidates: (Moderator._candidates, True),
    SeatEvent: (Moderator._seat_input, True), Protest: (Moderator._protest, True),
    Seating: (Moderator._seating, True),
}
