"""The one journaled game (voicehost.journal.table.Table) as simulate, the live
table and the page hold it: the game object stays the same through undo and
revisions, and on the loop an answer waits for the disk while the loop does not."""
from __future__ import annotations

import asyncio
import os
import time

from tests.conftest import ROLES, day_table, spoken
from voicehost.asr import Revision
from voicehost.game.events import parse_event
from voicehost.game.moderator import Moderator
from voicehost.journal import Table
from voicehost.rules import rules_for


def test_the_game_the_page_holds_stays_the_game_through_undo_and_revisions(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    held = live.game                                  # as the hub, the page and the terminal hold it
    live.apply(parse_event({"type": "foul", "seat": 3}))
    assert held.fouls[3] == 1
    live.undo()                                       # rebuilt without the foul
    assert live.game is held and held.fouls[3] == 0
    t = held.now + 1.0
    partial = spoken(t, "выставляю", "семь")
    live.hear(partial)                                # the rebuilt speech's listener nominates into `held`
    assert held.today == [7]
    live.hear([Revision(partial, spoken(t, "выставляю", "восемь"))])   # replayed from the mark
    assert live.game is held and held.today == [8]
    live.close()


def test_an_undo_rebuilt_off_the_loop_leaves_the_held_game_valid(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    held = live.game
    live.apply(parse_event({"type": "foul", "seat": 2}))

    async def scenario():
        live.bind(asyncio.get_running_loop())
        undone = await asyncio.wait_for(live.undo_async(), 10)
        await asyncio.wait_for(live.synced(), 10)
        return undone

    assert asyncio.run(scenario()) == {"type": "foul", "seat": 2}
    assert live.game is held and held.fouls[2] == 0
    live.close()


def test_simulates_table_keeps_its_game_object_on_undo():
    game = Moderator.for_rules(rules_for("4mafia"))
    table = Table(game)
    table.apply(parse_event({"type": "setup", "roles": ROLES}), 0.0)
    table.apply(parse_event({"type": "foul", "seat": 4}), 1.0)
    assert table.undo(2.0) == {"type": "foul", "seat": 4}
    assert table.game is game and game.fouls[4] == 0 and game.now == 2.0
    assert [e.event["type"] for e in table.entries] == ["setup"]


def test_on_the_loop_an_answer_waits_for_its_fsync_and_the_loop_does_not(tmp_path, monkeypatch):
    real_fsync = os.fsync
    synced: list[int] = []

    def slow_fsync(fd: int) -> None:
        time.sleep(1.0)
        real_fsync(fd)
        synced.append(fd)

    class SyncCountingSpeaker:   # says what it was asked, with how many fsyncs had finished
        def __init__(self) -> None:
            self.said: list[tuple[str, int]] = []

        def say(self, text: str, *, private: bool = False, at: float | None = None) -> None:
            self.said.append((text, len(synced)))

        def is_echo(self, start: float, end: float) -> bool:
            return False

    speaker = SyncCountingSpeaker()
    live = day_table(tmp_path / "j.jsonl", speaker)
    live.journal.sync()
    speaker.said.clear()
    monkeypatch.setattr(os, "fsync", slow_fsync)
    live.journal.journal.fsync = True

    async def scenario():
        live.bind(asyncio.get_running_loop())
        begun = time.monotonic()
        said = live.hear(spoken(live.game.now + 1.0, "выставляю", "семь"))
        took = time.monotonic() - begun
        assert [live.game.book.render(o) for o in said] == ["Принят номер 7"]
        assert synced == [] and took < 0.9            # the loop did not wait for the fsync
        assert speaker.said == []                     # and nothing was said before the disk
        await asyncio.wait_for(live.synced(), 10)

    asyncio.run(scenario())
    assert speaker.said == [("Принят номер 7", 1)]    # said once its words were synced
    live.close()
