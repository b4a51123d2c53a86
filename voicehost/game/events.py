"""Inputs to the moderator, parsed and type-checked from their JSON form.

The same JSON objects are simulate script lines, journal entries and web
requests; parsing never touches the game, so a bad input changes nothing."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from voicehost.errors import InputError
from voicehost.game.model import SEATS, Role
from voicehost.phrases.words import Word, parse_word, parse_words


@dataclass(frozen=True)
class Setup:
    roles: dict[int, Role]


@dataclass(frozen=True)
class Heard:
    """One recognized word, its times on the game clock."""

    word: Word


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

    type: str
    seat: int | None


@dataclass(frozen=True)
class BestMove:
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Control:
    """The host's clock controls: pause, resume, next (close the floor)."""

    type: str


Event = Setup | Heard | Speech | Votes | LiftVotes | SeatEvent | BestMove | Control

SEAT_EVENTS = ("shot", "don_check", "sheriff_check", "foul", "unfoul", "disqualify", "leave_table",
               "best_player", "worst_player")
CONTROLS = ("pause", "resume", "next")
# Inputs that apply where the game stands, without advancing it (simulate).
IMMEDIATE = ("foul", "unfoul", "disqualify", "leave_table")
EVENT_TYPES = ("setup", "word", "speech", "votes", "lift_votes", "best_move") + SEAT_EVENTS + CONTROLS


def _seat(value: Any, what: str, *, allow_null: bool = False) -> int | None:
    if value is None and allow_null:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value not in SEATS:
        raise InputError(f"{what} must be a seat 1..10, got {value!r}")
    return value


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{what} must be a whole number of votes, got {value!r}")
    return value


def _roles(value: Any) -> dict[int, Role]:
    if not isinstance(value, dict):
        raise InputError("setup 'roles' must map seats 1..10 to roles")
    known = ", ".join(r.value for r in Role)
    roles: dict[int, Role] = {}
    for key, name in value.items():
        seat = _seat(key, f"setup seat {key!r}")
        try:
            roles[seat] = Role(name)
        except ValueError:
            raise InputError(f"setup seat {seat}: unknown role {name!r} (known: {known})") from None
    return roles


def parse_event(data: Any) -> Event:
    if not isinstance(data, dict):
        raise InputError("an event must be a JSON object with a 'type'")
    kind = data.get("type")
    if kind not in EVENT_TYPES:
        raise InputError(f"unknown event type {kind!r}")
    if kind == "setup":
        return Setup(_roles(data.get("roles")))
    if kind == "word":
        return Heard(parse_word(data, "word"))
    if kind == "speech":
        return Speech(_seat(data.get("seat"), "speech 'seat'"), tuple(parse_words(data.get("words", []))))
    if kind == "votes":
        counts = data.get("counts")
        if not isinstance(counts, dict) or not counts:
            raise InputError("votes 'counts' must map candidate seats to vote counts")
        parsed: dict[int, int] = {}
        for key, value in counts.items():
            parsed[_seat(key, f"votes candidate {key!r}")] = _count(value, f"votes for {key}")
        return Votes(parsed)
    if kind == "lift_votes":
        return LiftVotes(_count(data.get("count"), "lift_votes 'count'"))
    if kind == "best_move":
        seats = data.get("seats")
        if not isinstance(seats, list):
            raise InputError("best_move 'seats' must be a list of three seats")
        return BestMove(tuple(_seat(s, "best_move seat") for s in seats))
    if kind in CONTROLS:
        return Control(kind)
    if "seat" not in data:
        raise InputError(f"{kind} needs a 'seat'")
    return SeatEvent(kind, _seat(data["seat"], f"{kind} 'seat'", allow_null=kind == "shot"))


def event_to_json(event: Event) -> dict[str, Any]:
    if isinstance(event, Setup):
        return {"type": "setup", "roles": {str(s): r.value for s, r in sorted(event.roles.items())}}
    if isinstance(event, Heard):
        return {"type": "word", **event.word.to_json()}
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
    return {"type": event.type, "seat": event.seat}


def event_type(event: Event) -> str:
    return event_to_json(event)["type"] if not isinstance(event, (SeatEvent, Control)) else event.type


__all__ = ["parse_event", "event_to_json", "event_type", "Event", "IMMEDIATE"]
