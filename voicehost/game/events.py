"""Inputs to the moderator, parsed and type-checked from their JSON form.

The same JSON objects are simulate script lines, journal entries and web
requests; parsing never touches the game, so a bad input changes nothing."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from voicehost.errors import InputError
from voicehost.game.model import SEATS
from voicehost.jsontypes import JSONObject
from voicehost.names import check_name
from voicehost.phrases.words import Word, parse_word, parse_words
from voicehost.refusals import RefuseKey


@dataclass(frozen=True)
class Setup:
    """The deal: seat -> role name (each game checks the names it knows)."""

    roles: dict[int, str]


@dataclass(frozen=True)
class Candidates:
    """The city variant: the day's candidates, entered by the host."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class Heard:
    """One recognized word, its times on the game clock."""

    word: Word


@dataclass(frozen=True)
class OutOfTurn:
    """SPEC §7.1: voice on another seat's channel while someone holds the
    floor, from `start` to `end` on the game clock; a foul suggestion to the
    host, never a foul, a nomination, a floor's end or a pause clock's reset."""

    seat: int
    start: float
    end: float


@dataclass(frozen=True)
class Speech:
    """A whole floor's words (simulate scripts), times relative to the floor."""

    seat: int
    words: tuple[Word, ...]


@dataclass(frozen=True)
class Votes:
    counts: dict[int, int]


@dataclass(frozen=True)
class LiftVotes:
    count: int


@dataclass(frozen=True)
class SeatEvent:
    """shot, don_check, sheriff_check, foul, disqualify, leave_table,
    best_player, worst_player: a type and a seat (None: a missed shot)."""

    type: EventType
    seat: int | None


@dataclass(frozen=True)
class BestMove:
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Control:
    """The host's clock controls: pause, resume, next (close the floor)."""

    type: EventType


@dataclass(frozen=True)
class Names:
    """Players' names the host entered, seat -> name ("" takes a name back); the
    game itself goes by seat numbers, the rating-platform exports use the names."""

    names: dict[int, str]


@dataclass(frozen=True)
class Seating:
    """1.2, SPEC §6.1: the players present in their seats, drawn or set by the
    host before the deal, announced to the table; journaled, so a resumed
    game keeps the draw."""

    names: dict[int, str]


@dataclass(frozen=True)
class Protest:
    """1.8, SPEC §6.3: after the game, a team's protest, the players who voted
    for it, and the chief judge's outcome should it pass."""

    team: str
    votes: int
    outcome: str

    def to_json(self) -> JSONObject:
        return {"team": self.team, "votes": self.votes, "outcome": self.outcome}


PROTEST_TEAMS = ("red", "black")
PROTEST_OUTCOMES = ("changed", "annulled", "replayed")

Event = (Setup | Heard | Speech | Votes | LiftVotes | SeatEvent | BestMove | Control | Candidates | Names
         | Seating | Protest | OutOfTurn)

class EventType(StrEnum):
    SETUP = "setup"
    WORD = "word"
    SPEECH = "speech"
    VOTES = "votes"
    LIFT_VOTES = "lift_votes"
    BEST_MOVE = "best_move"
    CANDIDATES = "candidates"
    SHOT = "shot"
    DON_CHECK = "don_check"
    SHERIFF_CHECK = "sheriff_check"
    FOUL = "foul"
    UNFOUL = "unfoul"
    DISQUALIFY = "disqualify"
    LEAVE_TABLE = "leave_table"
    BEST_PLAYER = "best_player"
    WORST_PLAYER = "worst_player"
    HEAL = "heal"
    VISIT = "visit"
    COMMISSAR_CHECK = "commissar_check"
    MANIAC_KILL = "maniac_kill"
    PAUSE = "pause"
    RESUME = "resume"
    NEXT = "next"
    NAMES = "names"
    PROTEST = "protest"
    SEATING = "seating"
    NOMINATE = "nominate"
    OUT_OF_TURN = "out_of_turn"


@dataclass(frozen=True)
class EventSpec:
    """One input type: its dataclass and how the boundaries treat it."""

    cls: type
    host: bool = True        # the host enters it (page, typed play); undo takes it back
    nullable: bool = False   # a night input that may name nobody (a miss, no visit)
    immediate: bool = False  # applies where the game stands, without advancing it (simulate)


_E = EventType
# The one registry of inputs: journal, page and typed play read it.
REGISTRY: dict[EventType, EventSpec] = {
    _E.SETUP: EventSpec(Setup, host=False),
    _E.WORD: EventSpec(Heard, host=False),
    _E.SPEECH: EventSpec(Speech, host=False),
    _E.VOTES: EventSpec(Votes),
    _E.LIFT_VOTES: EventSpec(LiftVotes),
    _E.BEST_MOVE: EventSpec(BestMove),
    _E.CANDIDATES: EventSpec(Candidates),
    **{kind: EventSpec(SeatEvent, nullable=True)
       for kind in (_E.SHOT, _E.HEAL, _E.VISIT, _E.COMMISSAR_CHECK, _E.MANIAC_KILL)},
    **{kind: EventSpec(SeatEvent) for kind in (_E.DON_CHECK, _E.SHERIFF_CHECK, _E.BEST_PLAYER,
                                                _E.WORST_PLAYER)},
    **{kind: EventSpec(SeatEvent, immediate=True)
       for kind in (_E.FOUL, _E.UNFOUL, _E.DISQUALIFY, _E.LEAVE_TABLE)},
    **{kind: EventSpec(Control) for kind in (_E.PAUSE, _E.RESUME, _E.NEXT)},
    # Players' names: taken at any time, even before the deal or after the end.
    _E.NAMES: EventSpec(Names, host=False, immediate=True),
    _E.PROTEST: EventSpec(Protest),
    _E.SEATING: EventSpec(Seating),
    # The host nominates for the speaker by hand (the microphone missed it): the rules of 2.3 still apply.
    _E.NOMINATE: EventSpec(SeatEvent),
    # A seat's channel heard voice out of turn (SPEC §7.1): the table's, not the host's.
    _E.OUT_OF_TURN: EventSpec(OutOfTurn, host=False),
}
# The one type of each input that is not a seat event or a clock control.
_TYPE_OF: dict[type, EventType] = {spec.cls: kind for kind, spec in REGISTRY.items()
                                   if spec.cls not in (SeatEvent, Control)}
SEAT_EVENTS = tuple(str(k) for k, spec in REGISTRY.items() if spec.cls is SeatEvent)
CONTROLS = tuple(str(k) for k, spec in REGISTRY.items() if spec.cls is Control)
NULLABLE = tuple(str(k) for k, spec in REGISTRY.items() if spec.nullable)
IMMEDIATE = tuple(str(k) for k, spec in REGISTRY.items() if spec.immediate)
HOST_INPUTS = frozenset(str(k) for k, spec in REGISTRY.items() if spec.host)
EVENT_TYPES = tuple(str(k) for k in REGISTRY)


# Seats and counts as people type them: ASCII digits only ("²" and "٣" pass
# str.isdigit), and short, so no number is ever too long to read or convert.
ASCII_NUMBER = re.compile(r"[0-9]{1,4}", re.ASCII)
MAX_COUNT = 9999


def ascii_number(text: str) -> int | None:
    """The number `text` spells in ASCII digits (at most four), else None."""
    return int(text) if ASCII_NUMBER.fullmatch(text) else None


def _shown(value: object) -> str:
    """A value for an error message, cut short: a 5000-digit number is not a message."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_COUNT:
        return "a number too large"
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _given(value: object) -> object:
    """The refused value itself, for an edge that quotes it in its own words (the
    page): a string cut short, a container as short JSON, no number too long to print."""
    if isinstance(value, str):
        return value[:MAX_GIVEN]
    if value is None or isinstance(value, (bool, float)):
        return value
    if isinstance(value, int):
        return value if abs(value) <= 10 ** MAX_GIVEN else _shown(value)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        text = type(value).__name__
    return text[:MAX_GIVEN]


NAME_LENGTH = 40
MAX_GIVEN = 64


def _seat(value: object, what: str, *, allow_null: bool = False, seats: int = len(SEATS)) -> int | None:
    if value is None and allow_null:
        return None
    if isinstance(value, str) and ascii_number(value.strip()) is not None:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= seats:
        message = f"{what} must be a seat 1..{seats}, got {_shown(value)}"
        if isinstance(value, int) and not isinstance(value, bool):
            raise InputError(message, key=RefuseKey.NOT_AT_TABLE, values={"seat": _shown(value), "count": seats,
                                                                  "value": _given(value)})
        raise InputError(message, key=RefuseKey.BAD_SEAT, values={"input": _shown(value), "count": seats,
                                                          "value": _given(value)})
    return value


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise InputError(f"{what} must be a whole number of votes, got {_shown(value)}",
                         key=RefuseKey.BAD_COUNT, values={"input": _shown(value), "value": _given(value)})
    return value


def _roles(value: object, seats: int) -> dict[int, str]:
    if not isinstance(value, dict):
        raise InputError(f"setup 'roles' must map seats 1..{seats} to roles",
                         key=RefuseKey.DEAL_NOT_A_MAP, values={"count": seats})
    roles: dict[int, str] = {}
    for key, name in value.items():
        seat = _seat(key, f"setup seat {key!r}", seats=seats)
        assert seat is not None  # a deal names no empty seat
        if not isinstance(name, str) or not name:
            raise InputError(f"setup seat {seat}: the role must be a name, got {name!r}",
                             key=RefuseKey.DEAL_ROLE_NOT_A_NAME, values={"seat": seat, "value": _given(name)})
        roles[seat] = name
    return roles


def _names(value: object, size: int) -> dict[int, str]:
    if not isinstance(value, dict) or not value:
        raise InputError(f"names 'names' must map seats 1..{size} to names",
                         key=RefuseKey.NAMES_NOT_A_MAP, values={"count": size})
    names: dict[int, str] = {}
    for key, name in value.items():
        seat = _seat(key, f"names seat {key!r}", seats=size)
        assert seat is not None  # a seat is required here
        if not isinstance(name, str) or not name.isprintable() or len(name.strip()) > NAME_LENGTH:
            raise InputError(f"names seat {seat}: a name must be one line of at most {NAME_LENGTH} "
                             f"characters, got {name!r}", key=RefuseKey.NAME_BAD,
                             values={"seat": seat, "limit": NAME_LENGTH, "value": _given(name)})
        names[seat] = check_name(name) if name.strip() else ""
    return names


def parse_protest(data: Mapping[str, object]) -> Protest:
    team, votes, outcome = data.get("team"), data.get("votes"), data.get("outcome")
    if team not in PROTEST_TEAMS:
        raise InputError(f"a protest's team is red or black, got {_shown(team)}", key=RefuseKey.PROTEST_TEAM,
                         values={"word": _shown(team)})
    if isinstance(votes, bool) or not isinstance(votes, int) or not 0 <= votes <= len(SEATS):
        raise InputError(f"a protest's votes are a number 0..{len(SEATS)}, got {_shown(votes)}",
                         key=RefuseKey.PROTEST_VOTES, values={"word": _shown(votes)})
    if outcome not in PROTEST_OUTCOMES:
        raise InputError(f"a protest's outcome is changed, annulled or replayed, got {_shown(outcome)}",
                         key=RefuseKey.PROTEST_OUTCOME, values={"word": _shown(outcome)})
    return Protest(team, votes, outcome)


def parse_event(data: object, size: int = len(SEATS)) -> Event:
    """One input from its JSON form; `size` is the table's last seat (10, or up to 11 in city)."""
    if not isinstance(data, dict):
        raise InputError("an event must be a JSON object with a 'type'", key=RefuseKey.EVENT_NOT_OBJECT)
    kind = data.get("type")
    if kind not in EVENT_TYPES:
        raise InputError(f"unknown event type {_shown(kind)}", key=RefuseKey.EVENT_UNKNOWN,
                         values={"input": _shown(kind)})
    def seat(value: object, what: str) -> int:
        found = _seat(value, what, seats=size)
        assert found is not None  # only a night input may name nobody (below)
        return found

    if kind == "setup":
        return Setup(_roles(data.get("roles"), size))
    if kind == "names":
        return Names(_names(data.get("names"), size))
    if kind == "protest":
        return parse_protest(data)
    if kind == "seating":
        names = _names(data.get("names"), size)
        if not all(names.values()):
            raise InputError("seating names every player; an empty name is not a player", key=RefuseKey.SEATING_EMPTY)
        return Seating(names)
    if kind == "candidates":
        chosen = data.get("seats")
        if not isinstance(chosen, list):
            raise InputError("candidates 'seats' must be a list of seats", key=RefuseKey.CANDIDATES_NOT_A_LIST)
        return Candidates(tuple(seat(s, "candidates seat") for s in chosen))
    if kind == "word":
        return Heard(parse_word(data, "word"))
    if kind == "out_of_turn":
        heard = parse_word({"word": "-", "start": data.get("start"), "end": data.get("end")}, "out_of_turn")
        return OutOfTurn(seat(data.get("seat"), "out_of_turn 'seat'"), heard.start, heard.end)
    if kind == "speech":
        return Speech(seat(data.get("seat"), "speech 'seat'"), tuple(parse_words(data.get("words", []))))
    if kind == "votes":
        counts = data.get("counts")
        if not isinstance(counts, dict) or not counts:
            raise InputError("votes 'counts' must map candidate seats to vote counts", key=RefuseKey.VOTES_NOT_A_MAP)
        parsed: dict[int, int] = {}
        for key, value in counts.items():
            candidate = seat(key, f"votes candidate {key!r}")
            if candidate in parsed:
                raise InputError(f"votes name seat {candidate} twice", key=RefuseKey.VOTES_SEAT_TWICE,
                                 values={"seat": candidate})
            parsed[candidate] = _count(value, f"votes for {key}")
        return Votes(parsed)
    if kind == "lift_votes":
        return LiftVotes(_count(data.get("count"), "lift_votes 'count'"))
    if kind == "best_move":
        named = data.get("seats")
        if not isinstance(named, list):
            raise InputError("best_move 'seats' must be a list of three seats", key=RefuseKey.BEST_MOVE_NOT_A_LIST)
        return BestMove(tuple(seat(s, "best_move seat") for s in named))
    if kind in CONTROLS:
        return Control(EventType(kind))
    if "seat" not in data:
        raise InputError(f"{kind} needs a 'seat'", key=RefuseKey.NEEDS_SEAT, values={"input": kind})
    return SeatEvent(EventType(kind), _seat(data["seat"], f"{kind} 'seat'", seats=size, allow_null=kind in NULLABLE))


def event_to_json(event: Event) -> JSONObject:
    if isinstance(event, Setup):
        return {"type": "setup", "roles": {str(s): r for s, r in sorted(event.roles.items())}}
    if isinstance(event, Candidates):
        return {"type": "candidates", "seats": list(event.seats)}
    if isinstance(event, Names):
        return {"type": "names", "names": {str(s): n for s, n in sorted(event.names.items())}}
    if isinstance(event, Heard):
        return {"type": "word", **event.word.to_json()}
    if isinstance(event, OutOfTurn):
        return {"type": "out_of_turn", "seat": event.seat, "start": event.start, "end": event.end}
    if isinstance(event, Speech):
        return {"type": "speech", "seat": event.seat, "words": [w.to_json() for w in event.words]}
    if isinstance(event, Votes):
        return {"type": "votes", "counts": {str(s): c for s, c in event.counts.items()}}
    if isinstance(event, LiftVotes):
        return {"type": "lift_votes", "count": event.count}
    if isinstance(event, BestMove):
        return {"type": "best_move", "seats": list(event.seats)}
    if isinstance(event, Control):
        return {"type": event.type}
    if isinstance(event, Protest):
        return {"type": "protest", **event.to_json()}
    if isinstance(event, Seating):
        return {"type": "seating", "names": {str(s): n for s, n in sorted(event.names.items())}}
    return {"type": event.type, "seat": event.seat}


def event_type(event: Event) -> EventType:
    return event.type if isinstance(event, (SeatEvent, Control)) else _TYPE_OF[type(event)]


__all__ = [
    "HOST_INPUTS",
    "IMMEDIATE",
    "NULLABLE",
    "REGISTRY",
    "Event",
    "EventType",
    "event_to_json",
    "event_type",
    "parse_event",
]
