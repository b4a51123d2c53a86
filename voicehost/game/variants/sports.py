"""Sports mafia (4MAFIA, FIIM, classic, ua-club, mafclubspb): ten players, a
don and a sheriff who check by night, a best move for the night-2 victim."""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from voicehost.game.events import SeatEvent
from voicehost.game.model import ROLE_COUNTS, SEATS, FloorKind, Phase, Role, Team

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator

CHECKERS = {"don_check": Role.DON, "sheriff_check": Role.SHERIFF}


class SportsVariant:
    def check_deal(self, game: Moderator, names: dict[int, str]) -> None:
        missing = [s for s in SEATS if s not in names]
        if missing:
            raise game.error(f"setup lacks roles for seat(s) {', '.join(map(str, missing))}")
        known = {r.value for r in Role}
        for seat, name in sorted(names.items()):
            if name not in known:
                raise game.error(f"setup seat {seat}: unknown role {name!r} "
                                 f"(known: {', '.join(r.value for r in Role)})")
        counts = Counter(Role(n) for n in names.values())
        if any(counts[role] != n for role, n in ROLE_COUNTS.items()):
            want = ", ".join(f"{n} {r.value}" for r, n in ROLE_COUNTS.items())
            have = ", ".join(f"{counts[r]} {r.value}" for r in ROLE_COUNTS)
            raise game.error(f"setup needs {want}; got {have}")

    def best_move_floor(self, game: Moderator) -> bool:
        floor = game.floor
        return (floor is not None and floor.kind is FloorKind.LAST_WORD
                and floor.seat == game.first_killed and game.best_move is None
                and game.day == 2)

    def precheck_seat_event(self, game: Moderator, event: SeatEvent) -> str | None:
        role = CHECKERS.get(event.type)
        if role is not None and game.seat_of(role) not in game.alive:
            return f"the {role.value} is out of the game and checks no one"
        return None

    def seat_event_fits(self, game: Moderator, event: SeatEvent) -> bool:
        return {
            "shot": game.phase is Phase.HUNT and not game.shot_entered,
            "don_check": game.phase is Phase.DON_CHECK,
            "sheriff_check": game.phase is Phase.SHERIFF_CHECK,
        }.get(event.type, False)

    def best_move_refusal(self, game: Moderator, seat: int) -> str | None:
        if game.roles[seat] is Role.SHERIFF and not game.rules.sheriff_best_move:
            return "the sheriff has no best move (4.3.3)"
        return None

    def seat_event_refusal(self, game: Moderator, event: SeatEvent) -> str | None:
        checker, seat = CHECKERS.get(event.type), event.seat
        if checker is None or seat is None:
            return None
        if seat == game.seat_of(checker):
            return f"the {checker.value} cannot check their own seat"
        if seat not in game.alive and not game.rules.check_out_seats:
            return f"seat {seat} is out of the game and cannot be checked"
        return None


def team(role: Role) -> Team:
    return role.team
