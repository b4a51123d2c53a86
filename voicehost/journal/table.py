"""The journaled game: one game, its accepted inputs and its journal, with one
apply, one undo and one rebuild. `simulate` and `replay` use it as it is; the
live table (voicehost.live.table) wraps it with its clock, writer thread and
speaker; the page reads it through the live table.

The game object is never swapped: an undo rebuilds the game without the last
host input, a revision replays it from its mark, and the one `Moderator` takes
the result over in place (`revision.take_over`), so whoever holds `table.game`
holds the game as it now stands."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from voicehost.errors import GameError, JournalError, JournalWriteError, VoicehostError
from voicehost.game.events import HOST_INPUTS, Event, Heard, event_to_json
from voicehost.game.model import Output
from voicehost.game.moderator import Moderator, new_game
from voicehost.journal.lines import TICK, Entry, Scan, checked_entry, header_rules, scan_file
from voicehost.journal.revision import Mark, ReplayRevisions, apply_entry, replay_from, revise, take_over
from voicehost.journal.writer import Journal
from voicehost.jsontypes import JSONObject
from voicehost.phrases.words import Word
from voicehost.rules import RuleOptions

UNDO: JSONObject = {"type": "undo"}
HEARD = "heard"   # an input's field in the journal: the host's spoken words that made it (SPEC §7.2)


class Sink(Protocol):
    """Where accepted inputs go: a `Journal` (written at once), or the live
    table's writer thread (voicehost.live.writer)."""

    def write_entry(self, t: float, event: JSONObject) -> None: ...

    def hold(self, t: float, event: JSONObject) -> None: ...


class Table:
    """A moderator and its journal: inputs are journaled once they are accepted.

    Keeps the accepted inputs in memory too, so the host can undo the last one.
    Once a `Journal` write failed, every input is refused with that failure (a
    writer thread's failure is the live table's to tell)."""

    def __init__(self, game: Moderator, journal: Sink | None = None,
                 entries: list[Entry] | None = None) -> None:
        self.game = game
        self.journal = journal
        self.entries: list[Entry] = entries if entries is not None else []

    def _check(self) -> None:
        if isinstance(self.journal, Journal):
            self.journal.check()

    def apply(self, event: Event, now: float, *, hold: bool = False, heard: Sequence[str] = ()) -> list[Output]:
        """An input, applied and journaled (`hold`: a heard word that may wait for
        the next write; `heard`: the host's spoken words that made it, SPEC §7.2)."""
        self._check()
        if isinstance(event, Heard):
            event, now = _to_the_millisecond(event, now, self.game.now)
        outputs = self.game.handle(event, now)
        data = event_to_json(event)
        self.record(now, {**data, HEARD: list(heard)} if heard else data, hold=hold)
        return outputs

    def advance(self, now: float, *, hold: bool = False) -> list[Output]:
        """Let time pass; journaled only when a timer fired (replay needs just that)."""
        fired = self.game.fired
        if isinstance(self.journal, Journal) and self.journal.failed is not None:
            raise self.journal.failed
        outputs = self.game.advance(now)
        if self.game.fired != fired:
            self.record(self.game.now, TICK, hold=hold)
        return outputs

    def record(self, t: float, event: JSONObject, *, hold: bool = False) -> None:
        self.entries.append(Entry(t, event))
        if self.journal is not None:
            if hold:
                self.journal.hold(t, event)
            else:
                self.journal.write_entry(t, event)

    # ------------------------------------------------------------ undo, revisions, replay

    def undo_plan(self) -> list[Entry] | None:
        """The accepted inputs without the last host input (None: there is none),
        from which `rebuild` makes the game an undo leaves."""
        index = last_host_input(self.entries)
        return None if index is None else self.entries[:index] + self.entries[index + 1:]

    def finish_undo(self, rebuilt: Moderator, mark: int, t: float,
                    heard: Sequence[str] = ()) -> JSONObject | None:
        """The game takes over `rebuilt` (made without the last host input of
        the first `mark` entries); what was accepted after `mark` (heard while
        it was rebuilt) is applied to it first. Journals the undo at `t` (or
        the rebuilt game's time) and returns the input taken back."""
        replay_from(rebuilt, self.entries[mark:])
        index = last_host_input(self.entries[:mark])
        rebuilt.advance(max(t, rebuilt.now))
        take_over(self.game, rebuilt)
        undone = self.entries.pop(index).event if index is not None else None
        if self.journal is not None:
            self.journal.write_entry(self.game.now, {**UNDO, HEARD: list(heard)} if heard else UNDO)
        return undone

    def undo(self, now: float, heard: Sequence[str] = ()) -> JSONObject:
        """Take back the last host input: the game is rebuilt without it."""
        self._check()
        kept = self.undo_plan()
        if kept is None:
            raise GameError("there is no host input to undo", phase=self.game.where())
        undone = self.finish_undo(rebuild(self.game.rules, kept), len(self.entries), max(now, self.game.now), heard)
        assert undone is not None
        return undone

    def revise(self, at: Mark | None, places: list[int], new: list[Word], now: float) -> list[Output]:
        """The final words of an utterance in its provisional words' `places`:
        the game is replayed from the mark; returns the corrections to say."""
        entries, outputs = revise(self.game, at, self.entries, places, new, now)
        self.entries[:] = entries
        return outputs

    def close(self) -> None:
        """Close the journal with a last clock mark, so that a resume stands
        where the table stopped, not at its last input."""
        journal = self.journal
        if not isinstance(journal, Journal):
            return
        last = self.entries[-1].t if self.entries else 0.0
        if journal.failed is None and journal.is_open and self.game.now > last:
            try:
                journal.write_entry(self.game.now, TICK)
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
    return Heard(Word(word.word, start, end, word.conf, word.seat, word.angle)), now


def last_host_input(entries: list[Entry]) -> int | None:
    """The last input an undo may take back: the seating and the deal belong
    to the time before the game, so nothing before the deal is reached."""
    for index in range(len(entries) - 1, -1, -1):
        kind = entries[index].event.get("type")
        if kind == "setup":
            return None
        if kind in HOST_INPUTS:
            return index
    return None


def dealt(entries: list[Entry]) -> bool:
    """Whether the roles were dealt: then the seating and the deal are out of an undo's reach."""
    return any(entry.event.get("type") == "setup" for entry in entries)


def rebuild(rules: RuleOptions, entries: list[Entry]) -> Moderator:
    """The game these accepted inputs make; what no longer fits is passed over."""
    game = new_game(rules)
    replay_from(game, entries)
    return game


def replay(path: Path, *, trust_unkeyed: bool = False) -> tuple[Moderator, list[Output]]:
    game, outputs, _ = replay_entries(path, trust_unkeyed=trust_unkeyed)
    return game, outputs


def replay_scan(scan: Scan) -> tuple[Moderator, list[Output], list[Entry]]:
    path = scan.path
    rules = header_rules(scan.header, f"{path}:1")
    table = Table(new_game(rules))
    outputs: list[Output] = []
    revisions = ReplayRevisions(path, [e.get("event") for _, e in scan.entries])
    for number, raw in scan.entries:
        entry = checked_entry(number, raw, path)
        revised = revisions.see(number, entry, table.game, table.entries)  # a `revise` entry
        if revised is not None:
            table.entries[:] = revised
            continue
        if entry.event.get("type") == "undo":
            kept = table.undo_plan()
            table.finish_undo(rebuild(rules, table.entries if kept is None else kept), len(table.entries), entry.t)
            continue
        try:
            outputs += apply_entry(table.game, entry)
        except VoicehostError as exc:
            raise JournalError(f"{path}:{number}: {' '.join(str(exc).split())}") from None
        table.entries.append(entry)
    return table.game, outputs, table.entries


def replay_entries(path: Path, *, trust_unkeyed: bool = False) -> tuple[Moderator, list[Output], list[Entry]]:
    """Rebuild the game a journal describes; a torn tail (a crash mid-write) is left out."""
    return replay_scan(scan_file(Path(path), trust_unkeyed=trust_unkeyed))


def resume_table(path: Path, *, fsync: bool = True,
                 trust_unkeyed: bool = False) -> tuple[Table, list[Output], Journal]:
    """Lock a journal, cut a torn tail, and rebuild its game, ready to go on.

    The lock is taken before the file is read, so a second table is refused
    before it could read a journal that the first is still writing."""
    journal = Journal(path, fsync=fsync, resume=True, trust_unkeyed=trust_unkeyed)
    try:
        assert journal.scan is not None
        game, outputs, entries = replay_scan(journal.scan)
        journal.scan = None
    except BaseException:
        journal.close()
        raise
    return Table(game, journal, entries), outputs, journal
