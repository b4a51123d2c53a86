"""Admission: the one place where an input is refused.

Every refusal is decided here, from the game as it stands, before anything
moves: no clock advance, no state change, no output. The handlers that apply
an admitted input never refuse; so an input is taken whole or not at all."""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Protocol

from voicehost.game.effects import Context
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
from voicehost.game.floors import nominated_by_hand
from voicehost.game.model import Floor, FloorKind, Phase
from voicehost.refusals import RefuseKey

if TYPE_CHECKING:
    from voicehost.game.records import BestMoveRecord
    from voicehost.game.variants.base import Variant


class Judged(Context, Protocol):
    """What admission reads of a game: a stage's Context, the game's variant
    and the views of its state (game/views.py) that a refusal depends on."""

    @property
    def variant(self) -> Variant: ...

    @property
    def phase(self) -> Phase: ...

    @property
    def day(self) -> int: ...

    @property
    def alive(self) -> set[int]: ...

    @property
    def candidates(self) -> list[int]: ...

    @property
    def paused_at(self) -> float | None: ...

    @property
    def floor(self) -> Floor | None: ...

    @property
    def floor_queue(self) -> list[tuple[int, FloorKind]]: ...

    @property
    def fouls(self) -> Counter[int]: ...

    @property
    def best_move(self) -> BestMoveRecord | None: ...

    def waiting_for(self) -> str | None: ...

    def in_own_last_word(self, seat: int) -> bool: ...

ANYTIME = ("foul", "unfoul", "disqualify", "leave_table")


def admit(game: Judged, event: Event) -> None:
    """Raise the GameError that refuses `event` where the game stands, if any."""
    precheck(game, event)
    if isinstance(event, (Heard, Names, OutOfTurn)):
        return
    if not fits(game, event):
        wanted = game.waiting_for()
        needs = f"here: the game waits for '{wanted}'" if wanted else "here"
        raise game.error(f"'{event_type(event)}' does not fit {needs}", event,
                         key=RefuseKey.DOES_NOT_FIT_WAITING if wanted else RefuseKey.DOES_NOT_FIT,
                         input=event_type(event), wanted=wanted or "")
    _check_content(game, event)


def precheck(game: Judged, event: Event) -> None:
    """Refuse an input that can never fit, wherever the game goes next."""
    if isinstance(event, Setup):
        if game.phase is not Phase.SETUP:
            raise game.error("the game is already set up", event, key=RefuseKey.ALREADY_SET_UP)
        game.variant.check_deal(game, event.roles)
        return
    if isinstance(event, Seating):
        _precheck_seating(game, event)
        return
    if isinstance(event, (Heard, Names, OutOfTurn)):  # words, and names at any time, even before the deal
        return
    if game.phase is Phase.SETUP:
        raise game.error("the game has no setup yet: the first input must be 'setup'", event,
                         key=RefuseKey.NO_SETUP)
    kind = event_type(event)
    if isinstance(event, Protest):
        _precheck_protest(game, event)
    if game.phase is Phase.GAME_OVER and kind not in ("best_player", "worst_player", "protest"):
        raise game.error(f"the game is over; '{kind}' cannot follow it", event, key=RefuseKey.GAME_OVER,
                         input=kind)
    if isinstance(event, Speech) and event.seat not in game.alive and not (
        game.floor and game.floor.seat == event.seat
    ) and event.seat not in (s for s, _ in game.floor_queue):
        raise game.error(f"seat {event.seat} is out of the game and has no floor", event,
                         key=RefuseKey.NO_FLOOR_FOR_SEAT, seat=event.seat)
    if isinstance(event, SeatEvent):
        _precheck_seat_event(game, event)
    if isinstance(event, BestMove) and (
        game.best_move is not None or (game.day >= 2 and not game.variant.best_move_floor(game))
    ):
        raise game.error("a best move fits only in the last word of the player killed on night 2",
                         event, key=RefuseKey.BEST_MOVE_NOT_HERE)


def _precheck_seating(game: Judged, event: Seating) -> None:
    """1.2: the seats are taken before the deal, each by another player."""
    from voicehost.names import name_key

    if game.phase is not Phase.SETUP:
        raise game.error("the seats are taken before the deal", event, key=RefuseKey.SEATING_LATE)
    keys = [name_key(n) for n in event.names.values()]
    twice = next((n for n in event.names.values() if keys.count(name_key(n)) > 1), None)
    if twice is not None:
        raise game.error(f"{twice!r} is seated twice", event, key=RefuseKey.SEATING_TWICE, word=twice)


def _precheck_protest(game: Judged, event: Protest) -> None:
    """1.8.1: a protest comes after the game's end, once, from a team at the table."""
    if game.phase is not Phase.GAME_OVER:
        raise game.error("a protest is taken only after the game has ended", event, key=RefuseKey.PROTEST_EARLY)
    if game.state.record.protest is not None:
        raise game.error("this game's protest is already recorded", event, key=RefuseKey.PROTEST_TWICE)
    if event.team not in {game.side(seat) for seat in game.seats()}:
        raise game.error(f"no team {event.team!r} plays this game", event, key=RefuseKey.PROTEST_TEAM,
                         word=event.team)


def _precheck_seat_event(game: Judged, event: SeatEvent) -> None:
    seat = event.seat
    if event.type in ("best_player", "worst_player") and seat is not None and seat not in game.seats():
        raise game.error(f"seat {seat} is not at this table (seats 1..{max(game.seats())})", event,
                         key=RefuseKey.NOT_AT_TABLE, seat=seat, count=max(game.seats()))
    refusal = game.variant.precheck_seat_event(game, event)
    if refusal is not None:
        raise refusal
    in_own_last_word = seat is not None and event.type != "shot" and game.in_own_last_word(seat)
    if event.type in (*ANYTIME, "shot") and seat is not None and seat not in game.alive \
            and not in_own_last_word:
        raise game.error(f"seat {seat} is not in the game", event, key=RefuseKey.SEAT_OUT, seat=seat)


def fits(game: Judged, event: Event) -> bool:
    """Whether `event` can be applied where the game stands now."""
    if isinstance(event, (Setup, Seating)):
        return game.phase is Phase.SETUP
    if isinstance(event, Speech):
        return game.floor is not None and game.floor.seat == event.seat and not game.floor.heard
    if isinstance(event, Votes):
        return game.phase is Phase.TALLY
    if isinstance(event, LiftVotes):
        return game.phase is Phase.LIFT_VOTE
    if isinstance(event, BestMove):
        return game.variant.best_move_floor(game)
    if isinstance(event, Candidates):
        return game.phase is Phase.CANDIDATES
    if isinstance(event, SeatEvent):
        return _seat_event_fits(game, event)
    return True


def _seat_event_fits(game: Judged, event: SeatEvent) -> bool:
    if event.type == "nominate":
        return nominated_by_hand(game) is not None
    if event.type in ANYTIME:
        return game.phase is not Phase.SETUP
    if event.type in ("best_player", "worst_player"):
        return game.phase is Phase.GAME_OVER
    return game.variant.seat_event_fits(game, event)


def _check_content(game: Judged, event: Event) -> None:
    """What the input says, judged against the game: counts, seats, the clock."""
    if isinstance(event, Votes):
        _check_votes(game, event)
    elif isinstance(event, LiftVotes):
        voters = len(game.alive)
        if event.count > voters:
            raise game.error(f"{event.count} votes to lift, but only {voters} players vote", event,
                             key=RefuseKey.LIFT_TOO_MANY, count=event.count, voters=voters)
    elif isinstance(event, BestMove):
        _check_best_move(game, event)
    elif isinstance(event, Control):
        _check_control(game, event)
    elif isinstance(event, Candidates):
        seats = list(event.seats)
        strangers = [s for s in seats if s not in game.alive]
        if strangers or len(set(seats)) != len(seats):
            raise game.error(f"candidates must be distinct players in the game, got {seats}", event,
                             key=RefuseKey.CANDIDATES_DISTINCT, seats=seats)
    elif isinstance(event, SeatEvent):
        _check_seat_event(game, event)


def _check_votes(game: Judged, event: Votes) -> None:
    given = event.counts
    strangers = sorted(set(given) - set(game.candidates))
    if strangers:
        raise game.error(f"seat {strangers[0]} is not a candidate in this vote "
                         f"(candidates: {', '.join(map(str, game.candidates))})", event,
                         key=RefuseKey.NOT_A_CANDIDATE, seat=strangers[0], candidates=game.candidates)
    voters, last = len(game.alive), game.candidates[-1]
    total = sum(given.values())
    if last in given and total != voters:
        raise game.error(f"the counts add up to {total}, but {voters} players vote", event,
                         key=RefuseKey.COUNTS_NOT_VOTERS, total=total, voters=voters)
    if total > voters:
        raise game.error(f"the counts add up to {total}, more than the {voters} alive players", event,
                         key=RefuseKey.COUNTS_TOO_MANY, total=total, voters=voters)


def _check_best_move(game: Judged, event: BestMove) -> None:
    assert game.floor is not None  # fits() put us in the night-2 victim's last word
    seat = game.floor.seat
    named = list(event.seats)
    if len(named) != 3 or len(set(named)) != 3 or seat in named:
        raise game.error(f"a best move names three other seats, got {named}", event,
                         key=RefuseKey.BEST_MOVE_THREE, seats=named)
    refusal = game.variant.best_move_refusal(game, event, seat)
    if refusal is not None:
        raise refusal


def _check_control(game: Judged, event: Control) -> None:
    kind = event.type
    if game.phase is Phase.GAME_OVER:
        raise game.error(f"the game is over; nothing to {kind}", event, key=RefuseKey.GAME_OVER,
                         input=kind)
    if kind == "pause" and game.paused_at is not None:
        raise game.error("the game is already paused", event, key=RefuseKey.ALREADY_PAUSED)
    if kind == "resume" and game.paused_at is None:
        raise game.error("the game is not paused", event, key=RefuseKey.NOT_PAUSED)
    if kind == "next" and game.floor is None:
        raise game.error("there is no floor to close", event, key=RefuseKey.NO_FLOOR)


def _check_seat_event(game: Judged, event: SeatEvent) -> None:
    seat = event.seat
    context = nominated_by_hand(game) if event.type == "nominate" else None
    if context is not None and seat is not None:
        reason = context.judge(seat)
        if reason is not None:   # the refusals of 2.3.5-2.3.6, as for a spoken nomination
            raise game.error(f"the nomination of seat {seat} is refused: {reason}", event,
                             key=RefuseKey(f"nominate_{reason}"), seat=seat)
        return
    if event.type == "unfoul" and seat is not None and game.fouls[seat] == 0:
        raise game.error(f"seat {seat} has no foul to take back", event, key=RefuseKey.NO_FOUL,
                         seat=seat)
    if event.type in ("best_player", "worst_player") and getattr(game, event.type) is not None:
        raise game.error(f"the {event.type.replace('_', ' ')} is already named", event,
                         key=RefuseKey(f"{event.type}_named"))
    refusal = game.variant.seat_event_refusal(game, event)
    if refusal is not None:
        raise refusal
