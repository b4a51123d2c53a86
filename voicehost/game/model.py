"""The game's vocabulary: roles, teams, phases, causes, floors, outputs."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

SEATS = tuple(range(1, 11))


class Team(Enum):
    RED = "red"
    BLACK = "black"


class Role(Enum):
    CITIZEN = "citizen"
    SHERIFF = "sheriff"
    MAFIA = "mafia"
    DON = "don"

    @property
    def team(self) -> Team:
        return Team.BLACK if self in (Role.MAFIA, Role.DON) else Team.RED


ROLE_COUNTS = {Role.CITIZEN: 6, Role.SHERIFF: 1, Role.MAFIA: 2, Role.DON: 1}


class Cause(Enum):
    COMMISSAR = "commissar"
    MANIAC = "maniac"
    VOTE = "vote"
    LIFT = "lift"
    SHOT = "shot"
    FOULS = "fouls"
    DISQUALIFIED = "disqualified"
    LEFT_TABLE = "left_table"


class FloorKind(Enum):
    SPEECH = "speech"
    TIE = "tie_speech"
    LAST_WORD = "last_word"


class Phase(Enum):
    SETUP = "setup"
    MAFIA_MEETING = "mafia_meeting"
    DON_MEETING = "don_meeting"
    SHERIFF_MEETING = "sheriff_meeting"
    SPEECH = "speech"
    VOTING = "voting"
    TALLY = "tally"
    TIE_SPEECH = "tie_speech"
    LIFT_VOTE = "lift_vote"
    LAST_WORD = "last_word"
    HUNT = "hunt"
    DON_CHECK = "don_check"
    SHERIFF_CHECK = "sheriff_check"
    CANDIDATES = "candidates"      # city: the host names the day's candidates
    NIGHT_ACTION = "night_action"  # city: the doctor's, lover's, commissar's, maniac's windows
    GAME_OVER = "game_over"

    @property
    def is_night(self) -> bool:
        return self in _NIGHT


_NIGHT = {Phase.MAFIA_MEETING, Phase.DON_MEETING, Phase.SHERIFF_MEETING, Phase.HUNT,
          Phase.DON_CHECK, Phase.SHERIFF_CHECK, Phase.NIGHT_ACTION}
# Where a day can go once the town is awake: another floor, the vote, a last
# word, nightfall, or the end.
_DAY_EXITS = {Phase.SPEECH, Phase.VOTING, Phase.LAST_WORD, Phase.HUNT, Phase.GAME_OVER}

TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.SETUP: frozenset({Phase.MAFIA_MEETING}),
    Phase.MAFIA_MEETING: frozenset({Phase.DON_MEETING, Phase.SPEECH, Phase.CANDIDATES, Phase.GAME_OVER}),
    Phase.DON_MEETING: frozenset({Phase.SHERIFF_MEETING, Phase.GAME_OVER}),
    Phase.SHERIFF_MEETING: frozenset(_DAY_EXITS),
    Phase.SPEECH: frozenset(_DAY_EXITS | {Phase.CANDIDATES}),
    Phase.CANDIDATES: frozenset({Phase.VOTING, Phase.HUNT, Phase.GAME_OVER}),
    Phase.NIGHT_ACTION: frozenset({Phase.NIGHT_ACTION, Phase.SPEECH, Phase.CANDIDATES, Phase.GAME_OVER}),
    Phase.VOTING: frozenset({Phase.TALLY, Phase.HUNT, Phase.CANDIDATES, Phase.GAME_OVER}),
    Phase.TALLY: frozenset({Phase.LAST_WORD, Phase.TIE_SPEECH, Phase.LIFT_VOTE, Phase.HUNT,
                            Phase.VOTING, Phase.CANDIDATES, Phase.GAME_OVER}),
    Phase.TIE_SPEECH: frozenset({Phase.TIE_SPEECH, Phase.VOTING, Phase.LIFT_VOTE, Phase.HUNT,
                                 Phase.GAME_OVER}),
    Phase.LIFT_VOTE: frozenset({Phase.LAST_WORD, Phase.HUNT, Phase.GAME_OVER}),
    Phase.LAST_WORD: frozenset(_DAY_EXITS),
    Phase.HUNT: frozenset({Phase.DON_CHECK, Phase.NIGHT_ACTION, Phase.GAME_OVER}),
    Phase.DON_CHECK: frozenset({Phase.SHERIFF_CHECK, Phase.GAME_OVER}),
    Phase.SHERIFF_CHECK: frozenset(_DAY_EXITS),
    Phase.GAME_OVER: frozenset(),
}


@dataclass
class Floor:
    """One player's turn to speak; it dies when the floor closes."""

    id: int
    seat: int
    kind: FloorKind
    start: float
    end: float
    nominations: bool = False
    heard: bool = False


@dataclass(frozen=True)
class Output:
    """Something the moderator does: speaks (`say`), or tells the host (`suggest`)."""

    t: float
    kind: str
    text: str
    key: str = ""
    private: bool = False
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": round(self.t, 3), "say": self.text}
        if self.private:
            out["private"] = True
        return out


@dataclass
class Elimination:
    seat: int
    cause: Cause
    day: int | None = None
    night: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "cause": self.cause.value}
        if self.night is not None:
            out["night"] = self.night
        else:
            out["day"] = self.day
        return out
