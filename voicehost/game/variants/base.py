"""The variant interface: what differs between games played on the one engine.

A variant decides the deal, each role's side, the night's sequence, how the
day's vote goes, when the game is won, and which phase may follow which. The
engine (voicehost.game.moderator) asks; the variant answers or drives the
stage it owns. Sports presets and the city variant are the two variants."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from voicehost.game.events import SeatEvent

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator


class Variant(Protocol):
    def check_deal(self, game: Moderator, names: dict[int, str]) -> None:
        """Raise a GameError when the deal is not a game of this variant."""

    def best_move_floor(self, game: Moderator) -> bool:
        """Whether a best move can be named now."""

    def precheck_seat_event(self, game: Moderator, event: SeatEvent) -> str | None:
        """Why this seat input can never fit, if it cannot."""

    def seat_event_fits(self, game: Moderator, event: SeatEvent) -> bool:
        """Whether a night input fits where the game stands."""

    def best_move_refusal(self, game: Moderator, seat: int) -> str | None:
        """Why the player at `seat` may not name a best move, if not."""

    def seat_event_refusal(self, game: Moderator, event: SeatEvent) -> str | None:
        """Why this seat input is refused where it fits, if it is."""
