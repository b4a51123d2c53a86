"""`voicehost bench journal`: what a two-hour game costs the journal.

The game is driven the way the live loop drives it: a `LiveTable` on a
virtual clock with the live listening lag (1 s), its 20 Hz ticker, its
journal writer thread with an fsync per write, for two hours of game time.
During every speech, utterances of 3 to 12 words come at a given average
rate (or non-stop, with 0.3 s between utterances); each word is first taken
from a partial result (estimated times, about 0.4 s after it ended), and the
utterance's final result follows 0.25 s after its last word with the exact
times, as a `Revision`, just as voicehost.asr hands them over. Most words are words the rules have no use
for; "игрока", "номер", "на" (fillers the rules know) come now and then.
The host's inputs come where the game waits for them.

Printed per rate of speech: the journal's size, its lines, its writes (one
fsync each), the time to resume it (lock, check, replay) and whether the
resumed game is the one that was played. The ruleset is 4mafia with
quiet_rounds=off, so a game without nominations lasts the two hours, almost
all of it speeches (a real game of two hours has votes and nights too: this
is the heavy case)."""
from __future__ import annotations

import math
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from voicehost.asr import Revision
from voicehost.game.events import parse_event
from voicehost.game.moderator import new_game
from voicehost.game.protocol import snapshot
from voicehost.journal import resume_table
from voicehost.live import JournalWriter, LiveTable
from voicehost.live.clock import AudioClock
from voicehost.phrases.words import Word
from voicehost.rules import rules_for

ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen", "6": "sheriff",
         "7": "mafia", "8": "citizen", "9": "citizen", "10": "citizen"}
SPEECH = ["я", "думаю", "что", "второй", "мирный", "а", "вот", "пятый", "мне", "не", "нравится", "его",
          "позиция", "тут", "очень", "странная", "красный", "черный", "шериф", "проверка", "игрока",
          "номер", "на", "дон", "этот", "стол", "смотрите", "голос", "руки", "кажется"]
TICK = 0.05
LAG = 1.0            # the live table's listening lag (asr.listen_lag)
PARTIAL_LAG = 0.4    # a word shows in the text partial this long after it ended
ENDPOINT = 0.25      # the final result, after the utterance's last word


class _Speech:
    """Utterances at `rate` words per second of speech, delivered as the
    recognizer delivers them: partial words, then the final result."""

    def __init__(self, rate: float, seed: int = 1) -> None:
        self.rate = rate
        self.rng = random.Random(seed)
        self.final: list[Word] = []
        self.taken: list[Word] = []
        self.next_start = 0.0
        self.heard = 0

    def utterance(self, start: float) -> None:
        rng, words, t = self.rng, [], start
        for _ in range(rng.randint(3, 12)):
            t += rng.choice((0.0, 0.0, 0.03, 0.06, 0.12))
            length = 0.03 * rng.randint(6, 16)
            words.append(Word(rng.choice(SPEECH), round(t, 2), round(t + length, 2)))
            t += length
        self.final = words
        self.taken = []
        # the pause after it keeps the average rate (len(words) words per speaking + pause
        # seconds); at least 0.3 s, so no rate goes past non-stop speech (about 2.7 words/s)
        self.next_start = max(t + 0.3, start + len(words) / self.rate)

    def due(self, game_time: float) -> list[Word | Revision]:
        """What the recognizer hands over by `game_time` (the microphone runs LAG ahead)."""
        audio = game_time + LAG
        out: list[Word | Revision] = []
        while len(self.taken) < len(self.final) and audio >= self.final[len(self.taken)].end + PARTIAL_LAG:
            exact = self.final[len(self.taken)]
            guess = Word(exact.word, round(exact.start + 0.04, 3), round(exact.end + 0.06, 3))
            self.taken.append(guess)
            out.append(guess)
        if self.final and audio >= self.final[-1].end + ENDPOINT + 0.3:
            out.append(Revision(tuple(self.taken), tuple(self.final)))
            self.heard += len(self.final)
            self.final = []
        return out


def play(path: Path, seconds: float, words_per_second: float) -> tuple[LiveTable, int, float]:
    """Two hours (or `seconds`) of a game on a virtual clock; returns the
    table, the words heard and the seconds of speeches."""
    rules = rules_for("4mafia", {"quiet_rounds": "off"})
    clock = AudioClock()
    live = LiveTable(new_game(rules), clock, journal=JournalWriter(path, rules), lag=LAG)
    live.apply(parse_event({"type": "setup", "roles": ROLES}))
    speech = _Speech(words_per_second) if words_per_second > 0 else None
    step = 0
    speaking = 0.0
    while step * TICK < seconds:
        step += 1
        clock.skip_to(round(step * TICK, 3) + LAG)
        live.tick()
        waiting = live.game.waiting_for()
        if waiting == "shot":
            live.apply(parse_event({"type": "shot", "seat": None}))
        elif waiting is not None:
            raise RuntimeError(f"the bench game waits for {waiting!r} at {step * TICK:.0f} s")
        if speech is None:
            continue
        floor = live.game.floor
        speaking += TICK if floor is not None else 0.0
        now = live.game_now()
        if floor is not None and not speech.final and now >= speech.next_start and now + 8 < floor.end:
            speech.utterance(now + 0.2)
        items = speech.due(now)
        if items:
            live.hear(items)
    live.sync()
    return live, speech.heard if speech else 0, speaking


@dataclass(frozen=True)
class Measured:
    """One bench game: its journal's size, lines and writes, the words heard in
    how many seconds of speaking, and whether the resumed game is the same."""

    rate: float
    bytes: int
    lines: int
    writes: int
    words: int
    speaking: float
    revisions: int
    resume: float
    play: float
    days: int
    same: bool


def measure(seconds: float, words_per_second: float, folder: Path) -> Measured:
    path = folder / f"bench-{words_per_second:g}.jsonl"   # "bench-inf": non-stop speech
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    live, heard, speaking = play(path, seconds, words_per_second)
    played = time.perf_counter() - started
    writer = live.journal
    assert writer is not None and writer.journal is not None
    live.close()
    writes = writer.journal.writes
    started = time.perf_counter()
    resumed, _, journal = resume_table(path)
    resume = time.perf_counter() - started
    journal.close()
    data = path.read_bytes()
    return Measured(rate=words_per_second, bytes=len(data), lines=data.count(b"\n"), writes=writes, words=heard,
                    speaking=speaking, revisions=data.count(b'"revise"'), resume=resume, play=played,
                    days=live.game.day, same=snapshot(resumed.game) == snapshot(live.game))


def run(hours: float = 2.0, rates: tuple[float, ...] = (0.0, 1.0, 2.0, math.inf), *,
        out: Callable[[str], None] = print) -> list[Measured]:
    seconds = hours * 3600
    out(f"journal: a {hours:g}-hour game (4mafia, quiet_rounds=off: speeches almost all the time), "
        f"played through the live table: 20 Hz ticker, partial words then final results, fsync per write")
    out("  words/s in speeches (heard)   journal     lines   writes (= fsyncs)   words   revise lines   resume   "
        "resumed game")
    results = []
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-") as folder:
        for rate in rates:
            r = measure(seconds, rate, Path(folder))
            results.append(r)
            asked = "non-stop" if math.isinf(rate) else f"{rate:g}"
            heard = r.words / r.speaking if r.speaking else 0.0
            out(f"  {asked:>12} ({heard:4.2f})   {r.bytes / 1024:7.1f} KB   {r.lines:>5d}   {r.writes:>17d}   "
                f"{r.words:>5d}   {r.revisions:>12d}   {r.resume:5.2f} s   "
                f"{'identical' if r.same else 'DIFFERENT'} (day {r.days})")
    return results


__all__ = ["run", "measure", "play"]
