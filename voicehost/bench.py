"""Benchmarks that print figures (never timed tests): `voicehost bench core`."""
from __future__ import annotations

import json
import statistics
import time

from voicehost.paths import ROOT
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import SpeechListener, StaticContext
from voicehost.phrases.words import Word
from voicehost.rules import parse_set, rules_for

SPEECH = ("коллеги я мирный житель и хочу сказать что седьмой игрок вёл себя странно "
          "господин ведущий выставленные игроки выставляю на голосование кандидатуру игрока "
          "номер семь потому что он честно говоря молчал первый круг думаю третий тоже "
          "подозрителен пас в сторону четвёртого").split()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


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
    return {"words": words, "p50_us": _percentile(timings, 0.50), "p99_us": _percentile(timings, 0.99),
            "mean_us": statistics.fmean(timings)}


def _scripts() -> list[tuple[list[tuple[int, str]], object]]:
    from voicehost.records import convert, load_records

    scripts = []
    for path in sorted((ROOT / "tests" / "games").glob("*.jsonl")):
        expect = json.loads(path.with_suffix(".expect.json").read_text("utf-8"))
        args = expect["args"]
        ruleset = args[args.index("--ruleset") + 1] if "--ruleset" in args else "4mafia"
        sets = parse_set([args[i + 1] for i, arg in enumerate(args) if arg == "--set"])
        lines = path.read_text("utf-8").splitlines()
        scripts.append((list(enumerate(lines, 1)), rules_for(ruleset, sets or None)))
    realgames = ROOT.parent / "shared" / "realgames"
    for path in sorted(realgames.glob("*.json")) if realgames.is_dir() else []:
        for record in load_records(path):
            if record.complete:
                lines = [json.dumps(line, ensure_ascii=False) for line in convert(record).script]
                scripts.append((list(enumerate(lines, 1)), rules_for("fiim", record.options)))
    return scripts


def games(seconds: float = 3.0) -> dict[str, float]:
    """Whole simulated games per second: the game scripts and the real recorded games."""
    from voicehost.simulate import simulate

    scripts = _scripts()
    played, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for lines, rules in scripts:
            simulate(lines, rules, "bench")
            played += 1
    elapsed = time.perf_counter() - start
    return {"games": played, "distinct": len(scripts), "games_per_s": played / elapsed}


def core() -> None:
    words = phrase_rules()
    print(f"phrase rules: {words['words']} words, p50 {words['p50_us']:.1f} µs, "
          f"p99 {words['p99_us']:.1f} µs, mean {words['mean_us']:.1f} µs per word "
          f"(target p99 < 200 µs)")
    played = games()
    print(f"simulate: {played['games_per_s']:.0f} whole games/s over {played['games']} games "
          f"({played['distinct']} distinct scripts; target >= 200/s)")


if __name__ == "__main__":
    core()
