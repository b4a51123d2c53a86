"""Sports mafia (4MAFIA, FIIM, classic, ua-club, mafclubspb): ten players, a
don and a sheriff who check by night, a best move for the night-2 victim."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from enum import Enum, StrEnum
from typing import TYPE_CHECKING, ClassVar

from voicehost.errors import GameError
from voicehost.game import night, voting
from voicehost.game.events import BestMove, SeatEvent, Votes
from voicehost.game.keys import Key
from voicehost.game.model import ROLE_COUNTS, SEATS, FloorKind, Phase, Role, Team, Winner
from voicehost.refusals import RefuseKey

if TYPE_CHECKING:
    from voicehost.game.effects import Context, Effects
    from voicehost.game.state import GameState

CHECKERS = {"don_check": Role.DON, "sheriff_check": Role.SHERIFF}
# Where a day can go once the town is awake: another floor, the vote, a last
# word, nightfall, or the end.
_DAY_EXITS = frozenset({Phase.SPEECH, Phase.VOTING, Phase.LAST_WORD, Phase.HUNT, Phase.GAME_OVER})
TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.SETUP: frozenset({Phase.MAFIA_MEETING}),
    Phase.MAFIA_MEETING: frozenset({Phase.DON_MEETING, Phase.GAME_OVER}),
    Phase.DON_MEETING: frozenset({Phase.SHERIFF_MEETING, Phase.GAME_OVER}),
    Phase.SHERIFF_MEETING: _DAY_EXITS,
    Phase.SPEECH: _DAY_EXITS,
    Phase.VOTING: frozenset({Phase.TALLY, Phase.HUNT, Phase.GAME_OVER}),
    Phase.TALLY: frozenset({Phase.LAST_WORD, Phase.TIE_SPEECH, Phase.LIFT_VOTE, Phase.HUNT,
                            Phase.VOTING, Phase.GAME_OVER}),
    Phase.TIE_SPEECH: frozenset({Phase.TIE_SPEECH, Phase.VOTING, Phase.LIFT_VOTE, Phase.HUNT,
                                 Phase.GAME_OVER}),
    Phase.LIFT_VOTE: frozenset({Phase.LAST_WORD, Phase.HUNT, Phase.GAME_OVER}),
    Phase.LAST_WORD: _DAY_EXITS,
    Phase.HUNT: frozenset({Phase.DON_CHECK, Phase.GAME_OVER}),
    Phase.DON_CHECK: frozenset({Phase.SHERIFF_CHECK, Phase.GAME_OVER}),
    Phase.SHERIFF_CHECK: _DAY_EXITS,
    Phase.GAME_OVER: frozenset(),
}
STEPS: dict[Phase, Callable[[Context], Effects]] = {
    Phase.MAFIA_MEETING: night.meet_don,
    Phase.DON_MEETING: night.meet_sheriff,
    Phase.SHERIFF_MEETING: night.end_first_night,
    Phase.VOTING: voting.vote_step,
    Phase.HUNT: night.hunt_step,
    Phase.DON_CHECK: night.don_done,
    Phase.SHERIFF_CHECK: night.sheriff_done,
}


class SportsVariant:
    kind = "sports"
    exportable = True
    card_lines: tuple[str, ...] = ()
    max_seat = len(SEATS)
    default_seats = len(SEATS)
    nominations_by_phrase = True
    transitions = TRANSITIONS
    win_say: ClassVar[dict[str, Key]] = {Winner.RED: Key.RED_WINS, Winner.BLACK: Key.BLACK_WINS, Winner.DRAW: Key.DRAW}

    # -------------------------------------------------------- deal and sides

    def check_deal(self, game: Context, names: dict[int, str]) -> None:
        missing = [s for s in SEATS if s not in names]
        if missing:
            raise game.error(f"setup lacks roles for seat(s) {', '.join(map(str, missing))}",
                             key=RefuseKey.DEAL_MISSING, seats=missing)
        known = {r.value for r in Role}
        for seat, name in sorted(names.items()):
            if name not in known:
                raise game.error(f"setup seat {seat}: unknown role {name!r} "
                                 f"(known: {', '.join(r.value for r in Role)})",
                                 key=RefuseKey.DEAL_UNKNOWN_ROLE, seat=seat, role=name,
                                 known=[r.value for r in Role])
        counts = Counter(Role(n) for n in names.values())
        if any(counts[role] != n for role, n in ROLE_COUNTS.items()):
            want = ", ".join(f"{n} {r.value}" for r, n in ROLE_COUNTS.items())
            have = ", ".join(f"{counts[r]} {r.value}" for r in ROLE_COUNTS)
            raise game.error(f"setup needs {want}; got {have}", key=RefuseKey.DEAL_COUNTS)

    def deal(self, names: dict[int, str]) -> dict[int, Enum]:
        return {seat: Role(name) for seat, name in sorted(names.items())}

    def side(self, role: Enum) -> str:
        return Role(role.value).team

    def winner(self, game: Context) -> StrEnum | None:
        sides = Counter(self.side(game.state.seats.roles[s]) for s in game.state.seats.alive)
        black, red = sides[Team.BLACK], sides[Team.RED]
        if black == 0:
            return Winner.RED
        if black >= red:
            return Winner.BLACK
        return None

    def left_table_winner(self, game: Context, seat: int) -> StrEnum | None:
        """3.8.1: leaving without leave loses the game for the player's team."""
        return Winner.BLACK if game.side(seat) == Team.RED else Winner.RED

    # ---------------------------------------------------------- the sequence

    def first_night(self, game: Context) -> Effects:
        return night.first_night(game)

    def step(self, game: Context) -> Effects:
        return STEPS[game.state.seats.phase](game)

    def speaking_order(self, state: GameState) -> list[int]:
        """2.2.2: the opener moves one seat on each day, skipping the dead."""
        order = sorted(state.seats.alive)
        after = 0 if state.day.opener is None else state.day.opener
        opener = next((s for s in order if s > after), order[0])
        start = order.index(opener)
        return order[start:] + order[:start]

    def start_vote(self, game: Context) -> Effects:
        return voting.start_vote(game)

    def candidates(self, game: Context, seats: list[int]) -> Effects:
        raise AssertionError("admission lets no candidates into a sports game")

    def after_tally(self, game: Context, event: Votes) -> Effects:
        return voting.after_tally(game, event)

    def lift_votes(self, game: Context, count: int) -> Effects:
        return voting.lift_votes(game, count)

    def nightfall(self, game: Context) -> Effects:
        return night.nightfall(game)

    def night_input(self, game: Context, event: SeatEvent) -> Effects:
        if event.type == "shot":
            return night.shot(game, event.seat)
        if event.seat is not None:
            return (night.don_check if event.type == "don_check" else night.sheriff_check)(game, event.seat)
        return []

    def dawn(self, game: Context) -> Effects:
        return night.dawn(game)

    # ------------------------------------------------------------- admission

    def best_move_floor(self, game: Context) -> bool:
        floor = game.state.floors.floor
        return (floor is not None and floor.kind is FloorKind.LAST_WORD
                and floor.seat == game.state.record.first_killed
                and game.state.record.best_move is None and game.state.seats.day == 2)

    def precheck_seat_event(self, game: Context, event: SeatEvent) -> GameError | None:
        role = CHECKERS.get(event.type)
        if role is not None and game.seat_of(role) not in game.state.seats.alive:
            return game.error(f"the {role.value} is out of the game and checks no one", event,
                              key=RefuseKey(f"{role.value}_out"))
        return None

    def seat_event_fits(self, game: Context, event: SeatEvent) -> bool:
        phase = game.state.seats.phase
        if event.type == "shot":
            return phase is Phase.HUNT and not game.state.night.shot_entered
        return (event.type == "don_check" and phase is Phase.DON_CHECK
                or event.type == "sheriff_check" and phase is Phase.SHERIFF_CHECK)

    def best_move_refusal(self, game: Context, event: BestMove, seat: int) -> GameError | None:
        if game.state.seats.roles[seat] is Role.SHERIFF and not game.rules.sheriff_best_move:
            return game.error("the sheriff has no best move (4.3.3)", event,
                              key=RefuseKey.SHERIFF_NO_BEST_MOVE)
        return None

    def seat_event_refusal(self, game: Context, event: SeatEvent) -> GameError | None:
        checker, seat = CHECKERS.get(event.type), event.seat
        if checker is None or seat is None:
            return None
        if night.checked_tonight(game, checker.value):
            return game.error(f"the {checker.value} has already checked a seat tonight", event,
                              key=RefuseKey(f"{checker.value}_checked"))
        if seat == game.seat_of(checker):
            return game.error(f"the {checker.value} cannot check their own seat", event,
                              key=RefuseKey(f"{checker.value}_own_seat"))
        if seat not in game.state.seats.alive and not game.rules.check_out_seats:
            return game.error(f"seat {seat} is out of the game and cannot be checked", event,
                              key=RefuseKey.CHECK_OUT_SEAT, seat=seat)
        return None
