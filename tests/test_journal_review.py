"""An independent reviewer's tests of the journal's held words, runs and revisions: each
reproduced a defect (an echo-only or post-undo revision, an answer said before it was on
disk, held words waiting 60 s, a suggestion lost in a revision, a close past a deadline)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROLES, day_table, run_async, spoken
from tests.fakes import FakeSpeaker
from voicehost.asr import Revision
from voicehost.errors import JournalError
from voicehost.game.events import parse_event
from voicehost.game.moderator import Moderator
from voicehost.game.protocol import snapshot
from voicehost.journal import replay_entries, resume_table
from voicehost.live import AudioClock, LiveTable
from voicehost.phrases.words import Word
from voicehost.rules import rules_for


def replays_as_played(path: Path, played: Moderator, *, trust_unkeyed: bool = False) -> None:
    game, _, _ = replay_entries(path, trust_unkeyed=trust_unkeyed)
    assert snapshot(game) == snapshot(played)


def test_an_utterance_of_the_tables_own_voice_leaves_a_journal_that_replays(tmp_path):
    """The table's own voice, taken from partials, is dropped as echo; its
    final result still comes as a Revision. With no mark, the live table
    replays from the start and journals a revise "from": 0 each time."""
    path = tmp_path / "j.jsonl"
    speaker = FakeSpeaker()
    live = day_table(path, speaker)
    t = live.game.now + 1.0
    first = spoken(t, "выставляю", "семь")
    live.hear(first)                                   # answered: written
    live.hear([Revision(first, spoken(t, "выставляю", "восемь"))])   # a revise line (from > 0)
    at = t + 5                                          # the table's voice, once
    speaker.echo.append((at - 0.1, at + 2))
    echo = spoken(at, "номер", "восемь")
    live.hear(echo)
    live.hear([Revision(echo, echo)])
    played = live.game
    live.close()
    replays_as_played(path, played)     # JournalError: ...:6: not a revision (its mark is not where it says)


def test_a_revision_after_an_undo_leaves_a_journal_that_replays(tmp_path):
    """Words heard, then the host undoes an input (the mark is dropped), then
    the utterance's final result arrives."""
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    t = live.game.now + 1.0
    first = spoken(t, "выставляю", "семь")
    live.hear(first)
    live.hear([Revision(first, spoken(t, "выставляю", "восемь"))])   # an earlier revise line
    live.apply(parse_event({"type": "foul", "seat": 3}))
    partial = spoken(t + 3, "я", "думаю")
    live.hear(partial)
    live.undo()                                         # takes back the foul
    live.hear([Revision(partial, spoken(t + 3, "я", "думаю", "так"))])
    played = live.game
    live.close()
    replays_as_played(path, played)


def test_an_answer_is_on_disk_before_the_speaker_is_asked_to_say_it(tmp_path, monkeypatch):
    """README: "whatever the table says or answers is on disk before it is
    said". A slow card (fsync 0.3 s): the speaker gets "Принят номер 7" while
    the words that made it are still on their way to the disk."""
    import os
    import time

    path = tmp_path / "j.jsonl"
    real_fsync = os.fsync
    synced = []

    def slow_fsync(fd: int) -> None:
        time.sleep(0.3)
        real_fsync(fd)
        synced.append(fd)

    class DiskCheckingSpeaker(FakeSpeaker):
        def say(self, text: str, *, private: bool = False, at: float | None = None) -> None:
            self.said.append(text)
            self.fsyncs_when_said = len(synced)

    speaker = DiskCheckingSpeaker()
    live = day_table(path, speaker)
    live.journal.sync()
    monkeypatch.setattr(os, "fsync", slow_fsync)
    live.journal.journal.fsync = True          # as the live loop's writer has it (fsync=True)
    t = live.game.now + 1.0
    said = live.hear(spoken(t, "выставляю", "семь"))
    assert [live.game.book.render(o) for o in said] == ["Принят номер 7"]
    live.journal.sync()
    assert len(synced) == 1                          # one write took the words
    assert speaker.fsyncs_when_said == 1, "said before its words were synced"
    live.close()


def test_a_resumed_version_3_journal_with_a_new_revision_still_replays(tmp_path):
    """A game journaled by the previous voicehost (version 3), resumed by this
    one: its new lines are version 4 (a revise with "from" and offsets), under
    a header that still says 3."""
    from voicehost.journal.lines import encode_line

    path = tmp_path / "v3.jsonl"
    rules = rules_for("4mafia", {"mafia_meet_seconds": 0.001, "don_seconds": 0.001, "sheriff_seconds": 0.001})
    entries = [
        {"journal": 3, "ruleset": rules.name, "rules": rules.to_json()},
        {"t": 0.0, "event": {"type": "setup", "roles": ROLES}},
        {"t": 30.0, "event": {"type": "tick"}},
    ]
    previous, data = "", b""
    for entry in entries:
        line, previous = encode_line(previous, entry)
        data += line
    path.write_bytes(data)
    table, _, journal = resume_table(path, fsync=False, trust_unkeyed=True)
    clock = AudioClock(30.0)
    live = LiveTable(table, clock)
    assert live.game.where() == "day 1, speech of seat 1"
    t = 31.0
    partial = spoken(t, "выставляю", "семь")
    live.hear(partial)
    live.hear([Revision(partial, spoken(t, "выставляю", "восемь"))])
    assert live.game.today == [8]
    played = live.game
    live.close()
    replays_as_played(path, played, trust_unkeyed=True)


def test_words_and_a_revision_heard_while_an_undo_rebuilds_replay_as_played(tmp_path, monkeypatch):
    import asyncio
    import threading

    import voicehost.live.table as live_table

    real = live_table.rebuild
    started, release = threading.Event(), threading.Event()

    def slow_rebuild(rules, kept):   # a rebuild that lasts until the test has said its words
        started.set()
        assert release.wait(10), "the test never let the rebuild finish"
        return real(rules, kept)

    monkeypatch.setattr(live_table, "rebuild", slow_rebuild)
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    t = live.game.now + 1.0
    held = spoken(t, "коллеги", "я")
    live.hear(held)                                      # held
    live.apply(parse_event({"type": "foul", "seat": 3}))
    partial = spoken(t + 2, "ну", "думаю")
    live.hear(partial)                                   # held again

    async def scenario():
        live.bind(asyncio.get_running_loop())
        undo = asyncio.create_task(live.undo_async())
        assert await asyncio.wait_for(asyncio.to_thread(started.wait, 5), 6)
        assert live.undoing
        live.hear(spoken(t + 4, "выставляю", "семь"))      # answered by the old game while rebuilding
        live.hear([Revision(partial, spoken(t + 2, "ну", "думаю", "пас"))])   # a revision during the undo
        release.set()
        await asyncio.wait_for(undo, 10)
        late = spoken(t + 8, "я")
        live.hear(late)
        live.hear([Revision(late, spoken(t + 8, "я", "спасибо"))])
        await live.synced()

    run_async(scenario())
    played = live.game
    live.close()
    replays_as_played(path, played)


def test_words_from_final_results_alone_are_written_within_group_seconds(tmp_path):
    """Commit a140933: "a crash loses at most GROUP_SECONDS of words nobody
    answered". Utterances whose words all came with the final result (nothing
    taken from partials: no Revision) are flushed only by tick() after
    3 * GROUP_SECONDS."""
    from voicehost.live.table import GROUP_SECONDS

    path = tmp_path / "j.jsonl"
    live = day_table(path, speech_seconds=120.0)
    t0 = live.game.now + 1.0
    for k in range(10):                                  # an utterance every 5 s, for 50 s
        live.hear(spoken(t0 + 5 * k, "я", "думаю"))
        live.clock.skip_to(t0 + 5 * k + 4)
        live.tick()
    live.journal.sync()
    on_disk = sum(len(json.loads(line).get("ws", [])) for line in path.read_text("utf-8").splitlines())
    assert live.game.now - t0 > 2 * GROUP_SECONDS
    assert on_disk > 0, "45 s of words, none on disk"
    live.close()


def test_a_forbidden_word_heard_only_in_the_final_result_is_suggested_to_the_host(tmp_path):
    """The partial heard "ну я", the final result "клянусь я": the game holds
    the 3.7.3 suggestion, but nothing is emitted (the page's suggestions come
    only from emitted outputs), because `correction` compares public SAYs only."""
    live = day_table(tmp_path / "j.jsonl")
    emitted = []
    live.listeners.append(emitted.extend)
    t = live.game.now + 1.0
    partial = spoken(t, "ну", "я")
    live.hear(partial)
    live.hear([Revision(partial, spoken(t, "клянусь", "я"))])
    assert live.game.outputs[-1].key == "3.7.3"
    assert [o.key for o in emitted] == ["3.7.3"]
    live.close()


def test_closing_right_after_a_word_that_ran_past_a_deadline_replays_as_closed(tmp_path):
    """A word's end moves the game clock past the floor's end without firing
    it; close() journals a last tick at that time, and the replay fires it."""
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    end = live.game.floor.end
    live.hear([Word("ну", end - 0.2, end + 0.3)])
    played = live.game
    assert played.where() == "day 1, speech of seat 1"
    live.close()
    replays_as_played(path, played)


def test_a_damaged_last_line_is_refused_not_cut_as_a_torn_write(tmp_path):
    """A crash tears a write before its newline; a whole last line with a
    check that does not parse was damaged, not torn. Here it is the run the
    table answered "Принят номер 7" on: it must not be cut as a crash's trace."""
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    t = live.game.now + 1.0
    assert live.hear(spoken(t, "коллеги", "выставляю", "семь"))
    live.journal.sync()
    live.journal.journal.close()                  # as a SIGKILL leaves it: no closing tick
    lines = path.read_bytes().split(b"\n")
    assert b'"ws"' in lines[-2]
    lines[-2] = lines[-2].replace(b'"ws":[', b'"ws":(', 1)
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=r"j\.jsonl:\d+: not a journal entry \(a damaged line"):
        replay_entries(path)
