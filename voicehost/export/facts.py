"""What a finished game knows, gathered for the rating-platform exports.

The moderator keeps the game's results (eliminations, nominations, tallies,
checks, foul counts); the exports also need *when* each foul and removal
happened and each night's shot, so the accepted inputs are replayed once and
the game is watched at every host input."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from voicehost.errors import VoicehostError
from voicehost.game.events import SeatEvent, parse_event
from voicehost.game.model import Cause, FloorKind, Phase, Team
from voicehost.game.moderator import Moderator, new_game
from voicehost.game.protocol import protocol
from voicehost.game.state import Record
from voicehost.journal.lines import Entry
from voicehost.jsontypes import JSONObject

Entries = list[Entry]
REMOVALS = {"foul": Cause.FOULS, "disqualify": Cause.DISQUALIFIED, "leave_table": Cause.LEFT_TABLE}


@dataclass(frozen=True)
class Moment:
    """Where the game stood when a host input arrived."""

    phase: Phase
    day: int
    night: int
    seat: int | None = None            # who held the floor
    after_night_kill: bool = False     # the floor is the last word of a player shot at night
    vote_round: int = 0
    nominee: int | None = None         # the candidate being voted on

    @classmethod
    def of(cls, game: Moderator) -> Moment:
        floor = game.floor
        seat = floor.seat if floor is not None else None
        killed = floor is not None and floor.kind is FloorKind.LAST_WORD and any(
            e.seat == floor.seat and e.cause is Cause.SHOT for e in game.eliminated)
        nominee = None
        if game.phase is Phase.VOTING and game.vote_index < len(game.candidates):
            nominee = game.candidates[game.vote_index]
        return cls(game.phase, game.day, game.night, seat, killed, game.vote_round, nominee)


@dataclass
class Removal:
    seat: int
    cause: Cause
    moment: Moment


@dataclass
class Facts:
    ruleset: str
    language: str
    seconds: float                          # the game clock at the end
    roles: dict[int, str]
    names: dict[int, str]
    winner: str | None
    record: Record                          # eliminated, nominations, votes, checks, best move ...
    points: dict[int, float] = field(default_factory=dict)              # every seat's
    day: int = 0                            # the last day the game reached
    first_day_vote: str = "normal"
    shots: dict[int, int | None] = field(default_factory=dict)          # night -> seat, None: a miss
    shooters: dict[int, list[int]] = field(default_factory=dict)        # night -> black seats alive
    fouls: list[tuple[int, Moment]] = field(default_factory=list)       # net of fouls taken back
    removals: list[Removal] = field(default_factory=list)

    @property
    def seats(self) -> list[int]:
        return sorted(self.roles)

    def name(self, seat: int) -> str:
        return self.names.get(seat) or str(seat)


def collect(game: Moderator, entries: Entries) -> Facts:
    """The facts of `game`, whose accepted inputs are `entries` (a Table's, or a journal's)."""
    watched = new_game(game.rules)
    facts = Facts(game.rules.name, game.rules.language, 0.0, {}, {}, None, Record())
    for entry in entries:
        try:
            _watch(watched, facts, entry.t, entry.event)
        except VoicehostError:
            continue  # an entry that no longer fits is passed over, as in journal.rebuild
    if protocol(watched) != protocol(game) or watched.phase is not game.phase:
        raise VoicehostError("the game's inputs do not rebuild the game")
    facts.seconds = game.now
    facts.roles = {seat: role.value for seat, role in sorted(game.roles.items())}
    facts.names = dict(game.state.record.names)   # /names and a series' seating, as the game keeps them
    facts.winner = game.winner
    facts.record = copy.deepcopy(game.state.record)
    facts.points = game.points()
    facts.day = game.day
    facts.first_day_vote = game.rules.first_day_vote
    return facts


def _watch(game: Moderator, facts: Facts, t: float, event: JSONObject) -> None:
    kind = event.get("type")
    game.advance(t)
    if kind == "tick":
        return
    if kind == "names":  # the game goes by seats; only the records carry names
        game.handle(parse_event(event, game.max_seat), t)
        return
    moment = Moment.of(game)
    before = len(game.eliminated)
    blacks = sorted(s for s in game.alive if game.side(s) == Team.BLACK)
    parsed = parse_event(event, game.max_seat)
    game.handle(parsed, t)
    seat = parsed.seat if isinstance(parsed, SeatEvent) else None
    if kind == "shot":
        facts.shots[game.night] = seat
        facts.shooters[game.night] = blacks
    elif kind == "foul" and seat is not None:
        facts.fouls.append((seat, moment))
    elif kind == "unfoul":
        mine = [i for i, (fouled, _) in enumerate(facts.fouls) if fouled == seat]
        if mine:
            del facts.fouls[mine[-1]]
    for gone in game.eliminated[before:]:
        if kind in REMOVALS and gone.cause is REMOVALS[kind]:
            facts.removals.append(Removal(gone.seat, gone.cause, moment))


def removal_of(facts: Facts, seat: int) -> Removal | None:
    return next((r for r in facts.removals if r.seat == seat), None)
