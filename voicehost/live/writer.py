"""The live table's journal writer: entries written, with their fsync, in
order on one thread of its own, so a slow card never holds up the game or the
page. The journal file is created with the first entry, so a session quit
before the deal leaves nothing behind.

It keeps, on the owner's thread, what is held and not yet written (`held`,
`held_since`): heard words that changed nothing said, and clock marks, go to
the disk with the next write."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from voicehost import errors
from voicehost.errors import VoicehostError
from voicehost.journal import Journal
from voicehost.journal.lines import Entry
from voicehost.journal.writer import check_new
from voicehost.jsontypes import JSONObject
from voicehost.rules import RuleOptions

log = logging.getLogger(__name__)


class JournalWriter:
    """Writes journal entries in order on one thread of its own."""

    def __init__(self, path: Path, rules: RuleOptions, *, journal: Journal | None = None) -> None:
        self.path = path
        self.rules = rules
        self.journal = journal  # an open journal (a resumed game), else created with the first entry
        self.failed: BaseException | None = None
        self.on_failure: Callable[[BaseException], None] = lambda exc: None
        self.moves: list[tuple[Path, Path]] = []   # the journal written anew: (where it was, where it is)
        self.held = 0                       # entries handed over to be held, not yet written
        self.held_since: float | None = None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="journal")
        self._last: Future[None] | None = None

    @property
    def started(self) -> bool:
        return self.journal is not None or self._last is not None

    def write_entry(self, t: float, event: JSONObject) -> None:
        """An entry written (with the held words before it) and synced."""
        self._submit(lambda journal: journal.write_entry(t, event))
        self._written()

    def hold(self, t: float, event: JSONObject) -> None:
        """A heard word that changed nothing said, or a clock mark: written with the next write."""
        self._submit(lambda journal: journal.hold(t, event))
        self.held += 1
        self.held_since = t if self.held_since is None else self.held_since

    def replace_held(self, count: int, entries: list[Entry]) -> None:
        """The last `count` held entries give way to `entries` (an utterance's final result)."""
        self._submit(lambda journal: journal.replace_held(count, entries))
        self.held += len(entries) - count

    def flush(self) -> None:
        """Write the held entries now."""
        self._submit(lambda journal: journal.flush())
        self._written()

    def then(self, step: Callable[[], None]) -> None:
        """`step` run on the writer's thread once everything handed over so far is written (or failed)."""
        self._last = self._pool.submit(step)

    def _written(self) -> None:
        self.held, self.held_since = 0, None   # a write takes the held entries with it

    def _submit(self, step: Callable[[Journal], None]) -> None:
        if self.failed is None:
            self._last = self._pool.submit(self._run, step)

    def _run(self, step: Callable[[Journal], None]) -> None:
        if self.failed is not None:
            return
        try:
            if self.journal is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.journal = Journal(self.path, self.rules, fsync=True)
            moved = len(self.journal.moved)
            try:
                step(self.journal)
            finally:
                if len(self.journal.moved) > moved:   # deleted or moved away: written anew, the game goes on
                    self.moves += self.journal.moved[moved:]
                    self.path = self.journal.path
                    log.warning("journal %s was deleted or moved away: written anew at %s",
                                *self.journal.moved[-1])
        except Exception as exc:  # whatever it was, the game is no longer recorded: stop
            log.error("journal %s: write failed: %s", self.path, exc)
            self.failed = exc
            self.on_failure(exc)

    def sync(self, timeout: float | None = 30.0) -> None:
        """Until every entry handed over so far is written (or failed)."""
        if self._last is not None:
            self._last.result(timeout)

    async def synced(self) -> None:
        if self._last is not None:
            await asyncio.wrap_future(self._last)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        if self.journal is not None:
            try:
                self.journal.close()
            except (OSError, ValueError, errors.JournalWriteError) as exc:
                log.error("journal %s: close failed: %s", self.path, exc)


def new_writer(rules: RuleOptions, journal: Path) -> JournalWriter:
    """A new game to be journaled to `journal`, created at the deal."""
    check_new(journal)   # now, not at the deal: another game's journal (and protocol) stay as they are
    try:  # the folder now (the page keeps its paired devices there); the file at the deal
        journal.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VoicehostError(f"cannot make the journal folder {journal.parent}: {exc.strerror or exc}") from None
    return JournalWriter(journal, rules)
