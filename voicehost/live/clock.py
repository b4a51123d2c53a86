"""Game clocks. Game time is what the moderator's timers count: it starts at
the deal, and time the program spent crashed or waiting for the deal is not
game time."""
from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...

    def skip_to(self, t: float) -> None: ...

    def restart(self, t: float) -> None: ...


class GameClock:
    """Game seconds on the wall clock (monotonic)."""

    def __init__(self, start_at: float = 0.0) -> None:
        self._t0 = time.monotonic() - start_at

    def now(self) -> float:
        return time.monotonic() - self._t0

    def skip_to(self, t: float) -> None:
        """Jump forward (typed `<N>` silences, a resumed game); never backward."""
        ahead = t - self.now()
        if ahead > 0:
            self._t0 -= ahead

    def at(self, monotonic: float) -> float:
        """The game time a `time.monotonic()` reading stands for."""
        return monotonic - self._t0

    def restart(self, t: float) -> None:
        """Read `t` now: the deal starts the game's time, whenever the program started."""
        self._t0 = time.monotonic() - t


class AudioClock:
    """Game seconds as audio time: a recorded game plays faster than real time.
    Tests use it as a clock that moves only when told to."""

    def __init__(self, start_at: float = 0.0) -> None:
        self.t = start_at

    def now(self) -> float:
        return self.t

    def skip_to(self, t: float) -> None:
        self.t = max(self.t, t)

    def restart(self, t: float) -> None:
        """Audio time is the recording's own: the deal does not move it."""
