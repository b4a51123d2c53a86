"""How long the live table's owner (the asyncio loop) spends on each heard
word now that the journal is fsynced on a writer thread, against the time the
same words take to reach the disk. Prints figures; asserts nothing.

    .venv/bin/python -m tools.bench_live [WORDS]
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from voicehost.game.model import Phase
from voicehost.game.moderator import new_game
from voicehost.live import AudioClock, JournalWriter, LiveTable
from voicehost.phrases.words import Word
from voicehost.rules import rules_for

ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen",
         "6": "sheriff", "7": "mafia", "8": "citizen", "9": "citizen", "10": "citizen"}


def main(count: int = 500) -> None:
    rules = rules_for("4mafia", {"speech_seconds": 3600.0})
    folder = Path(tempfile.mkdtemp(prefix="voicehost-bench-live-", dir=Path.cwd()))
    try:
        live = LiveTable(new_game(rules), AudioClock(), journal=JournalWriter(folder / "j.jsonl", rules))
        live.apply_json({"type": "setup", "roles": ROLES})
        while live.game.phase is not Phase.SPEECH:
            live.clock.skip_to(live.game.next_deadline())
            live.tick()
        live.sync()
        spent, t = [], live.game.now
        start = time.perf_counter()
        for _ in range(count):
            t += 0.5
            live.clock.skip_to(t + 0.3)
            before = time.perf_counter()
            live.hear([Word("мирный", t, t + 0.3)])
            spent.append(time.perf_counter() - before)
        handed = time.perf_counter() - start
        live.sync()
        on_disk = time.perf_counter() - start
        live.close()
    finally:
        shutil.rmtree(folder)
    spent.sort()
    p = lambda q: 1000 * spent[min(len(spent) - 1, int(q * len(spent)))]  # noqa: E731
    print(f"{count} heard words, journal fsynced per word on the writer thread ({folder.parent}):")
    print(f"  owner thread per word: p50 {p(0.5):.2f} ms, p99 {p(0.99):.2f} ms, max {1000 * spent[-1]:.2f} ms")
    print(f"  all handed over after {1000 * handed:.0f} ms; all on disk after {1000 * on_disk:.0f} ms "
          f"({1000 * on_disk / count:.2f} ms of fsync per word, no longer on the loop)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
