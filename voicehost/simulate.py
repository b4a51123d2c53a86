"""The script driver: plays a simulate script (SPEC §4) on a virtual clock
through the same moderator that runs live."""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.errors import GameError, InputError, VoicehostError
from voicehost.game.events import IMMEDIATE, Event, SeatEvent, event_type, parse_event
from voicehost.game.model import Output, Phase
from voicehost.game.moderator import Moderator, new_game
from voicehost.journal import Table
from voicehost.rules import RuleOptions


class ScriptError(VoicehostError):
    """A script line the game cannot take; names the line and the phase."""


@dataclass
class Simulation:
    game: Moderator
    table: Table
    outputs: list[Output] = field(default_factory=list)

    def step(self, event: Event) -> None:
        """Advance to the first point where `event` fits, then apply it."""
        game = self.game
        if isinstance(event, SeatEvent) and event.type in IMMEDIATE:
            self.outputs += self.table.apply(event, game.now)
            return
        game.precheck(event)
        while not game.fits(event):
            deadline = game.next_deadline()
            if deadline is None:
                raise self._stuck(event)
            self.outputs += self.table.advance(deadline)
        self.outputs += self.table.apply(event, game.now)

    def _stuck(self, event: Event) -> GameError:
        kind = event_type(event)
        if self.game.phase is Phase.GAME_OVER:
            return self.game.error(f"'{kind}' does not fit: the game is over", event,
                                   key="game_over", input=kind)
        wanted = self.game.waiting_for()
        return self.game.error(f"'{kind}' does not fit before the game gets '{wanted}'", event,
                               key="does_not_fit_waiting", input=kind, wanted=wanted or "")

    def run_on(self) -> None:
        """The script is over: let the game run until it needs input or ends."""
        while (deadline := self.game.next_deadline()) is not None:
            self.outputs += self.table.advance(deadline)


def _no_constant(name: str) -> Any:
    raise InputError(f"'{name}' is not a number a script may use")


def _parse_line(line: str, size: int) -> Event:
    """One script line; JSON nested too deep, numbers too long to convert and
    NaN or Infinity are refused with one line, like any malformed JSON."""
    try:
        data = json.loads(line, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError("malformed JSON (nested too deep)") from None
    except ValueError:
        raise InputError("malformed JSON (a number too long)") from None
    return parse_event(data, size)


def read_script(lines: Iterable[str], where: str) -> list[tuple[int, str]]:
    """The script's non-blank lines with their numbers; each is parsed when reached,
    so an error names the phase the game stands in at that line."""
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise ScriptError(f"{where}: the script is empty; its first line must be the setup")
    return numbered


def simulate(
    lines: list[tuple[int, str]], rules: RuleOptions, where: str, table: Table | None = None
) -> Simulation:
    game = table.game if table else new_game(rules)
    sim = Simulation(game, table or Table(game))
    for number, line in lines:
        try:
            sim.step(_parse_line(line, game.max_seat))
        except VoicehostError as exc:
            raise ScriptError(f"{where}:{number}: {_with_phase(exc, game)}") from None
    sim.run_on()
    return sim


def _with_phase(exc: VoicehostError, game: Moderator) -> str:
    if isinstance(exc, GameError):
        return str(exc)
    return f"{exc} (phase: {game.where()})"


def load_script(path: Path | None, text: str | None = None) -> tuple[list[tuple[int, str]], str]:
    where = str(path) if path else "<stdin>"
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8") if path else ""
        except OSError as exc:
            raise ScriptError(f"cannot read script {where}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ScriptError(f"{where}: the script is not UTF-8 text") from None
    # Lines end at "\n" only: a U+2028 or U+0085 inside a word is part of the line,
    # as the JSON writer left it.
    return read_script(text.split("\n"), where), where
