"""The replaying table: a moderator and its journal, undo by rebuilding the
game without the last host input, and replaying or resuming a journal."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from voicehost.errors import GameError, JournalError, JournalWriteError, VoicehostError
from voicehost.game.events import HOST_INPUTS, Event, Heard, event_to_json
from voicehost.game.model import Output
from voicehost.game.moderator import Moderator, new_game
from voicehost.journal.lines import Scan, checked_entry, header_rules, scan_file
from voicehost.journal.writer import Journal
from voicehost.phrases.words import Word
from voicehost.revision import ReplayRevisions, apply_entry, replay_from
from voicehost.rules import RuleOptions


class Table:
    """A moderator and its journal: inputs are journaled once they are accepted.

    Keeps the accepted inputs in memory too, so the host can undo the last one.
    Once a journal write failed, every input is refused with that failure."""

    def __init__(self, game: Moderator, journal: Journal | None = None,
                 entries: list[tuple[float, dict[str, Any]]] | None = None) -> None:
        self.game = game
        self.journal = journal
        self.entries: list[tuple[float, dict[str, Any]]] = entries if entries is not None else []

    def _check(self) -> None:
        if self.journal is not None:
            self.journal.check()

    def apply(self, event: Event, now: float) -> list[Output]:
        self._check()
        if isinstance(event, Heard):
            event, now = _to_the_millisecond(event, now, self.game.now)
        outputs = self.game.handle(event, now)
        self._record(now, event_to_json(event))
        return outputs

    def advance(self, now: float) -> list[Output]:
        """Let time pass; journaled only when a timer fired (replay needs just that)."""
        fired = self.game.fired
        if self.journal is not None and self.journal.failed is not None:
            raise self.journal.failed
        outputs = self.game.advance(now)
        if self.game.fired != fired:
            self._record(self.game.now, {"type": "tick"})
        return outputs

    def undo(self, now: float) -> dict[str, Any]:
        """Take back the last host input: the game is rebuilt without it."""
        self._check()
        index = last_host_input(self.entries)
        if index is None:
            raise GameError("there is no host input to undo", phase=self.game.where())
        undone = self.entries[index][1]
        kept = self.entries[:index] + self.entries[index + 1:]
        t = max(now, self.game.now)
        game = rebuild(self.game.rules, kept)
        game.advance(t)
        if self.journal:
            self.journal.write_entry(t, {"type": "undo"})
        self.game = game
        self.entries = kept
        return undone

    def _record(self, t: float, event: dict[str, Any]) -> None:
        self.entries.append((t, event))
        if self.journal:
            self.journal.write_entry(t, event)

    def close(self) -> None:
        """Close the journal with a last clock mark, so that a resume stands
        where the table stopped, not at its last input."""
        journal = self.journal
        if journal is None:
            return
        last = self.entries[-1][0] if self.entries else 0.0
        if journal.failed is None and journal.is_open and self.game.now > last:
            try:
                journal.write_entry(self.game.now, {"type": "tick"})
            except JournalWriteError:
                pass   # the game stands recorded up to its last input
        journal.close()


def _to_the_millisecond(event: Heard, now: float, game_now: float) -> tuple[Heard, float]:
    """A recognized word's times to the millisecond, applied as journaled: the
    journal keeps short numbers and the replay sees the very same word."""
    word = event.word
    start, end = round(word.start, 3), round(word.end, 3)
    if (start, end) == (word.start, word.end):
        return event, now
    if now == word.start:
        now = max(game_now, start)
    return Heard(Word(word.word, start, end, word.conf)), now


def last_host_input(entries: list[tuple[float, dict[str, Any]]]) -> int | None:
    for index in range(len(entries) - 1, -1, -1):
        if entries[index][1].get("type") in HOST_INPUTS:
            return index
    return None


def rebuild(rules: RuleOptions, entries: list[tuple[float, dict[str, Any]]]) -> Moderator:
    """The game these accepted inputs make; what no longer fits is passed over."""
    game = new_game(rules)
    replay_from(game, entries)
    return game


def replay(path: Path) -> tuple[Moderator, list[Output]]:
    game, outputs, _ = replay_entries(path)
    return game, outputs


def replay_scan(scan: Scan) -> tuple[Moderator, list[Output], list[tuple[float, dict[str, Any]]]]:
    path = scan.path
    rules = header_rules(scan.header, f"{path}:1")
    game = new_game(rules)
    outputs: list[Output] = []
    entries: list[tuple[float, dict[str, Any]]] = []
    revisions = ReplayRevisions(rules, path, [e.get("event") for _, e in scan.entries])
    for number, raw in scan.entries:
        t, event = checked_entry(number, raw, path)
        revised = revisions.see(number, t, event, game, entries)  # a `revise` entry (voicehost.revision)
        if revised is not None:
            game, entries = revised
            continue
        if event.get("type") == "undo":
            index = last_host_input(entries)
            if index is not None:
                del entries[index]
            game = rebuild(rules, entries)
            game.advance(t)
            continue
        try:
            outputs += apply_entry(game, t, event)
        except VoicehostError as exc:
            raise JournalError(f"{path}:{number}: {' '.join(str(exc).split())}") from None
        entries.append((t, event))
    return game, outputs, entries


def replay_entries(path: Path) -> tuple[Moderator, list[Output], list[tuple[float, dict[str, Any]]]]:
    """Rebuild the game a journal describes; a torn tail (a crash mid-write) is left out."""
    return replay_scan(scan_file(Path(path)))


def resume_table(path: Path, *, fsync: bool = True) -> tuple[Table, list[Output], Journal]:
    """Lock a journal, cut a torn tail, and rebuild its game, ready to go on.

    The lock is taken before the file is read, so a second table is refused
    before it could read a journal that the first is still writing."""
    journal = Journal(path, fsync=fsync, resume=True)
    try:
        assert journal.scan is not None
        game, outputs, entries = replay_scan(journal.scan)
        journal.scan = None
    except BaseException:
        journal.close()
        raise
    return Table(game, journal, entries), outputs, journal
