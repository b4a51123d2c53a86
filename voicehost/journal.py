"""The journal: every input the moderator receives, with its time, one JSON
object per line. Replaying it rebuilds the identical game; the live loop
writes it with an fsync per input so a crash loses nothing."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from voicehost.errors import GameError, InputError, VoicehostError
from voicehost.game.events import HOST_INPUTS, Event, event_to_json, parse_event
from voicehost.game.moderator import Moderator, new_game
from voicehost.game.model import Output
from voicehost.rules import RuleOptions, rules_for

VERSION = 1


class Journal:
    def __init__(self, path: Path, rules: RuleOptions, *, fsync: bool = False, resume: bool = False):
        self.path = path
        self.fsync = fsync
        self._file: IO[str] = open(path, "a" if resume else "w", encoding="utf-8")
        if not resume:
            self._write({"journal": VERSION, "ruleset": rules.name, "rules": rules.to_json()})

    def write_entry(self, t: float, event: dict[str, Any]) -> None:
        """An input applied at time t ({"type": "tick"}: the clock alone)."""
        self._write({"t": t, "event": event})

    def _write(self, entry: dict[str, Any]) -> None:
        self._file.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()




class Table:
    """A moderator and its journal: inputs are journaled once they are accepted.

    Keeps the accepted inputs in memory too, so the host can undo the last one."""

    def __init__(self, game: Moderator, journal: Journal | None = None,
                 entries: list[tuple[float, dict[str, Any]]] | None = None) -> None:
        self.game = game
        self.journal = journal
        self.entries: list[tuple[float, dict[str, Any]]] = entries if entries is not None else []

    def apply(self, event: Event, now: float) -> list[Output]:
        outputs = self.game.handle(event, now)
        self._record(now, event_to_json(event))
        return outputs

    def advance(self, now: float) -> list[Output]:
        before = (self.game.now, self.game.fired)
        outputs = self.game.advance(now)
        if (self.game.now, self.game.fired) != before:
            self._record(self.game.now, {"type": "tick"})
        return outputs

    def undo(self, now: float) -> dict[str, Any]:
        """Take back the last host input: the game is rebuilt without it."""
        index = last_host_input(self.entries)
        if index is None:
            raise GameError("there is no host input to undo", phase=self.game.where())
        undone = self.entries[index][1]
        kept = self.entries[:index] + self.entries[index + 1:]
        self.game = rebuild(self.game.rules, kept)
        self.entries = kept
        self.game.advance(max(now, self.game.now))
        if self.journal:
            self.journal.write_entry(max(now, self.game.now), {"type": "undo"})
        return undone

    def _record(self, t: float, event: dict[str, Any]) -> None:
        self.entries.append((t, event))
        if self.journal:
            self.journal.write_entry(t, event)


def last_host_input(entries: list[tuple[float, dict[str, Any]]]) -> int | None:
    for index in range(len(entries) - 1, -1, -1):
        if entries[index][1].get("type") in HOST_INPUTS:
            return index
    return None


def _apply_entry(game: Moderator, t: float, event: dict[str, Any]) -> list[Output]:
    if event.get("type") == "tick":
        return game.advance(t)
    return game.handle(parse_event(event, game.max_seat), t)


def rebuild(rules: RuleOptions, entries: list[tuple[float, dict[str, Any]]]) -> Moderator:
    """The game these accepted inputs make; what no longer fits is passed over."""
    game = new_game(rules)
    for t, event in entries:
        try:
            _apply_entry(game, t, event)
        except VoicehostError:
            continue
    return game


def _header_rules(header: Any, where: str) -> RuleOptions:
    if not isinstance(header, dict) or header.get("journal") != VERSION:
        raise InputError(f"{where}: not a voicehost journal (version {VERSION})")
    rules = dict(header.get("rules", {}))
    name = rules.pop("name", header.get("ruleset", "4mafia"))
    return rules_for(name, rules, where=f"{where} header")


def replay(path: Path) -> tuple[Moderator, list[Output]]:
    game, outputs, _ = replay_entries(path)
    return game, outputs


def replay_entries(path: Path) -> tuple[Moderator, list[Output], list[tuple[float, dict[str, Any]]]]:
    """Rebuild the game a journal describes; a torn last line (a crash mid-write) is dropped."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise InputError(f"{path}: the journal is empty")
    try:
        rules = _header_rules(json.loads(lines[0]), f"{path}:1")
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:1: not JSON ({exc.msg})") from None
    game = new_game(rules)
    outputs: list[Output] = []
    entries: list[tuple[float, dict[str, Any]]] = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = json.loads(line)
            t, event = float(entry["t"]), entry["event"]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            if number == len(lines):
                break
            raise InputError(f"{path}:{number}: not a journal entry") from None
        if event.get("type") == "undo":
            index = last_host_input(entries)
            if index is not None:
                del entries[index]
            game = rebuild(rules, entries)
            game.advance(t)
            continue
        try:
            outputs += _apply_entry(game, t, event)
        except VoicehostError as exc:
            raise InputError(f"{path}:{number}: {exc}") from None
        entries.append((t, event))
    return game, outputs, entries
