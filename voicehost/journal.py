"""The journal: every input the moderator receives, with its time, one JSON
object per line. Replaying it rebuilds the identical game; the live loop
writes it with an fsync per input so a crash loses nothing."""
from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import IO, Any

from voicehost.errors import GameError, InputError, VoicehostError
from voicehost.game.events import Event, Heard, event_to_json, parse_event
from voicehost.game.moderator import Moderator, new_game
from voicehost.game.model import Output
from voicehost.phrases.words import Word, parse_words
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


HOST_INPUTS = frozenset({"votes", "lift_votes", "shot", "don_check", "sheriff_check", "best_move",
                         "foul", "unfoul", "disqualify", "leave_table", "best_player", "worst_player",
                         "pause", "resume", "next",
                         "candidates", "heal", "visit", "commissar_check", "maniac_kill"})


class Table:
    """A moderator and its journal: inputs are journaled once they are accepted.

    Keeps the accepted inputs in memory too, so the host can undo the last one."""

    def __init__(self, game: Moderator, journal: Journal | None = None,
                 entries: list[tuple[float, dict[str, Any]]] | None = None) -> None:
        self.game = game
        self.journal = journal
        self.entries: list[tuple[float, dict[str, Any]]] = entries if entries is not None else []
        self._mark: tuple[int, Moderator] | None = None

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
        self._mark = None
        self.game.advance(max(now, self.game.now))
        if self.journal:
            self.journal.write_entry(max(now, self.game.now), {"type": "undo"})
        return undone

    def mark(self) -> None:
        """Remember the game as it stands before words taken from partial
        results: a revision of those words replays from here."""
        if self._mark is None:
            self._mark = (len(self.entries), copy.deepcopy(self.game))

    def revise(self, old: list[Word], new: list[Word], now: float) -> list[Output]:
        """The final result replaces heard words taken from partial results:
        the game is replayed from the mark with the final words and times, so
        every timing rule is judged on exact times. When what was announced
        changes, the outputs start with a spoken correction; the journal keeps
        the provisional words and a `revise` entry, so it records both."""
        start, base = self._mark if self._mark is not None else (0, new_game(self.game.rules))
        self._mark = None
        entries = revised_entries(self.entries, start, old, new)
        said = _replay_from(copy.deepcopy(base), self.entries[start:])
        game = copy.deepcopy(base)
        now_said = _replay_from(game, entries[start:])
        game.advance(max(now, game.now))
        self.game, self.entries = game, entries
        if self.journal:
            self.journal.write_entry(max(now, game.now), revise_json(old, new))
        return correction(game, said, now_said, max(now, game.now))

    def _record(self, t: float, event: dict[str, Any]) -> None:
        self.entries.append((t, event))
        if self.journal:
            self.journal.write_entry(t, event)


def revise_json(old: list[Word], new: list[Word]) -> dict[str, Any]:
    return {"type": "revise", "old": [w.to_json() for w in old], "new": [w.to_json() for w in new]}


def revised_entries(entries: list[tuple[float, dict[str, Any]]], start: int, old: list[Word],
                    new: list[Word]) -> list[tuple[float, dict[str, Any]]]:
    """`entries` with the heard words `old` (after `start`) replaced by `new`,
    each in the place and at the time its provisional word was applied; extra
    final words follow the last one, missing ones are dropped."""
    places: list[int] = []
    for word in old:
        wanted, after = event_to_json(Heard(word)), (places[-1] + 1 if places else start)
        found = next((i for i in range(after, len(entries)) if entries[i][1] == wanted), None)
        if found is not None:  # a provisional word the echo guard dropped never reached the game
            places.append(found)
    out = list(entries)
    fresh = [event_to_json(Heard(w)) for w in new]
    if not places:
        t = entries[-1][0] if entries else 0.0
        return out + [(max(t, w.start), e) for w, e in zip(new, fresh)]
    for place, event in zip(places, fresh):
        out[place] = (out[place][0], event)
    if len(fresh) > len(places):
        at = places[-1] + 1
        out[at:at] = [(out[places[-1]][0], event) for event in fresh[len(places):]]
    for place in reversed(places[len(fresh):]):
        del out[place]
    return out


def _replay_from(game: Moderator, entries: list[tuple[float, dict[str, Any]]]) -> list[Output]:
    outputs: list[Output] = []
    for t, event in entries:
        try:
            outputs += _apply_entry(game, t, event)
        except VoicehostError:
            continue
    return outputs


def correction(game: Moderator, before: list[Output], after: list[Output], now: float) -> list[Output]:
    """What to say when a revision changed the announcements: the new ones,
    each as a correction, and a withdrawal for a nomination no longer heard."""
    def said(outputs: list[Output]) -> list[tuple[str, str]]:
        return [(o.key, o.text) for o in outputs if o.kind == "say" and not o.private]

    if said(before) == said(after):
        return []
    gone = [o for o in before if o.kind == "say" and (o.key, o.text) not in said(after)]
    come = [o for o in after if o.kind == "say" and not o.private and (o.key, o.text) not in said(before)]
    out = [Output(now, "say", game.book.text("correction_withdrawn", seat=o.data.get("seat", "")),
                  "correction_withdrawn", False, dict(o.data)) for o in gone if o.key == "accepted"]
    out += [Output(now, "say", game.book.text("correction", word=o.text), "correction", False, dict(o.data))
            for o in come]
    return out


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
    mark: tuple[int, Moderator] | None = None
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = json.loads(line)
            t, event = float(entry["t"]), entry["event"]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            if number == len(lines):
                break
            raise InputError(f"{path}:{number}: not a journal entry") from None
        if event.get("type") == "revise":
            try:
                old = parse_words(event["old"], f"{path}:{number} old")
                new = parse_words(event["new"], f"{path}:{number} new")
            except (KeyError, VoicehostError) as exc:
                raise InputError(f"{path}:{number}: not a revision ({exc})") from None
            # as the live table did: replay from the game before the utterance's first word
            start, base = mark if mark is not None else (0, new_game(rules))
            entries = revised_entries(entries, start, old, new)
            game = copy.deepcopy(base)
            _replay_from(game, entries[start:])
            game.advance(t)
            mark = None
            continue
        if event.get("type") == "word" and mark is None:
            mark = (len(entries), copy.deepcopy(game))
        if event.get("type") == "undo":
            mark = None
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
