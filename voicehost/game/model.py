"""The game's vocabulary: roles, teams, phases, causes, floors, outputs."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum

from voicehost.jsontypes import JSONObject
from voicehost.records import Output as Output  # the records moved down; their old names stay
from voicehost.records import OutputKind as OutputKind

SEATS = tuple(range(1, 11))


class Team(StrEnum):
    """The sports game's sides (also its winners, with a draw)."""

    RED = "red"
    BLACK = "black"


class Winner(StrEnum):
    RED = "red"
    BLACK = "black"
    DRAW = "draw"


class Role(Enum):
    CITIZEN = "citizen"
    SHERIFF = "sheriff"
    MAFIA = "mafia"
    DON = "don"

    @property
    def team(self) -> Team:
        return Team.BLACK if self in (Role.MAFIA, Role.DON) else Team.RED


ROLE_COUNTS = {Role.CITIZEN: 6, Role.SHERIFF: 1, Role.MAFIA: 2, Role.DON: 1}


class Cause(StrEnum):
    """Why a player left the game, in every variant (a variant adds its own)."""

    VOTE = "vote"
    LIFT = "lift"
    SHOT = "shot"
    FOULS = "fouls"
    DISQUALIFIED = "disqualified"
    LEFT_TABLE = "left_table"


class Timer(StrEnum):
    """The phase's timers (the clock's keys)."""

    FLOOR_WARN = "floor_warn"  # ten seconds left of a floor
    FLOOR_END = "floor_end"
    PASS = "pass"              # a "пас" ends the speech after a silence
    STEP = "step"              # the phase's own step: a number call, a vote question, a night window


class Then(StrEnum):
    """Where the day goes once the queued floors are spoken."""

    LIFT = "lift"          # the lift vote (the tie of a lift-only first day)
    REVOTE = "revote"
    NIGHT = "night"
    SPEECHES = "speeches"  # the morning's speeches, after the victim's last word
    NOTHING = ""


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
    CANDIDATES = "candidates"      # the host names the day's candidates (a variant's vote)
    NIGHT_ACTION = "night_action"  # one role's window in a variant's night sequence
    GAME_OVER = "game_over"

    @property
    def is_night(self) -> bool:
        return self in _NIGHT


_NIGHT = {Phase.MAFIA_MEETING, Phase.DON_MEETING, Phase.SHERIFF_MEETING, Phase.HUNT,
          Phase.DON_CHECK, Phase.SHERIFF_CHECK, Phase.NIGHT_ACTION}


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


@dataclass
class Elimination:
    seat: int
    cause: StrEnum
    day: int | None = None
    night: int | None = None

    def to_json(self) -> JSONObject:
        out: JSONObject = {"seat": self.seat, "cause": self.cause.value}
        if self.night is not None:
            out["night"] = self.night
        else:
            out["day"] = self.day
        return out
