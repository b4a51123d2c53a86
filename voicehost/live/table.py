"""The live table: the one owner of a game played live.

Names, once: the *moderator* (voicehost.game) applies the rules; the *journal*
(voicehost.journal) is the file every accepted input goes to; the `LiveTable`
here is the game as it is played at this table, on a clock, with a speaker
and the page and the terminal listening.

Every change happens on the owner's thread: the asyncio loop in a live game
(the microphone thread posts its words with `post_words`, which uses
`loop.call_soon_threadsafe`), or the caller's own thread in tests and tools.
Journal entries are written, with their fsync, in order on a writer thread,
so a slow card never holds up the game or the page; `synced()` waits until
what was accepted is on disk. When the journal cannot be written, the table
says so once, loudly (and aloud), and takes no more inputs.

Words are heard as the rules hear them (`heard_as`): a word the speech rules
have no use for is "[unk]" (what the grammar recognizer gives for it anyway),
and times are kept to the centisecond. Nothing of a speech but the words the
rules know is kept on disk, and the journal stays small: a heard word that
changed nothing said, and a timer's clock mark (a deadline, fired again on a
resume), are held and written with the next write: an answer, a host input,
the end of an utterance once `GROUP_SECONDS` passed (or a quiet speaker), a
sync. Whatever the table answers is on disk before it is said (`_on_disk`)."""
from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from voicehost import errors, revision
from voicehost.asr import Revision
from voicehost.errors import GameError, VoicehostError
from voicehost.game.events import Event, Heard, Setup, event_to_json, parse_event
from voicehost.game.model import Output, OutputKind, Phase
from voicehost.game.moderator import Moderator, new_game
from voicehost.journal import Journal, Table, last_host_input, rebuild, resume_table
from voicehost.journal.lines import UNK
from voicehost.journal.writer import check_new
from voicehost.live.clock import AudioClock, Clock, GameClock
from voicehost.live.texts import live_texts, rendered
from voicehost.phrases.words import Word
from voicehost.rules import RuleOptions

log = logging.getLogger(__name__)

Listener = Callable[[list[Output]], None]
Entry = tuple[float, dict[str, Any]]
TICK: dict[str, Any] = {"type": "tick"}
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


class TableStopped(GameError):
    """The journal could not be written: the table takes no more inputs
    (a GameError, so the page answers it as a refusal, never a 500)."""


class JournalWriter:
    """Writes journal entries in order on one thread of its own. The journal
    file is created with the first entry, so a session quit before the deal
    leaves nothing behind."""

    def __init__(self, path: Path, rules: RuleOptions, *, journal: Journal | None = None) -> None:
        self.path = path
        self.rules = rules
        self.journal = journal  # an open journal (a resumed game), else created with the first entry
        self.failed: BaseException | None = None
        self.on_failure: Callable[[BaseException], None] = lambda exc: None
        self.moves: list[tuple[Path, Path]] = []   # the journal written anew: (where it was, where it is)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="journal")
        self._last: Future[None] | None = None

    @property
    def started(self) -> bool:
        return self.journal is not None or self._last is not None

    def write(self, t: float, event: dict[str, Any]) -> None:
        """An entry written (with the held words before it) and synced."""
        self._submit(lambda journal: journal.write_entry(t, event))

    def hold(self, t: float, event: dict[str, Any]) -> None:
        """A heard word that changed nothing said, or a clock mark: written with the next write."""
        self._submit(lambda journal: journal.hold(t, event))

    def replace_held(self, count: int, entries: list[Entry]) -> None:
        self._submit(lambda journal: journal.replace_held(count, entries))

    def flush(self) -> None:
        self._submit(lambda journal: journal.flush())

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


class LiveTable:
    def __init__(self, game: Moderator | Table, clock: Clock, speaker: Any = None, *,
                 journal: JournalWriter | None = None, entries: list[Entry] | None = None,
                 lag: float = 0.0) -> None:
        if isinstance(game, Table):  # a moderator with its journal, as simulate keeps them
            if game.journal is not None and journal is None:
                journal = JournalWriter(game.journal.path, game.game.rules, journal=game.journal)
            entries = game.entries if entries is None else entries
            game = game.game
        self.game = game
        self.clock = clock
        self.speaker = speaker
        self.lag = lag
        self.journal = journal
        self.entries: list[Entry] = entries if entries is not None else []
        self.listeners: list[Listener] = []
        self.alarms: list[Callable[[str], None]] = []  # the loud lines: journal failure
        self.notices: list[Callable[[str], None]] = []  # the journal written anew: the game goes on
        self.journal_notice: str | None = None   # the last of them, for the page
        self._moves_told = 0
        self.failure: str | None = None
        self.echoes = 0
        self.undoing = False
        # The game before the first word taken from partial results since the
        # last revision: a `Revision` replays from here (voicehost.revision).
        self._mark: revision.Mark | None = None
        self._held = 0                       # entries at the end of `entries` the journal holds, unwritten
        self._held_since: float | None = None
        self.texts = live_texts(game.rules.phrasebook)
        # The page reads the game under this lock; only in-memory changes are
        # made under it (never a journal write), and all on the owner's thread.
        self.lock = threading.RLock()
        self.loop: asyncio.AbstractEventLoop | None = None
        if journal is not None:
            journal.on_failure = self._journal_failed_elsewhere

    # ------------------------------------------------------------ reading

    @property
    def journal_path(self) -> Path | None:
        return self.journal.path if self.journal else None

    @property
    def table(self) -> LiveTable:
        """The page's older way to the accepted inputs (`live.table.entries`);
        `live.entries` is the one name now."""
        return self

    @property
    def over(self) -> bool:
        return self.game.phase is Phase.GAME_OVER

    def game_now(self) -> float:
        return max(self.game.now, on_grid(self.clock.now() - self.lag))

    def heard_as(self, word: Word) -> Word:
        """A word as the rules hear it: "[unk]" unless the speech rules react
        to it, times to the centisecond. The game and its journal get the same."""
        text = word.word if self.game.grammar.reacts_to(word.word) else UNK
        return Word(text, round(word.start, 2), round(word.end, 2))   # no confidence: the journal keeps none

    # ------------------------------------------------------------ inputs

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop that owns the table from now on (the live game's)."""
        self.loop = loop

    def apply(self, event: Event) -> list[Output]:
        """A host or player input. Timers already due are said first, so an
        input that is refused (it raises, and changes nothing) never swallows
        an announcement."""
        self._check_open()
        if self.undoing and not isinstance(event, Heard):
            raise self._refusal(GameError, "undo_busy")
        if self.game.phase is Phase.SETUP:  # the game's time starts at the deal
            if isinstance(event, Setup):
                self.clock.restart(self.game.now + self.lag)
            return self._input(event, self.game.now)
        return self._input(event, self.game_now())

    def _input(self, event: Event, now: float) -> list[Output]:
        self.tick_to(now)
        with self.lock:
            outputs = self.game.handle(event, now)
            self._record(now, event_to_json(event))
        if outputs and not self._on_disk():
            return outputs   # unrecorded: not said; the table has stopped and says why
        self._emit(outputs)
        return outputs

    def apply_json(self, data: dict[str, Any]) -> list[Output]:
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
            if self.speaker is not None and self.speaker.is_echo(word.start, word.end):
                self.echoes += 1
                log.debug("ignored own voice: %s", word.word)
                continue
            if self.failure is not None:
                break
            word = self.heard_as(word)
            if self._mark is None:
                self._mark = revision.mark(self.game, self.entries)
            outputs += self._hear(Heard(word), max(self.game.now, word.start))
        return outputs

    def _hear(self, heard: Heard, now: float) -> list[Output]:
        """A word: journaled at once when it made the table say something,
        else held (a crash loses it, and nobody heard it count)."""
        self.tick_to(now)
        with self.lock:
            outputs = self.game.handle(heard, now)
            self._record(now, event_to_json(heard), hold=True)
            if outputs:
                self.flush()   # in the same run as the words before it
        if outputs and not self._on_disk():
            return outputs
        self._emit(outputs)
        return outputs

    def _revise(self, change: Revision) -> list[Output]:
        """The final result replaces the words taken from partials: the game is
        replayed from the mark with the final words and times, so every timing
        rule is judged on exact times (SPEC's 10 s and 1.5 s rules stay exact).
        The journal keeps the provisional words and a `revise` entry."""
        if self.undoing:  # an undo is rebuilding from these entries: only the words not yet heard count
            log.info("revision while undoing: only its new words are heard")
            return self.hear(change.new[len(change.old):])
        heard = [self.heard_as(w) for w in change.new
                 if self.speaker is None or not self.speaker.is_echo(w.start, w.end)]
        now = self.game_now()
        self.tick_to(now)
        with self.lock:
            start = self._mark.index if self._mark is not None else 0
            places = revision.find_places(self.entries, start, [self.heard_as(w) for w in change.old])
        if self._mark is None and not places:
            # none of its provisional words reached the game (the table's own
            # voice): the final words are simply heard, no replay from the deal
            return self.hear(heard)
        with self.lock:
            game, entries, outputs = revision.revise(self.game.rules, self._mark, self.entries, places, heard, now)
            # Nothing said changed and every input since the mark is a word still
            # held: the journal gets the final words instead, as if heard so.
            since = len(self.entries) - start
            absorbed = not outputs and self._mark is not None and self._held >= since
            self._mark = None
            self.game = game
            self.entries[:] = entries
            if self.journal is not None and absorbed:
                self.journal.replace_held(since, entries[start:])
                self._held += len(entries) - start - since
                if self._held_since is not None and game.now - self._held_since >= GROUP_SECONDS:
                    self.flush()  # at the end of an utterance, so the next one can still be replaced
            elif self.journal is not None:
                self.journal.write(game.now, revision.revise_json(start, places, heard))
                self._wrote()
        if outputs and not self._on_disk():
            return outputs
        self._emit(outputs, changed=True)
        return outputs

    def post_words(self, words: list[Word | Revision]) -> None:
        """From the microphone thread: the words are heard on the owner's loop."""
        if self.loop is None:
            raise RuntimeError("post_words needs the table bound to its loop")
        self.loop.call_soon_threadsafe(self._hear_posted, words)

    def _hear_posted(self, words: list[Word | Revision]) -> None:
        try:
            self.hear(words)
        except VoicehostError as exc:  # nobody to answer: the words are lost, the game goes on
            log.warning("words not heard: %s", exc)

    def tick(self) -> list[Output]:
        """What the clock alone makes happen by now; held words long enough unwritten are written."""
        if self.failure is not None or self.game.phase is Phase.SETUP:
            return []
        outputs = self.tick_to(on_grid(self.clock.now() - self.lag))
        since = self._held_since
        if since is not None and self.game.now - since >= GROUP_SECONDS and self.entries:
            quiet = self.game.now - self.entries[-1][0] >= QUIET_SECONDS   # no utterance going on
            if quiet or self.game.now - since >= 3 * GROUP_SECONDS:
                self.flush()
        return outputs

    def tick_to(self, now: float) -> list[Output]:
        with self.lock:
            fired = self.game.fired
            outputs = self.game.advance(now)
            if outputs or self.game.fired != fired:  # replay needs the clock only where a timer fired
                # held like words: a timer is a deadline, a resumed game fires it again
                self._record(self.game.now, TICK, hold=True)
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
                self._record(self.game.now, TICK)
        return outputs

    def restore(self) -> list[Output]:
        """A game back after a crash: the table hears so, and the game stands
        paused (journaled) until the host resumes it, so no clock runs on
        while players sit down again; an interrupted count starts again then."""
        self._check_open()
        outputs = [Output(self.game_now(), OutputKind.SAY, "restored")]
        self._emit(outputs)
        if self.game.phase not in (Phase.SETUP, Phase.GAME_OVER) and self.game.paused_at is None:
            outputs += self.apply_json({"type": "pause"})
        return outputs

    # ------------------------------------------------------------ undo

    def undo(self) -> dict[str, Any]:
        """Take back the last host input, rebuilding on this thread (tools, tests)."""
        kept, undone = self._undo_plan()
        return self._undo_finish(rebuild(self.game.rules, kept), len(self.entries), undone)

    async def undo_async(self) -> dict[str, Any]:
        """Take back the last host input; the game is rebuilt off the loop while
        words go on being heard (host inputs wait for it)."""
        kept, undone = self._undo_plan()
        mark = len(self.entries)
        self.undoing = True
        try:
            loop = asyncio.get_running_loop()
            game = await loop.run_in_executor(None, rebuild, self.game.rules, kept)
        finally:
            self.undoing = False
        for t, event in self.entries[mark:]:  # heard while rebuilding: no host input among them
            try:
                game.advance(t) if event.get("type") == "tick" else game.handle(
                    parse_event(event, game.max_seat), t)
            except VoicehostError:
                continue
        return self._undo_finish(game, len(self.entries), undone)

    def _undo_plan(self) -> tuple[list[Entry], dict[str, Any]]:
        self._check_open()
        if self.undoing:  # one undo at a time: two would take back the same input twice
            raise self._refusal(GameError, "undo_busy")
        index = last_host_input(self.entries)
        if index is None:
            raise self._refusal(GameError, "nothing_to_undo")
        return self.entries[:index] + self.entries[index + 1:], self.entries[index][1]

    def _undo_finish(self, game: Moderator, mark: int, undone: dict[str, Any]) -> dict[str, Any]:
        now = self.game_now()
        index = last_host_input(self.entries[:mark])
        assert index is not None
        with self.lock:
            game.advance(max(now, game.now))
            self.game = game
            self._mark = None
            del self.entries[index]
            if self.journal is not None:
                self.journal.write(max(now, game.now), {"type": "undo"})
                self._wrote()
        self._emit([self._undone(undone, max(now, game.now))], changed=True)
        return undone

    def _undone(self, undone: dict[str, Any], t: float) -> Output:
        """What the table hears of an undo: "Отмена: фол игроку 3" (a night input privately)."""
        private = undone.get("type") in NIGHT_INPUTS
        return Output(t, OutputKind.SAY, "undone", private, {"detail": self.texts.input(undone)})

    # ------------------------------------------------------------ the journal

    def _record(self, t: float, event: dict[str, Any], *, hold: bool = False) -> None:
        self.entries.append((t, event))
        if self.journal is None:
            return
        if hold:
            self.journal.hold(t, event)
            self._held += 1
            self._held_since = t if self._held_since is None else self._held_since
        else:
            self.journal.write(t, event)
            self._wrote()

    def _on_disk(self) -> bool:
        """Wait (an fsync: milliseconds) until what the table is about to answer
        is on disk; False when it could not be written, and then the table has
        stopped: an answer is never said for an input the journal lost."""
        if self.journal is None:
            return True
        try:
            self.journal.sync(timeout=5.0)
        except TimeoutError:   # a card this slow: say it anyway, the writer goes on
            log.warning("journal %s: a write takes over 5 s", self.journal.path)
        self._check_journal()
        return self.failure is None

    def _wrote(self) -> None:
        self._held, self._held_since = 0, None   # a write takes the held words with it

    def flush(self) -> None:
        """Write the held words now."""
        if self.journal is not None and self._held:
            self.journal.flush()
            self._wrote()

    def sync(self) -> None:
        self.flush()
        if self.journal is not None:
            self.journal.sync()
        self._check_journal()

    async def synced(self) -> None:
        """Until every accepted input (held words too) is on disk; raises if the journal failed."""
        self.flush()
        if self.journal is not None:
            await self.journal.synced()
        self._check_journal()

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

    def close(self) -> None:
        """The game stops here (quit, end, Ctrl-C): the clock's last mark is journaled."""
        if self.journal is None:
            return
        if self.failure is None and self.journal.started and self.entries and \
                self.game.now > self.entries[-1][0]:
            # a word that ended past a deadline moved the clock without firing
            # it: the replay of this last mark fires it, so the game does too
            self.game.advance(self.game.now)
            self.journal.write(self.game.now, TICK)
            self._wrote()
        self.journal.close()
        self._check_journal()

    # ------------------------------------------------------------ output

    def _emit(self, outputs: list[Output], *, changed: bool = False) -> None:
        for output in outputs:
            if output.kind == "say" and self.speaker is not None:
                self.speaker.say(rendered(self.game.book, output), private=output.private, at=output.t)
        if outputs or changed:
            for listener in list(self.listeners):
                try:
                    listener(outputs)
                except Exception:  # a listener must never stop the game
                    log.exception("output listener failed")


def open_table(rules: RuleOptions, journal: Path, *, resume: bool) -> tuple[Moderator, JournalWriter,
                                                                             list[Entry], list[Output]]:
    """A new game to be journaled to `journal` (created at the deal), or the
    game a journal holds, ready to go on."""
    if resume:  # the journal is locked before it is read: a second table is refused
        table, outputs, opened = resume_table(journal)
        return table.game, JournalWriter(journal, table.game.rules, journal=opened), table.entries, outputs
    check_new(journal)   # now, not at the deal: another game's journal (and protocol) stay as they are
    try:  # the folder now (the page keeps its paired devices there); the file at the deal
        journal.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VoicehostError(f"cannot make the journal folder {journal.parent}: {exc.strerror or exc}") from None
    return new_game(rules), JournalWriter(journal, rules), [], []


__all__ = ["AudioClock", "GameClock", "JournalWriter", "LiveTable", "TableStopped", "open_table"]
