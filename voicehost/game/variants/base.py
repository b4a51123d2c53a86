"""The variant interface: what differs between games played on the one engine.

A variant decides the deal, each role's side, the night's sequence, how the
day's vote goes, when the game is won, and which phase may follow which (its
own transition table). The engine (voicehost.game.moderator) asks; the
variant answers, or drives the stage it owns. Sports presets and the city
variant are the two variants."""
from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from voicehost.errors import GameError
from voicehost.game.events import BestMove, SeatEvent, Votes
from voicehost.game.model import Phase
from voicehost.rules import RuleOptions

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator

Transitions = Mapping[Phase, frozenset[Phase]]


class Variant(Protocol):
    @property
    def max_seat(self) -> int:
        """The highest seat an input may name."""

    @property
    def default_seats(self) -> int:
        """The table before the deal."""

    @property
    def nominations_by_phrase(self) -> bool:
        """Whether players nominate in their speech ("выставляю ...")."""

    @property
    def transitions(self) -> Transitions:
        """Which phase may follow which: this variant's own table."""

    @property
    def win_say(self) -> Mapping[str, str]:
        """Winner -> the phrasebook key that announces it."""

    # -- the deal and the sides
    def check_deal(self, game: Moderator, names: dict[int, str]) -> None:
        """Raise a GameError when the deal is not a game of this variant."""

    def deal(self, names: dict[int, str]) -> dict[int, Enum]:
        """Seat -> role, from an admitted deal."""

    def side(self, role: Enum) -> str:
        """The side a role plays for (a winner's name)."""

    def winner(self, game: Moderator) -> str | None:
        """The side that has won where the game stands, if one has."""

    def left_table_winner(self, game: Moderator, seat: int) -> str | None:
        """The side that wins when the player at `seat` leaves the table, if any."""

    # -- the sequence
    def first_night(self, game: Moderator) -> None: ...

    def step(self, game: Moderator) -> None:
        """The phase's own timer ran out."""

    def speaking_order(self, game: Moderator) -> list[int]: ...

    def start_vote(self, game: Moderator) -> None:
        """The day's speeches are over."""

    def candidates(self, game: Moderator, seats: list[int]) -> None: ...

    def after_tally(self, game: Moderator, event: Votes) -> None: ...

    def lift_votes(self, game: Moderator, count: int) -> None: ...

    def nightfall(self, game: Moderator) -> None: ...

    def night_input(self, game: Moderator, event: SeatEvent) -> None:
        """An admitted night input: a shot, a check, a role's action."""

    def dawn(self, game: Moderator) -> bool:
        """Tell the night's result; True when the day does not simply go on to speeches."""

    # -- admission
    def best_move_floor(self, game: Moderator) -> bool:
        """Whether a best move can be named now."""

    def precheck_seat_event(self, game: Moderator, event: SeatEvent) -> GameError | None:
        """Why this seat input can never fit, if it cannot."""

    def seat_event_fits(self, game: Moderator, event: SeatEvent) -> bool:
        """Whether a night input fits where the game stands."""

    def best_move_refusal(self, game: Moderator, event: BestMove, seat: int) -> GameError | None:
        """Why the player at `seat` may not name a best move, if not."""

    def seat_event_refusal(self, game: Moderator, event: SeatEvent) -> GameError | None:
        """Why this seat input is refused where it fits, if it is."""


def variant_for(rules: RuleOptions) -> Variant:
    """The variant a ruleset plays: the city game, or sports mafia."""
    if rules.game == "city":
        from voicehost.game.city import CityVariant

        return CityVariant()
    from voicehost.game.variants.sports import SportsVariant

    return SportsVariant()
