"""The page server of a club's whole evening (`voicehost run --serve|--lan
--series NAME`): the server, started with the evening's first game, adds the
series' routes (web/series.py) and is switched to each next game."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from voicehost.game.model import Output
from voicehost.live import LiveTable
from voicehost.live.evening import Evening
from voicehost.web.hub import HUB
from voicehost.web.series import SeriesDesk, fresh_evening, switch_table
from voicehost.web.server import PageServer, start_server

if TYPE_CHECKING:
    from voicehost.config import Config


class EveningPage:
    """The page server of a whole evening: started with its first game, switched to
    each next one, stopped when the evening ends. Its devices and certificate are
    the series' (EVENING_FILE), so a crash and `run --series` again keep the phones."""

    def __init__(self, evening: Evening, config: Config, *, lan: bool, port: int | None, out: TextIO,
                 lines: asyncio.Queue[str | None], qr: bool = True) -> None:
        self.desk = SeriesDesk(evening, next_game=lambda: lines.put_nowait("/new"))
        self.config, self.lan, self.port, self.out, self.qr = config, lan, port, out, qr
        self.server: PageServer | None = None

    async def attach(self, live: LiveTable, refile: Callable[[], object]) -> PageServer:
        self.desk.refile = refile
        live.listeners.append(self._undo_watch(live, refile))
        if self.server is None:
            fresh_evening(self.desk.keep, time.time())
            self.server = await start_server(live, self.config, lan=self.lan, port=self.port, out=self.out,
                                             desk=self.desk, qr=self.qr)
        else:
            switch_table(self.server.runner.app[HUB], live)
        return self.server

    @staticmethod
    def _undo_watch(live: LiveTable, refile: Callable[[], object]) -> Callable[[list[Output]], None]:
        """An undo after the end (a protest taken back, from the page or typed): the
        series holds the game again as it now stands."""
        loop = asyncio.get_running_loop()

        def heard(outputs: list[Output]) -> None:
            if live.over and any(o.key == "undone" for o in outputs):
                loop.call_soon_threadsafe(refile)
        return heard

    async def close(self) -> None:
        if self.server is not None:
            await self.server.cleanup()
            self.server = None


__all__ = ["EveningPage"]
