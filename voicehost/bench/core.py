"""`voicehost bench core`: µs per word through the phrase rules, whole simulated games per second."""
from __future__ import annotations

import statistics
import time

from voicehost.bench.source import source_tool
from voicehost.bench.stats import percentile
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import SpeechListener, StaticContext
from voicehost.phrases.words import Word

SPEECH = ("коллеги я мирный житель и хочу сказать что седьмой игрок вёл себя странно "
          "господин ведущий выставленные игроки выставляю на голосование кандидатуру игрока "
          "номер семь потому что он честно говоря молчал первый круг думаю третий тоже "
          "подозрителен пас в сторону четвёртого").split()


def phrase_rules(words: int = 50_000) -> dict[str, float]:
    """Microseconds per word through the listener, on a realistic speech stream."""
    grammar = load_grammar("ru")
    timings: list[float] = []
    clock = 0.0
    listener = SpeechListener(grammar, StaticContext())
    for i in range(words):
        text = SPEECH[i % len(SPEECH)]
        if i % len(SPEECH) == 0:
            listener = SpeechListener(grammar, StaticContext())
        word = Word(text, clock, clock + 0.3)
        clock += 0.4
        start = time.perf_counter_ns()
        listener.hear(word)
        timings.append((time.perf_counter_ns() - start) / 1000)
    return {"words": words, "p50_us": percentile(timings, 0.50), "p99_us": percentile(timings, 0.99),
            "mean_us": statistics.fmean(timings)}


def games(seconds: float = 3.0) -> dict[str, float]:
    """Whole simulated games per second; the scripts are read by tools/bench_core.py
    (tests/games and the recorded games live in the source checkout, not the package)."""
    result: dict[str, float] = source_tool("bench_core").games(seconds)
    return result


def run() -> None:
    words = phrase_rules()
    print(f"phrase rules: {words['words']} words, p50 {words['p50_us']:.1f} µs, "
          f"p99 {words['p99_us']:.1f} µs, mean {words['mean_us']:.1f} µs per word "
          f"(target p99 < 200 µs)")
    played = games()
    print(f"simulate: {played['games_per_s']:.0f} whole games/s over {played['games']} games "
          f"({played['distinct']} distinct scripts; target >= 200/s)")


if __name__ == "__main__":
    run()
