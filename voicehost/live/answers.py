"""What the live table says, in the order it happened, each answer only once
the inputs that made it are on disk ("whatever the table answers is on disk
before it is said"). On the owner's loop an answer waits for the writer
thread and the loop goes on (it never waits on an fsync); on any other thread
(tools, tests) the caller waits. A card slower than `DISK_SECONDS`: the answer
is said anyway, the writer goes on. An answer whose input the journal lost is
never said: the table has stopped, and says why."""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable

from voicehost.game.model import Output
from voicehost.live.writer import JournalWriter

log = logging.getLogger(__name__)

DISK_SECONDS = 5.0
Tell = Callable[[list[Output], bool], None]


class Answers:
    """`tell(outputs, changed)` says and shows; `recorded()` says whether the
    journal still stands (and lets the table hear of a failure first)."""

    def __init__(self, writer: JournalWriter | None, tell: Tell, recorded: Callable[[], bool]) -> None:
        self.writer = writer
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tell = tell
        self._recorded = recorded
        self._waiting: deque[tuple[int | None, list[Output], bool]] = deque()  # (answer number | None, ...)
        self._count = 0
        self._timers: dict[int, asyncio.TimerHandle] = {}

    def answer(self, outputs: list[Output], *, changed: bool = False) -> None:
        """Outputs made by inputs just handed to the writer."""
        writer, loop = self.writer, self.loop
        if not outputs or writer is None:
            self.emit(outputs, changed=changed)
        elif loop is not None and self._on_loop():
            self._count += 1
            number = self._count
            self._waiting.append((number, outputs, changed))

            def written() -> None:   # on the writer's thread
                with contextlib.suppress(RuntimeError):   # the loop closed: nobody left to tell
                    loop.call_soon_threadsafe(self._release, number)
            writer.then(written)
            self._timers[number] = loop.call_later(DISK_SECONDS, self._release, number, True)
        elif self._on_disk():
            self.emit(outputs, changed=changed)

    def emit(self, outputs: list[Output], *, changed: bool = False) -> None:
        """Outputs that wait for no write (a timer's, an undo's): said now, or
        after the answers still on their way to the disk."""
        if self._waiting and not self._on_loop():   # the loop is gone: what waited is said now
            self._on_disk()
            self._release(self._count)
        if self._waiting:
            self._waiting.append((None, outputs, changed))
        else:
            self._tell(outputs, changed)

    def _on_loop(self) -> bool:
        try:
            return self.loop is not None and asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def _release(self, number: int, late: bool = False) -> None:
        """The answers up to `number` are written (or took too long): said in order."""
        if late and self._waiting and (self._waiting[0][0] or 0) <= number:
            log.warning("journal %s: a write takes over %s s", self.writer and self.writer.path, DISK_SECONDS)
        recorded = self._recorded()
        while self._waiting and (self._waiting[0][0] or 0) <= number:
            answer, outputs, changed = self._waiting.popleft()
            timer = self._timers.pop(answer, None) if answer else None
            if timer is not None:
                timer.cancel()
            if answer is None or recorded:
                self._tell(outputs, changed)

    def _on_disk(self) -> bool:
        """Wait (an fsync: milliseconds) until what was handed to the writer is
        on disk; False when it could not be written."""
        if self.writer is not None:
            try:
                self.writer.sync(timeout=DISK_SECONDS)
            except TimeoutError:   # a card this slow: say it anyway, the writer goes on
                log.warning("journal %s: a write takes over %s s", self.writer.path, DISK_SECONDS)
        return self._recorded()
