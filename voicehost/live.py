"""The live table: the moderator on a real (or audio) clock, its journal
written with an fsync per input, announcements spoken, recognized words fed
in. One lock guards the moderator: the recognizer thread, the typed input,
the ticker and the web page all go through `LiveTable`."""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Callable, Iterable

from voicehost.asr import Revision
from voicehost.errors import VoicehostError
from voicehost.game.events import Event, Heard, parse_event
from voicehost.game.moderator import Moderator, new_game
from voicehost.game.model import Output, Phase
from voicehost.journal import Journal, Table, replay_entries
from voicehost.phrases.words import Word
from voicehost.rules import RuleOptions
from voicehost.tts import Speaker

log = logging.getLogger(__name__)


class GameClock:
    """Game seconds on the wall clock. Time the table spent crashed is not game
    time: a resumed game goes on from where its journal stopped."""

    def __init__(self, start_at: float = 0.0) -> None:
        self._t0 = time.monotonic() - start_at

    def now(self) -> float:
        return time.monotonic() - self._t0

    def skip_to(self, t: float) -> None:
        """Jump forward (typed `<N>` silences); never backward."""
        ahead = t - self.now()
        if ahead > 0:
            self._t0 -= ahead


class AudioClock:
    """Game seconds as audio time: a recorded game plays faster than real time."""

    def __init__(self, start_at: float = 0.0) -> None:
        self.t = start_at

    def now(self) -> float:
        return self.t

    def skip_to(self, t: float) -> None:
        self.t = max(self.t, t)


Listener = Callable[[list[Output]], None]


class LiveTable:
    def __init__(self, table: Table, clock: GameClock | AudioClock, speaker: Speaker | None = None,
                 *, lag: float = 0.0) -> None:
        self.table = table
        self.clock = clock
        self.speaker = speaker
        self.lag = lag
        self.lock = threading.RLock()
        self.listeners: list[Listener] = []
        self.echoes = 0

    @property
    def game(self) -> Moderator:
        return self.table.game

    @property
    def journal_path(self) -> Path | None:
        return self.table.journal.path if self.table.journal else None

    def game_now(self) -> float:
        return max(self.game.now, self.clock.now() - self.lag)

    def apply(self, event: Event) -> list[Output]:
        """A host or player input; raises (and changes nothing) when it does not fit."""
        with self.lock:
            outputs = self.table.apply(event, self.game_now())
            self._emit(outputs)
            return outputs

    def apply_json(self, data: dict) -> list[Output]:
        return self.apply(parse_event(data, self.game.max_seat))

    def hear(self, words: Iterable[Word | Revision]) -> list[Output]:
        """Recognized words with game-clock times; our own voice is dropped.
        A `Revision` (the final result of words taken from partials) replays
        them with exact times, and says a correction when a decision changed."""
        outputs: list[Output] = []
        for word in words:
            if isinstance(word, Revision):
                outputs += self._revise(word)
                continue
            if self.speaker is not None and self.speaker.is_echo(word.start, word.end):
                self.echoes += 1
                log.debug("ignored own voice: %s", word.word)
                continue
            with self.lock:
                self.table.mark()
                out = self.table.apply(Heard(word), max(self.game.now, word.start))
                self._emit(out)
                outputs += out
        return outputs

    def _revise(self, revision: Revision) -> list[Output]:
        heard = [w for w in revision.new if self.speaker is None or not self.speaker.is_echo(w.start, w.end)]
        with self.lock:
            out = self.table.revise(list(revision.old), heard, self.game_now())
            self._emit(out, changed=True)
            return out

    def tick(self) -> list[Output]:
        with self.lock:
            outputs = self.table.advance(self.clock.now() - self.lag)
            self._emit(outputs)
            return outputs

    def skip(self, seconds: float) -> list[Output]:
        """Let `seconds` of silence pass at once (typed mode)."""
        with self.lock:
            self.clock.skip_to(self.game_now() + self.lag + seconds)
            return self.tick()

    def undo(self) -> dict:
        """Take back the last host input; returns what was undone."""
        with self.lock:
            undone = self.table.undo(self.game_now())
            self._emit([], changed=True)
            return undone

    def _emit(self, outputs: list[Output], *, changed: bool = False) -> None:
        for output in outputs:
            if output.kind == "say" and self.speaker is not None:
                self.speaker.say(output.text, private=output.private, at=output.t)
        if outputs or changed:
            for listener in list(self.listeners):
                try:
                    listener(outputs)
                except Exception:  # a listener must never stop the game
                    log.exception("output listener failed")

    @property
    def over(self) -> bool:
        return self.game.phase is Phase.GAME_OVER


def open_table(rules: RuleOptions, journal: Path, *, resume: bool) -> tuple[Table, list[Output]]:
    """A new game journaled to `journal`, or the game a journal holds, ready to go on."""
    if resume:
        if not journal.is_file():
            raise VoicehostError(f"no journal at {journal} to resume")
        game, outputs, entries = replay_entries(journal)
        return Table(game, Journal(journal, game.rules, fsync=True, resume=True), entries), outputs
    journal.parent.mkdir(parents=True, exist_ok=True)
    game = new_game(rules)
    return Table(game, Journal(journal, rules, fsync=True)), []


def fixed_phrases(game: Moderator) -> list[str]:
    """Every announcement whose text is known before the game: rendered at start-up."""
    book = game.book
    texts = [text for text in book.say.values() if "{" not in text]
    seats = range(1, 11)
    for key in ("floor_speech", "floor_tie", "floor_last_word", "vote_question", "leaves", "killed",
                "number"):
        texts += [book.text(key, seat=seat) for seat in seats]
    if game.rules.confirm_nominations:
        texts += [game.rules.confirmation.format(seat=s) or book.text("accepted", seat=s) for s in seats]
    return list(dict.fromkeys(texts))
