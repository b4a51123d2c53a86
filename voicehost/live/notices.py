"""What the live table tells when its journal fails or is written anew: once,
loudly, aloud, on the page and on the terminal. A failure stops the table:
every input is refused from then on (`TableStopped`, in the table's words)."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.errors import GameError
from voicehost.game.model import Output
from voicehost.game.moderator import Moderator
from voicehost.live.texts import LiveTexts
from voicehost.live.writer import JournalWriter

if TYPE_CHECKING:
    from voicehost.live.playback import Speaker

log = logging.getLogger(__name__)


class TableStopped(GameError):
    """The journal could not be written: the table takes no more inputs
    (a GameError, so the page answers it as a refusal, never a 500)."""


class Notices:
    """The live table's side of its journal's failures and moves (a part of `LiveTable`)."""

    journal: JournalWriter | None
    texts: LiveTexts
    speaker: Speaker | None
    loop: asyncio.AbstractEventLoop | None

    def __init__(self) -> None:
        self.alarms: list[Callable[[str], None]] = []  # the loud lines: journal failure
        self.notices: list[Callable[[str], None]] = []  # the journal written anew: the game goes on
        self.journal_notice: str | None = None   # the last of them, for the page
        self.failure: str | None = None
        self._moves_told = 0
        if self.journal is not None:
            self.journal.on_failure = self._journal_failed_elsewhere

    @property
    def game(self) -> Moderator:
        raise NotImplementedError

    @property
    def journal_path(self) -> Path | None:
        return self.journal.path if self.journal else None

    def _emit(self, outputs: list[Output], *, changed: bool = False) -> None:
        raise NotImplementedError

    def _check_journal(self) -> None:
        if self.journal is not None and len(self.journal.moves) > self._moves_told:
            self._journal_moved()
        if self.journal is not None and self.journal.failed is not None and self.failure is None:
            self._journal_failed(self.journal.failed)

    def _journal_moved(self) -> None:
        """Said aloud, on the page and on the terminal: the journal is whole again, where it says."""
        assert self.journal is not None
        old, new = self.journal.moves[-1]
        self._moves_told = len(self.journal.moves)
        self.journal_notice = self.texts.text("journal_rewritten", path=new) if old == new else \
            self.texts.text("journal_moved", old=old, path=new)
        if self.speaker is not None:
            self.speaker.say(self.texts.text("journal_rewritten_say"), at=self.game.now)
        for notice in list(self.notices):
            try:
                notice(self.journal_notice)
            except Exception:  # a listener must not hide the notice from the others
                log.exception("notice listener failed")
        self._emit([], changed=True)

    def notice(self, text: str) -> None:
        """A line for the host, on the terminal and the page; the game goes on."""
        for notice in list(self.notices):
            try:
                notice(text)
            except Exception:  # a listener must not hide the notice from the others
                log.exception("notice listener failed")
        self._emit([], changed=True)

    def _check_open(self) -> None:
        self._check_journal()
        if self.failure is not None:
            raise self._refusal(TableStopped, "stopped")

    def _refusal(self, kind: type[GameError], key: str) -> GameError:
        """A refusal in the table's language; the phase is kept for the logs."""
        error = kind(self.texts.text(key))
        error.phase = self.game.where()
        return error

    def _journal_failed_elsewhere(self, exc: BaseException) -> None:
        """Called on the writer thread; the owner hears of it on its own thread."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._journal_failed, exc)

    def _journal_failed(self, exc: BaseException) -> None:
        if self.failure is not None:
            return
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        self.failure = self.texts.text("journal_failed", path=self.journal_path, why=why)
        log.error("%s", self.failure)
        if self.speaker is not None:
            self.speaker.say(self.texts.text("journal_failed_say"), at=self.game.now)
        for alarm in list(self.alarms):
            try:
                alarm(self.failure)
            except Exception:  # an alarm listener must not hide the alarm from the others
                log.exception("alarm listener failed")
        self._emit([], changed=True)
