"""The journal: every input the moderator receives, with its time, one JSON
object per line. Replaying it rebuilds the identical game; the live loop
writes it with an fsync per input so a crash loses nothing."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from voicehost.errors import InputError, VoicehostError
from voicehost.game.events import Event, event_to_json, parse_event
from voicehost.game.moderator import Moderator
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

    def record(self, t: float, event: Event | None) -> None:
        """An input applied at time t; None records the clock alone (a tick)."""
        entry = {"t": t, "event": event_to_json(event) if event else {"type": "tick"}}
        self._write(entry)

    def _write(self, entry: dict[str, Any]) -> None:
        self._file.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


class Table:
    """A moderator and its journal: inputs are journaled once they are accepted."""

    def __init__(self, game: Moderator, journal: Journal | None = None) -> None:
        self.game = game
        self.journal = journal

    def apply(self, event: Event, now: float) -> list[Output]:
        outputs = self.game.handle(event, now)
        if self.journal:
            self.journal.record(now, event)
        return outputs

    def advance(self, now: float) -> list[Output]:
        before = (self.game.now, self.game.fired)
        outputs = self.game.advance(now)
        if self.journal and (self.game.now, self.game.fired) != before:
            self.journal.record(self.game.now, None)
        return outputs


def _header_rules(header: Any, where: str) -> RuleOptions:
    if not isinstance(header, dict) or header.get("journal") != VERSION:
        raise InputError(f"{where}: not a voicehost journal (version {VERSION})")
    rules = dict(header.get("rules", {}))
    name = rules.pop("name", header.get("ruleset", "4mafia"))
    return rules_for(name, rules, where=f"{where} header")


def replay(path: Path) -> tuple[Moderator, list[Output]]:
    """Rebuild the game a journal describes; a torn last line (a crash mid-write) is dropped."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise InputError(f"{path}: the journal is empty")
    try:
        game = Moderator(_header_rules(json.loads(lines[0]), f"{path}:1"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:1: not JSON ({exc.msg})") from None
    outputs: list[Output] = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                break
            raise InputError(f"{path}:{number}: not JSON") from None
        event = entry.get("event", {})
        t = float(entry["t"])
        try:
            if event.get("type") == "tick":
                outputs += game.advance(t)
            else:
                outputs += game.handle(parse_event(event), t)
        except VoicehostError as exc:
            raise InputError(f"{path}:{number}: {exc}") from None
    return game, outputs
