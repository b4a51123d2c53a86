"""What a stage decides, as values: the engine (game/moderator.py) applies them.

A stage function reads the game through a `Context` and returns a list of
effects; it may update its own slice of the state, but everything that
crosses into another stage — an announcement, a removal, a win check, the
next floors, nightfall — is one of these values. The engine applies a list
in order and routes each cross-stage request to the stage that owns it, at
the moment the request is reached, so the owner decides from the game as it
stands then. Once an effect ends the game, the rest of the list is dropped:
nothing a stage decided "if the game goes on" happens after its end."""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal, Protocol

from voicehost.game.keys import Key
from voicehost.game.model import Cause, FloorKind, Phase, Then, Timer

if TYPE_CHECKING:
    from enum import Enum

    from voicehost.errors import GameError
    from voicehost.game.events import Event
    from voicehost.game.state import GameState
    from voicehost.phrases.grammar import Grammar
    from voicehost.phrases.listener import Nomination
    from voicehost.refusals import RefuseKey
    from voicehost.rules import RuleOptions


class Context(Protocol):
    """What a stage may read of the game (the engine answers for the variant)."""

    @property
    def state(self) -> GameState: ...

    @property
    def rules(self) -> RuleOptions: ...

    @property
    def grammar(self) -> Grammar: ...

    @property
    def default_seats(self) -> int: ...

    @property
    def nominations_by_phrase(self) -> bool: ...

    def seats(self) -> list[int]: ...

    def side(self, seat: int) -> str: ...

    def role_seat(self, role: str) -> int | None: ...

    def speaking_order(self) -> list[int]: ...

    def left_table_winner(self, seat: int) -> StrEnum | None: ...

    def win_key(self, winner: str) -> Key: ...

    def seat_of(self, role: Enum) -> int: ...

    def error(self, message: str, event: Event | None = None, *, key: RefuseKey | Literal[""] = "",
              **values: object) -> GameError:
        """A refusal naming where the game stands (nothing changes)."""
        ...


# ------------------------------------------------------------ what is said

class Say:
    """Announce a phrasebook key with its values (at the game's time, or at `t`).

    A plain class rather than a dataclass so that `Say(key, seat=3)` takes the
    values as keywords: the most frequent effect is built in one call."""

    __slots__ = ("key", "private", "t", "values")

    def __init__(self, key: Key, *, private: bool = False, t: float | None = None,
                 **values: object) -> None:  # a phrase's values
        self.key, self.private, self.t, self.values = key, private, t, values

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Say) and (self.key, self.private, self.t, self.values) == (
            other.key, other.private, other.t, other.values)

    def __repr__(self) -> str:
        return f"Say({self.key!r}, private={self.private}, t={self.t}, values={self.values})"


say = Say  # stages write say(Key.X, seat=3)


@dataclass(slots=True)
class Suggest:
    """Tell the host (only) that a forbidden word may deserve a foul."""

    t: float
    word: str
    clause: str
    seat: int
    what: str


@dataclass(slots=True)
class Explain:
    """Training mode: say why a nomination was not accepted."""

    nomination: Nomination


# -------------------------------------------------- the clock and the phase

@dataclass(slots=True)
class Enter:
    """Move to a phase (the variant's transition table allows it)."""

    phase: Phase


@dataclass(slots=True)
class SetTimer:
    """A timer of the phase, `seconds` from now (from the pause's start while paused)."""

    name: Timer
    seconds: float


@dataclass(slots=True)
class SetDeadline:
    """A timer of the phase that fires at game time `at`."""

    name: Timer
    at: float


@dataclass(slots=True)
class ClearTimers:
    """Every timer of the phase dies (a floor closed)."""


# ------------------------------------------------------ cross-stage requests

@dataclass(slots=True)
class Remove:
    """A player leaves the game (discipline writes the elimination)."""

    seat: int
    cause: StrEnum


@dataclass(slots=True)
class Removal:
    """A host's removal with its consequences: 4th foul, disqualification, leaving."""

    seat: int
    cause: Cause


@dataclass(slots=True)
class CheckWin:
    """End the game if a side has won; the rest of the list happens only if not."""


@dataclass(slots=True)
class Finish:
    """End the game with this winner; the rest of the list is dropped."""

    winner: StrEnum


@dataclass(slots=True)
class StartSpeeches:
    """The day's speeches, in the variant's order."""


@dataclass(slots=True)
class QueueFloors:
    """These floors one after another, then go on as `then` says."""

    seats: tuple[int, ...]
    kind: FloorKind
    then: Then


@dataclass(slots=True)
class CloseFloor:
    """The open floor ends (its time ran out, the host moved on, the speaker left)."""


@dataclass(slots=True)
class StartVote:
    """The day's speeches are over: the variant's vote begins."""


@dataclass(slots=True)
class StartRound:
    """A voting round over these candidates."""

    candidates: tuple[int, ...]


@dataclass(slots=True)
class AskLift:
    """Ask the table whether to lift every tied player."""


@dataclass(slots=True)
class CancelDay:
    """A removal cancels the vote of this day (2.3.15-2.3.16)."""

    day: int


@dataclass(slots=True)
class Nightfall:
    """The day is over: the variant's night begins."""


@dataclass(slots=True)
class Morning:
    """The night is over: a new day, its dawn first."""


@dataclass(slots=True)
class Dawn:
    """Tell the night's result (the variant's), then the day goes on."""


@dataclass(slots=True)
class FirstKilled:
    """The night-2 victim, who may name a best move."""

    seat: int


Effect = (Say | Suggest | Explain | Enter | SetTimer | SetDeadline | ClearTimers | Remove | Removal | CheckWin
          | Finish | StartSpeeches | QueueFloors | CloseFloor | StartVote | StartRound | AskLift
          | CancelDay | Nightfall | Morning | Dawn | FirstKilled)
Effects = list[Effect]
