"""The live table: the one owner of a game played live.

Names, once: the *moderator* (voicehost.game) applies the rules; the *journal*
(voicehost.journal) is the file every accepted input goes to, and its `Table`
the journaled game (one apply, one undo, one rebuild); the `LiveTable` here
wraps that game as it is played at this table: on a clock, with a writer
thread (live/writer.py), a speaker, revisions, and the page and the terminal
listening. `live.game` is one object for the whole game, undo and revisions
included.

Every change happens on the owner's thread: the asyncio loop in a live game
(the input pipeline, live/pipeline.py, runs the recognizer in an executor and
hears its words on the loop), or the caller's own thread in tests and tools.
Whatever the table answers is on disk before it is said (answers.py; the
loop never waits on an fsync). When the journal cannot be written, the table
says so once, loudly (and aloud), and takes no more inputs (notices.py).

Words are heard as the rules hear them (live/hearing.py owns the echo guard
and `heard_as`): a word the speech rules have no use for is "[unk]" (what the
grammar recognizer gives for it anyway), and times are kept to the centisecond. Nothing of a speech but the words the
rules know is kept on disk, and the journal stays small: a heard word that
changed nothing said, and a timer's clock mark (a deadline, fired again on a
resume), are held and written with the next write: an answer, a host input,
the end of an utterance once `GROUP_SECONDS` passed (or a quiet speaker), a
sync."""
from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.asr import Revision
from voicehost.errors import GameError
from voicehost.game.events import Event, Heard, Setup, parse_event
from voicehost.game.model import Output, OutputKind, Phase
from voicehost.game.moderator import Moderator, new_game
from voicehost.journal import Journal, Table, dealt, rebuild, resume_table
from voicehost.journal.lines import TICK, Entry
from voicehost.journal.revision import Mark, find_places, mark, revise_json
from voicehost.jsontypes import JSONObject
from voicehost.live.answers import Answers
from voicehost.live.clock import Clock
from voicehost.live.hearing import Hearing
from voicehost.live.notices import Notices, TableStopped
from voicehost.live.seats import Voices
from voicehost.live.telling import Listener, Teller
from voicehost.live.texts import live_texts
from voicehost.live.writer import JournalWriter, new_writer
from voicehost.phrases.words import Word
from voicehost.rules import RuleOptions

if TYPE_CHECKING:
    from voicehost.live.playback import Speaker

log = logging.getLogger(__name__)

# A heard word that changed nothing said waits at most this long (game time)
# to be written: a crash loses at most these seconds of words nobody answered.
GROUP_SECONDS = 20.0
# No word for this long: the utterance ended and its final result came, so
# held words can be written without splitting an utterance from its revision.
QUIET_SECONDS = 2.0
# Inputs of the night: an undo of one is said in the host's earpiece only, so
# the table never hears whom the mafia shot or a role checked.
NIGHT_INPUTS = frozenset({"shot", "don_check", "sheriff_check", "heal", "visit", "commissar_check",
                          "maniac_kill"})


def on_grid(t: float) -> float:
    """A game time on the journal's centisecond grid, never before `t`."""
    return math.ceil(round(t * 100, 6)) / 100


class LiveTable(Notices):
    def __init__(self, game: Moderator | Table, clock: Clock, speaker: Speaker | None = None, *,
                 journal: JournalWriter | None = None, entries: list[Entry] | None = None,
                 lag: float = 0.0) -> None:
        if isinstance(game, Table):  # a moderator with its journal, as simulate keeps them
            if game.journal is not None and journal is None:
                assert isinstance(game.journal, Journal)
                journal = JournalWriter(game.journal.path, game.game.rules, journal=game.journal)
            entries = game.entries if entries is None else entries
            game = game.game
        self.journaled = Table(game, journal, entries)   # the one game, its inputs, its journal
        self.clock = clock
        self.teller = Teller(speaker, lambda: self.game.book)   # says and shows what the table answers
        self.lag = lag
        self.journal = journal
        self.listeners: list[Listener] = self.teller.listeners
        # Every word the captions recognizer heard (`[asr] captions`), in game
        # time, None once it failed; set by whoever runs the microphone, read
        # by the page's captions.
        self.open_captions: Callable[[], list[Word] | None] | None = None
        # Between the recognizer and the game: the echo guard, words as the rules hear them, times rounded
        self.hearing = Hearing(lambda text: self.game.grammar.reacts_to(text),
                               lambda start, end: self.speaker is not None and self.speaker.is_echo(start, end))
        self.undoing = False
        self.speaking: frozenset[int] = frozenset()   # seats whose own channel hears voice now (SPEC §7.1)
        self.channels_notice: str | None = None
        # The game before the first word taken from partial results since the
        # last revision: a `Revision` replays from here (voicehost.journal.revision).
        self._mark: Mark | None = None
        self._answers = Answers(journal, self.teller, self._recorded)   # said once on disk, in order
        self.texts = live_texts(game.rules.phrasebook)
        # The page reads the game under this lock; only in-memory changes are
        # made under it (never a journal write), and all on the owner's thread.
        self.lock = threading.RLock()
        self.loop: asyncio.AbstractEventLoop | None = None
        super().__init__()

    # ------------------------------------------------------------ reading

    @property
    def speaker(self) -> Speaker | None:
        """The table's speaker (the teller's): also the echo guard's."""
        return self.teller.speaker

    @speaker.setter
    def speaker(self, speaker: Speaker | None) -> None:
        self.teller.speaker = speaker

    @property
    def game(self) -> Moderator:
        """The game: the same object from the deal to the end, undo and revisions included."""
        return self.journaled.game

    @property
    def entries(self) -> list[Entry]:
        """The accepted inputs (and clock marks), as the journal replays them."""
        return self.journaled.entries

    @property
    def over(self) -> bool:
        return self.game.phase is Phase.GAME_OVER

    def game_now(self) -> float:
        return max(self.game.now, on_grid(self.clock.now() - self.lag))

    @property
    def echoes(self) -> int:
        """Words dropped as the table's own voice."""
        return self.hearing.echoes

    # ------------------------------------------------------------ inputs

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop that owns the table from now on (the live game's)."""
        self.loop = self._answers.loop = loop

    def apply(self, event: Event, heard: Sequence[str] = ()) -> list[Output]:
        """A host or player input (`heard`: the host's spoken words that made
        it, journaled with it). Timers already due are said first, so an
        input that is refused (it raises, and changes nothing) never swallows
        an announcement."""
        self._check_open()
        if self.undoing and not isinstance(event, Heard):
            raise self._refusal(GameError, "undo_busy")
        if self.game.phase is Phase.SETUP:  # the game's time starts at the deal
            if isinstance(event, Setup):
                self.clock.restart(self.game.now + self.lag)
            return self._input(event, self.game.now, heard)
        return self._input(event, self.game_now(), heard)

    def _input(self, event: Event, now: float, heard: Sequence[str] = ()) -> list[Output]:
        self.tick_to(now)
        with self.lock:
            outputs = self.journaled.apply(event, now, heard=heard)
        self._answers.answer(outputs)
        return outputs

    def apply_json(self, data: object) -> list[Output]:
        return self.apply(parse_event(data, self.game.max_seat))

    def hear(self, words: Iterable[Word | Revision]) -> list[Output]:
        """Recognized words with game-clock times; the table's own voice is dropped.
        A `Revision` (the final result of words taken from partials) replays
        them with exact times, and says a correction when a decision changed."""
        outputs: list[Output] = []
        self._check_journal()
        for word in words:
            if self.game.phase is Phase.SETUP:
                break  # nothing is judged before the deal, and nothing is journaled
            if isinstance(word, Revision):
                if self.failure is not None:
                    break
                outputs += self._revise(word)
                continue
            taken = self.hearing.word(word)
            if taken is None:
                continue
            if self.failure is not None:
                break
            word = taken
            if self._mark is None:
                self._mark = mark(self.game, self.entries)
            outputs += self._hear(Heard(word), max(self.game.now, word.start))
        return outputs

    def _hear(self, heard: Heard, now: float) -> list[Output]:
        """A word: journaled at once when it made the table say something,
        else held (a crash loses it, and nobody heard it count)."""
        self.tick_to(now)
        with self.lock:
            outputs = self.journaled.apply(heard, now, hold=True)
            if outputs:
                self.flush()   # in the same run as the words before it
        self._answers.answer(outputs)
        return outputs

    def _revise(self, change: Revision) -> list[Output]:
        """The final result replaces the words taken from partials: the game is
        replayed from the mark with the final words and times, so every timing
        rule is judged on exact times (SPEC's 10 s and 1.5 s rules stay exact).
        The journal keeps the provisional words and a `revise` entry."""
        if self.undoing:  # an undo is rebuilding from these entries: only the words not yet heard count
            log.info("revision while undoing: only its new words are heard")
            return self.hear(change.new[len(change.old):])
        old, heard = self.hearing.revision(change)
        now = self.game_now()
        self.tick_to(now)
        with self.lock:
            start = self._mark.index if self._mark is not None else 0
            places = find_places(self.entries, start, old)
        if self._mark is None and not places:
            # none of its provisional words reached the game (the table's own
            # voice): the final words are simply heard, no replay from the deal
            return self.hear(heard)
        writer = self.journal
        with self.lock:
            since = len(self.entries) - start
            # Nothing said changed and every input since the mark is a word still
            # held: the journal gets the final words instead, as if heard so.
            absorbed = self._mark is not None and writer is not None and writer.held >= since
            outputs = self.journaled.revise(self._mark, places, heard, now)
            self._mark = None
            if writer is not None and absorbed and not outputs:
                writer.replace_held(since, self.entries[start:])
                if writer.held_since is not None and self.game.now - writer.held_since >= GROUP_SECONDS:
                    self.flush()  # at the end of an utterance, so the next one can still be replaced
            elif writer is not None:
                writer.write_entry(self.game.now, revise_json(start, places, heard))
        self._answers.answer(outputs, changed=True)
        return outputs

    def tick(self) -> list[Output]:
        """What the clock alone makes happen by now; held words long enough unwritten are written."""
        if self.failure is not None or self.game.phase is Phase.SETUP:
            return []
        outputs = self.tick_to(on_grid(self.clock.now() - self.lag))
        since = self.journal.held_since if self.journal is not None else None
        if since is not None and self.game.now - since >= GROUP_SECONDS and self.entries:
            quiet = self.game.now - self.entries[-1].t >= QUIET_SECONDS   # no utterance going on
            if quiet or self.game.now - since >= 3 * GROUP_SECONDS:
                self.flush()
        return outputs

    def tick_to(self, now: float) -> list[Output]:
        with self.lock:
            # held like words: a timer is a deadline, a resumed game fires it again
            outputs = self.journaled.advance(now, hold=True)
        self._emit(outputs)
        return outputs

    def skip(self, seconds: float) -> list[Output]:
        """Let `seconds` of silence pass at once (typed mode); journaled, so a
        resumed game stands where the typed silence left it."""
        self._check_open()
        self.clock.skip_to(self.game_now() + self.lag + seconds)
        outputs = self.tick()
        if not outputs and self.game.phase is not Phase.SETUP:
            with self.lock:
                self.game.advance(on_grid(self.clock.now() - self.lag))
                self.journaled.record(self.game.now, TICK)
        return outputs

    def restore(self) -> list[Output]:
        """A game back after a crash: the table hears so, and the game stands
        paused (journaled) until the host resumes it, so no clock runs on
        while players sit down again; an interrupted count starts again then."""
        self._check_open()
        stopped = self.game.paused_at is not None   # left paused (a /quit), not broken off by a crash
        outputs = [Output(self.game_now(), OutputKind.SAY, "restored_paused" if stopped else "restored")]
        self._emit(outputs)
        if self.game.phase not in (Phase.SETUP, Phase.GAME_OVER) and self.game.paused_at is None:
            outputs += self.apply_json({"type": "pause"})
        return outputs

    def seats_heard(self, voices: Voices) -> None:
        """The seats' channels as the pipeline last heard them: who is speaking
        (the board's indicator), and, once, the mapped channels that heard
        nothing until the first floor (a lavalier left off, a cable out)."""
        if voices.speaking != self.speaking:
            self.speaking = voices.speaking
            self._emit([], changed=True)
        if not voices.told_silent and self.game.floor is not None:
            voices.told_silent = True
            silent = sorted(set(voices.seats) - voices.heard)
            if silent:
                self.channels_notice = self.texts.text("channels_silent", seats=", ".join(map(str, silent)))
                log.warning("mapped channels silent until the first floor: seats %s", silent)
                self.notice(self.channels_notice)

    # ------------------------------------------------------------ undo

    def undo(self, heard: Sequence[str] = ()) -> JSONObject:
        """Take back the last host input, rebuilding on this thread (tools, tests)."""
        kept = self._undo_plan()
        return self._undo_finish(rebuild(self.game.rules, kept), len(self.entries), heard)

    async def undo_async(self, heard: Sequence[str] = ()) -> JSONObject:
        """Take back the last host input; the game is rebuilt off the loop while
        words go on being heard (host inputs wait for it)."""
        kept = self._undo_plan()
        mark = len(self.entries)
        self.undoing = True
        try:
            loop = asyncio.get_running_loop()
            rebuilt = await loop.run_in_executor(None, rebuild, self.game.rules, kept)
        finally:
            self.undoing = False
        return self._undo_finish(rebuilt, mark, heard)   # with the words heard while rebuilding

    def _undo_plan(self) -> list[Entry]:
        self._check_open()
        if self.undoing:  # one undo at a time: two would take back the same input twice
            raise self._refusal(GameError, "undo_busy")
        kept = self.journaled.undo_plan()
        if kept is None:   # the seating and the deal are not the game's to take back
            raise self._refusal(GameError, "nothing_to_undo_dealt" if dealt(self.entries) else "nothing_to_undo")
        return kept

    def _undo_finish(self, rebuilt: Moderator, mark: int, heard: Sequence[str] = ()) -> JSONObject:
        with self.lock:
            undone = self.journaled.finish_undo(rebuilt, mark, self.game_now(), heard)
            self._mark = None
        assert undone is not None
        said = Output(self.game.now, OutputKind.SAY, "undone", undone.get("type") in NIGHT_INPUTS,
                      {"detail": self.texts.input(undone)})   # "Отмена: фол игроку 3" (a night input privately)
        self._emit([said], changed=True)
        return undone

    # ------------------------------------------------------------ the disk

    def flush(self) -> None:
        """Write the held words now."""
        if self.journal is not None and self.journal.held:
            self.journal.flush()

    def sync(self) -> None:
        self.flush()
        if self.journal is not None:
            self.journal.sync()
        self._check_journal()

    async def synced(self) -> None:
        """Until every accepted input (held words too) is on disk, and said; raises if the journal failed."""
        self.flush()
        if self.journal is not None:
            await self.journal.synced()
        self._check_journal()

    def close(self) -> None:
        """The game stops here (quit, end, Ctrl-C): the clock's last mark is journaled."""
        if self.journal is None:
            return
        if self.failure is None and self.journal.started and self.entries and \
                self.game.now > self.entries[-1].t:
            # a word that ended past a deadline moved the clock without firing
            # it: the replay of this last mark fires it, so the game does too
            self.game.advance(self.game.now)
            self.journal.write_entry(self.game.now, TICK)
        self.journal.close()
        self._check_journal()

    # ------------------------------------------------------------ output

    def tell(self, outputs: list[Output]) -> None:
        """Say and show what no input made (a host command said back, its refusal)."""
        self._emit(outputs)

    def _emit(self, outputs: list[Output], *, changed: bool = False) -> None:
        self._answers.emit(outputs, changed=changed)

    def _recorded(self) -> bool:
        self._check_journal()
        return self.failure is None



def open_table(rules: RuleOptions, journal: Path, *, resume: bool,
               trust_unkeyed: bool = False) -> tuple[Moderator, JournalWriter, list[Entry], list[Output]]:
    """A new game to be journaled to `journal` (created at the deal), or the
    game a journal holds, ready to go on (an unkeyed one only with `trust_unkeyed`)."""
    if resume:  # the journal is locked before it is read: a second table is refused
        table, outputs, opened = resume_table(journal, trust_unkeyed=trust_unkeyed)
        return table.game, JournalWriter(journal, table.game.rules, journal=opened), table.entries, outputs
    return new_game(rules), new_writer(rules, journal), [], []


__all__ = ["JournalWriter", "LiveTable", "TableStopped", "open_table"]  # JournalWriter: the benches import it here
