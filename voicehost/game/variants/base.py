"""The variant interface: what differs between games played on the one engine.

A variant decides the deal, each role's side, the night's sequence, how the
day's vote goes, when the game is won, and which phase may follow which (its
own transition table). The engine (voicehost.game.moderator) asks; the
variant answers, or returns the decision of the stage it drives (effects the
engine applies). Sports presets and the city
variant are the two variants."""
from __future__ import annotations

from collections.abc import Mapping
from enum import Enum, StrEnum
from typing import TYPE_CHECKING, Protocol

from voicehost.errors import GameError
from voicehost.game.events import BestMove, SeatEvent, Votes
from voicehost.game.keys import Key
from voicehost.game.model import Phase

if TYPE_CHECKING:
    from voicehost.game.effects import Context, Effects
    from voicehost.game.state import GameState

Transitions = Mapping[Phase, frozenset[Phase]]


class Variant(Protocol):
    @property
    def kind(self) -> str:
        """The variant's name where an edge shows it (the page's `game_kind`)."""

    @property
    def exportable(self) -> bool:
        """Whether the rating platforms record this game (they record sports mafia only)."""

    @property
    def card_lines(self) -> tuple[str, ...]:
        """The announcements that read a role's card out (`card` = a role's key)."""

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
    def win_say(self) -> Mapping[str, Key]:
        """Winner -> the phrasebook key that announces it."""

    # -- the deal and the sides
    def check_deal(self, game: Context, names: dict[int, str]) -> None:
        """Raise a GameError when the deal is not a game of this variant."""

    def deal(self, names: dict[int, str]) -> dict[int, Enum]:
        """Seat -> role, from an admitted deal."""

    def side(self, role: Enum) -> str:
        """The side a role plays for (a winner's name)."""

    def winner(self, game: Context) -> StrEnum | None:
        """The side that has won where the game stands, if one has."""

    def left_table_winner(self, game: Context, seat: int) -> StrEnum | None:
        """The side that wins when the player at `seat` leaves the table, if any."""

    # -- the sequence: each returns what it decided (game/effects.py)
    def first_night(self, game: Context) -> Effects: ...

    def step(self, game: Context) -> Effects:
        """The phase's own timer ran out."""

    def speaking_order(self, state: GameState) -> list[int]:
        """Today's speakers, in order (a question: it changes nothing)."""

    def start_vote(self, game: Context) -> Effects:
        """The day's speeches are over."""

    def candidates(self, game: Context, seats: list[int]) -> Effects: ...

    def after_tally(self, game: Context, event: Votes) -> Effects: ...

    def lift_votes(self, game: Context, count: int) -> Effects: ...

    def nightfall(self, game: Context) -> Effects: ...

    def night_input(self, game: Context, event: SeatEvent) -> Effects:
        """An admitted night input: a shot, a check, a role's action."""

    def dawn(self, game: Context) -> Effects:
        """Tell the night's result, then go on with the day (unless the game ends)."""

    # -- admission
    def best_move_floor(self, game: Context) -> bool:
        """Whether a best move can be named now."""

    def precheck_seat_event(self, game: Context, event: SeatEvent) -> GameError | None:
        """Why this seat input can never fit, if it cannot."""

    def seat_event_fits(self, game: Context, event: SeatEvent) -> bool:
        """Whether a night input fits where the game stands."""

    def best_move_refusal(self, game: Context, event: BestMove, seat: int) -> GameError | None:
        """Why the player at `seat` may not name a best move, if not."""

    def seat_event_refusal(self, game: Context, event: SeatEvent) -> GameError | None:
        """Why this seat input is refused where it fits, if it is."""
