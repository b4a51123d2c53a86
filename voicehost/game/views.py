"""Read-only names for the game's state, as the page, typed play, the
protocol and the tests read it (`game.phase`, `game.alive`, ...).

The stages decide and the engine applies (game/effects.py); these views only
read the state (the few setters let a test stage a position)."""
from __future__ import annotations

from collections import Counter
from enum import Enum

from voicehost.game.model import Elimination, Floor, FloorKind, Phase
from voicehost.game.records import BestMoveRecord, CheckRecord, NominationRecord, VoteRecord
from voicehost.game.state import GameState


class StateView:
    state: GameState

    @property
    def now(self) -> float:
        return self.state.clock.now

    @property
    def fired(self) -> int:
        return self.state.clock.fired

    @property
    def paused_at(self) -> float | None:
        return self.state.clock.paused_at

    @property
    def phase(self) -> Phase:
        return self.state.seats.phase

    @property
    def roles(self) -> dict[int, Enum]:
        return self.state.seats.roles

    @property
    def alive(self) -> set[int]:
        return self.state.seats.alive

    @alive.setter
    def alive(self, value: set[int]) -> None:
        self.state.seats.alive = value

    @property
    def day(self) -> int:
        return self.state.seats.day

    @property
    def night(self) -> int:
        return self.state.seats.night

    @property
    def opener(self) -> int | None:
        return self.state.day.opener

    @opener.setter
    def opener(self, value: int | None) -> None:
        self.state.day.opener = value

    @property
    def today(self) -> list[int]:
        return self.state.day.today

    @property
    def candidates(self) -> list[int]:
        return self.state.day.candidates

    @property
    def tied(self) -> list[int] | None:
        return self.state.day.tied

    @property
    def vote_round(self) -> int:
        return self.state.day.vote_round

    @property
    def vote_index(self) -> int:
        """Which candidate the table votes on now (an index into `candidates`)."""
        return self.state.day.vote_index

    @property
    def vote_resolved(self) -> bool:
        return self.state.day.vote_resolved

    @property
    def shot_entered(self) -> bool:
        return self.state.night.shot_entered

    @property
    def windows(self) -> list[str]:
        return self.state.night.windows

    @property
    def window(self) -> int:
        return self.state.night.window

    @property
    def floor(self) -> Floor | None:
        return self.state.floors.floor

    @property
    def floor_queue(self) -> list[tuple[int, FloorKind]]:
        return self.state.floors.queue

    @property
    def nominations(self) -> list[NominationRecord]:
        return self.state.record.nominations

    @property
    def votes(self) -> list[VoteRecord]:
        return self.state.record.votes

    @property
    def checks(self) -> list[CheckRecord]:
        return self.state.record.checks

    @property
    def fouls(self) -> Counter[int]:
        return self.state.record.fouls

    @property
    def silenced(self) -> set[int]:
        return self.state.record.silenced

    @silenced.setter
    def silenced(self, value: set[int]) -> None:
        self.state.record.silenced = value

    @property
    def eliminated(self) -> list[Elimination]:
        return self.state.record.eliminated

    @property
    def misses(self) -> int:
        return self.state.record.misses

    @property
    def first_killed(self) -> int | None:
        return self.state.record.first_killed

    @property
    def best_move(self) -> BestMoveRecord | None:
        return self.state.record.best_move

    @property
    def best_player(self) -> int | None:
        return self.state.record.best_player

    @property
    def worst_player(self) -> int | None:
        return self.state.record.worst_player

    @property
    def winner(self) -> str | None:
        return self.state.record.winner
