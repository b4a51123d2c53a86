"""`voicehost bench journal`: what a two-hour game costs the journal.

A game is driven the way the live table drives it: a 20 Hz ticker on a
virtual clock for two hours of game time, words heard during every speech at
a given rate, the host's inputs where the game waits for them, every line
written with an fsync. Printed per rate of speech: the journal's size, its
lines (one fsync each), the time to resume it (lock, check, replay), and
whether the resumed game is the one that was played. The ruleset is 4mafia
with quiet_rounds=off, so that a game without nominations lasts two hours."""
from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from voicehost.game.events import Heard, parse_event
from voicehost.game.moderator import new_game
from voicehost.game.protocol import snapshot
from voicehost.journal import Journal, Table, resume_table
from voicehost.phrases.words import Word
from voicehost.rules import rules_for

ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen", "6": "sheriff",
         "7": "mafia", "8": "citizen", "9": "citizen", "10": "citizen"}
FILLERS = ["я", "думаю", "что", "второй", "игрок", "мирный", "а", "вот", "пятый", "мне", "не", "нравится"]
TICK = 0.05


def play(path: Path, seconds: float, words_per_second: float, *, fsync: bool = True) -> tuple[Table, int]:
    """Two hours (or `seconds`) of a game on a virtual clock; returns the table and the words heard."""
    rules = rules_for("4mafia", {"quiet_rounds": "off"})
    table = Table(new_game(rules), Journal(path, rules, fsync=fsync))
    game = table.game
    table.apply(parse_event({"type": "setup", "roles": ROLES}), 0.0)
    gap = 1.0 / words_per_second if words_per_second > 0 else None
    next_word, heard, step = 0.0, 0, 0
    while step * TICK < seconds:
        step += 1
        now = round(step * TICK, 3)
        table.advance(now)
        waiting = table.game.waiting_for()
        if waiting == "shot":
            table.apply(parse_event({"type": "shot", "seat": None}), table.game.now)
        elif waiting is not None:
            raise RuntimeError(f"the bench game waits for {waiting!r} at {now:.0f} s")
        game = table.game
        if gap is not None and game.floor is not None and now >= next_word:
            word = Word(FILLERS[heard % len(FILLERS)], now + 0.0123456, now + 0.3123456)
            table.apply(Heard(word), max(game.now, word.start))
            heard += 1
            next_word = now + gap
    return table, heard


def measure(seconds: float, words_per_second: float, folder: Path, *, fsync: bool = True) -> dict[str, Any]:
    path = folder / f"bench-{words_per_second:g}.jsonl"
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    table, heard = play(path, seconds, words_per_second, fsync=fsync)
    played = time.perf_counter() - started
    table.close()
    started = time.perf_counter()
    resumed, _, journal = resume_table(path, fsync=fsync)
    resume = time.perf_counter() - started
    journal.close()
    lines = path.read_bytes().count(b"\n")
    return {"rate": words_per_second, "bytes": path.stat().st_size, "lines": lines, "words": heard,
            "resume": resume, "play": played, "days": table.game.day,
            "same": snapshot(resumed.game) == snapshot(table.game)}


def run(hours: float = 2.0, rates: tuple[float, ...] = (0.0, 0.5, 1.6), *, fsync: bool = True,
        out: Callable[[str], None] = print) -> list[dict[str, Any]]:
    seconds = hours * 3600
    out(f"journal: a {hours:g}-hour game (4mafia, quiet_rounds=off), 20 Hz ticker, "
        f"{'fsync per line' if fsync else 'no fsync'}")
    out("  words/s in speeches   journal     lines (= fsyncs)   words   resume   resumed game")
    results = []
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-") as folder:
        for rate in rates:
            r = measure(seconds, rate, Path(folder), fsync=fsync)
            results.append(r)
            out(f"  {rate:>15g}   {r['bytes'] / 1024:7.1f} KB   {r['lines']:>16d}   {r['words']:>5d}   "
                f"{r['resume']:5.2f} s   {'identical' if r['same'] else 'DIFFERENT'} (day {r['days']})")
    ticks = int(seconds / TICK)
    out(f"  before (a tick line at every 50 ms step): {ticks} more lines and fsyncs, "
        f"~{ticks * 33 / 1024 / 1024:.1f} MB more")
    return results


__all__ = ["run", "measure", "play"]
