from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from voicehost.game.events import parse_event
from voicehost.game.moderator import Moderator
from voicehost.phrases.grammar import load_grammar
from voicehost.rules import rules_for

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
GAMES = ROOT / "tests" / "games"

# A fixed seating used by hand-written games: blacks are 2 (mafia), 4 (don), 7 (mafia);
# the sheriff sits at 6.
ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen",
         "6": "sheriff", "7": "mafia", "8": "citizen", "9": "citizen", "10": "citizen"}


# The longest any one test's event loop may run: a wait that never ends fails
# the test (naming where it stood) instead of hanging the suite.
ASYNC_TIMEOUT = 120.0


def run_async(coro, timeout: float = ASYNC_TIMEOUT):
    """`asyncio.run(coro)` with a deadline: every test's loop ends in time."""
    async def bounded():
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


def wait_for(condition, timeout: float = 5.0) -> None:
    """Until `condition()` holds (another thread's work is done), or fail at `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


async def async_wait_for(condition, timeout: float = 5.0) -> None:
    """Until `condition()` holds, the loop running meanwhile, or fail at `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


@pytest.fixture(autouse=True)
def _phrase_data_restored():
    """A test that loads a club's settings (its grammars/ over the shipped
    files) leaves the run's phrase data as it found it."""
    from voicehost import phrasedata

    before = phrasedata.active()
    yield
    phrasedata.use(before)


@pytest.fixture(scope="session")
def ru():
    return load_grammar("ru")


def started_game(ruleset: str = "4mafia", **overrides) -> Moderator:
    """A game of `ruleset` with the roles dealt (ROLES): not moderator.new_game, which deals none."""
    game = Moderator.for_rules(rules_for(ruleset, overrides or None))
    game.handle(parse_event({"type": "setup", "roles": ROLES}), 0.0)
    return game


def day_table(path: Path, speaker=None, **rules: object):
    """A live table journaled to `path` (as the live loop writes it), seat 1
    holding the floor on day 1; the night roles take no time."""
    from voicehost.journal import Journal, Table
    from voicehost.live import AudioClock, LiveTable

    options = {"mafia_meet_seconds": 0.001, "don_seconds": 0.001, "sheriff_seconds": 0.001, **rules}
    game_rules = rules_for("4mafia", options)
    clock = AudioClock()
    live = LiveTable(Table(Moderator.for_rules(game_rules), Journal(path, game_rules)), clock, speaker)
    live.apply(parse_event({"type": "setup", "roles": ROLES}))
    clock.skip_to(30.0)
    live.tick()
    assert live.game.where() == "day 1, speech of seat 1"
    return live


def spoken(t: float, *texts: str, step: float = 0.6) -> tuple:
    """Words said one after another from `t`, each 0.5 s long."""
    from voicehost.phrases.words import Word

    return tuple(Word(text, t + i * step, t + i * step + 0.5) for i, text in enumerate(texts))


def run_clock_until(game: Callable[[], Moderator], advance: Callable[[float], object], phase,
                    limit: int = 1000) -> None:
    """Let the clock run to each next deadline until the game reaches `phase`;
    fails (instead of spinning) when the game waits for an input or loops."""
    for _ in range(limit):
        if game().phase is phase:
            return
        deadline = game().next_deadline()
        assert deadline is not None, f"the game waits for {game().waiting_for()} in {game().where()}, not for {phase}"
        advance(deadline)
    raise AssertionError(f"{phase} not reached in {limit} deadlines; the game stands at {game().where()}")


def until(live, phase) -> None:
    """A live table's clock runs on until the game reaches `phase`."""
    def advance(t: float) -> None:
        live.clock.skip_to(t + live.lag)
        live.tick()
    run_clock_until(lambda: live.game, advance, phase)


def realgames_dir() -> Path:
    return SHARED / "realgames"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass(frozen=True)
class Said:
    """An announcement with its words, rendered from the game's phrasebook as
    the table hears them."""

    t: float
    key: str
    private: bool
    data: dict
    text: str

    output: object

    @classmethod
    def of(cls, output, book) -> Said:
        return cls(output.t, output.key, output.private, output.values, book.render(output), output)

    def to_json(self) -> dict:
        return self.output.to_json(self.text)


class Play:
    """Drives a game the way a simulate script does, one line at a time."""

    def __init__(self, ruleset: str = "4mafia", roles: dict | None = None, **overrides) -> None:
        from voicehost.game.moderator import new_game
        from voicehost.journal import Table
        from voicehost.simulate import Simulation

        self.game = new_game(rules_for(ruleset, overrides or None))
        self.sim = Simulation(self.game, Table(self.game))
        self.step({"type": "setup", "roles": roles or ROLES})

    def step(self, line: dict) -> Play:
        self.sim.step(parse_event(line, self.game.max_seat))
        return self

    def speech(self, seat: int, text: str = "") -> Play:
        from voicehost.phrases.words import words_from_text

        words = [w.to_json() for w in words_from_text(text)] if text else []
        return self.step({"type": "speech", "seat": seat, "words": words})

    def nominate(self, seat: int, target: int) -> Play:
        grammar = self.game.grammar
        return self.speech(seat, f"{grammar.trigger} {target} {sorted(grammar.thanks)[0]}")

    def until(self, phase) -> Play:
        run_clock_until(lambda: self.game, lambda t: self.sim.outputs.extend(self.sim.table.advance(t)), phase)
        return self

    def votes(self, counts: dict[int, int]) -> Play:
        return self.step({"type": "votes", "counts": {str(k): v for k, v in counts.items()}})

    def lift(self, count: int) -> Play:
        return self.step({"type": "lift_votes", "count": count})

    def shot(self, seat: int | None) -> Play:
        return self.step({"type": "shot", "seat": seat})

    def seat_event(self, kind: str, seat: int) -> Play:
        return self.step({"type": kind, "seat": seat})

    def run_on(self) -> Play:
        self.sim.run_on()
        return self

    def said(self, key: str | None = None) -> list[Said]:
        outs = [Said.of(o, self.game.book) for o in self.sim.outputs if o.kind == "say"]
        return [o for o in outs if o.key == key] if key else outs

    def texts(self) -> list[str]:
        return [o.text for o in self.said()]

    def eliminated(self) -> list[tuple]:
        return [(e.seat, e.cause.value, e.night or e.day) for e in self.game.eliminated]


_BONUS = {3: 0.5, 2: 0.25}


def series_protocol(winner: str, seats: dict[str, str], best: str | None = None, worst: str | None = None,
             move: tuple[str, int] | None = None, protest: dict | None = None) -> dict:
    """A protocol of a small synthetic game: name -> role, points as the game scores them."""
    names = list(seats)
    seat = {name: str(i) for i, name in enumerate(names, start=1)}
    from voicehost.series.standings import TEAM_OF

    points = {seat[n]: (1.0 if TEAM_OF[r] == winner else 0.0) for n, r in seats.items()}
    if best:
        points[seat[best]] += 0.75
    if worst:
        points[seat[worst]] -= 1.0
    if move:
        points[seat[move[0]]] += _BONUS.get(move[1], 0.0)
    data = {"ruleset": "4mafia", "winner": winner, "points": points,
            "roles": {seat[n]: r for n, r in seats.items()}, "players": {seat[n]: n for n in names},
            "best_player": int(seat[best]) if best else None, "worst_player": int(seat[worst]) if worst else None,
            "best_move": {"seat": int(seat[move[0]]), "named": [1, 2, 3], "blacks": move[1]} if move else None}
    if protest:
        data["protest"] = protest
    return data
