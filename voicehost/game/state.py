"""The game's state as plain data: the clock, the table, the day, the night,
the floors, and the record the protocol is written from.

Everything that decides what the game does next lives here, so a copy of a
`GameState` is a copy of the game (admission rolls a refusal back this way)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum, StrEnum

from voicehost.game.events import Protest
from voicehost.game.model import Elimination, Floor, FloorKind, Phase, Then
from voicehost.game.records import BestMoveRecord, CheckRecord, NominationRecord, VoteRecord
from voicehost.phrases.listener import SpeechListener


@dataclass
class Clock:
    """Game time, the phase's timers (name -> deadline), and a pause."""

    now: float = 0.0
    timers: dict[str, float] = field(default_factory=dict)
    fired: int = 0
    paused_at: float | None = None

    @property
    def base(self) -> float:
        """Where a timer set now counts from: the pause's start while paused,
        so a floor opened during a pause (`/next`) gets its whole time after
        the resume shifts every deadline by the pause's length."""
        return self.now if self.paused_at is None else self.paused_at

    def left(self, deadline: float) -> float:
        """Seconds left to `deadline`, standing still while paused."""
        return max(0.0, deadline - self.base)


@dataclass
class Seating:
    """Who sits where and who is still in the game."""

    roles: dict[int, Enum] = field(default_factory=dict)
    alive: set[int] = field(default_factory=set)
    phase: Phase = Phase.SETUP
    day: int = 0
    night: int = 0


@dataclass
class DayState:
    """Today's speeches, nominations and votes; reset each morning."""

    opener: int | None = None
    speakers: list[int] = field(default_factory=list)
    today: list[int] = field(default_factory=list)
    nominators: set[int] = field(default_factory=set)
    candidates: list[int] = field(default_factory=list)
    tied: list[int] | None = None
    vote_round: int = 0
    vote_index: int = 0
    lift_only: bool = False
    vote_resolved: bool = False
    cancel_day: int | None = None


@dataclass
class NightState:
    """Tonight's inputs: the shot, the number calls, a variant's role windows."""

    shot: int | None = None
    shot_entered: bool = False
    hunt_index: int = 0
    windows: list[str] = field(default_factory=list)
    window: int = -1
    actions: dict[str, int | None] = field(default_factory=dict)


@dataclass
class Floors:
    """The open floor, its listener, and the floors queued after it."""

    floor: Floor | None = None
    listener: SpeechListener | None = None
    count: int = 0
    queue: list[tuple[int, FloorKind]] = field(default_factory=list)
    then: Then = Then.NOTHING


@dataclass
class Record:
    """What the protocol is written from, and the counts that end a game quietly."""

    nominations: list[NominationRecord] = field(default_factory=list)
    votes: list[VoteRecord] = field(default_factory=list)
    checks: list[CheckRecord] = field(default_factory=list)
    fouls: Counter[int] = field(default_factory=Counter)
    silenced: set[int] = field(default_factory=set)
    eliminated: list[Elimination] = field(default_factory=list)
    misses: int = 0
    quiet_rounds: int = 0
    eliminated_at_nightfall: int = 0
    first_killed: int | None = None
    best_move: BestMoveRecord | None = None
    best_player: int | None = None
    worst_player: int | None = None
    winner: StrEnum | None = None                        # a variant's side (Winner, CitySide)
    protest: Protest | None = None                        # 1.8, SPEC §6.3: after the game
    names: dict[int, str] = field(default_factory=dict)   # the players' names the host gave (SPEC §6.1)


@dataclass
class GameState:
    clock: Clock = field(default_factory=Clock)
    seats: Seating = field(default_factory=Seating)
    day: DayState = field(default_factory=DayState)
    night: NightState = field(default_factory=NightState)
    floors: Floors = field(default_factory=Floors)
    record: Record = field(default_factory=Record)
