"""Benchmarks that print figures (never timed tests): `voicehost bench core`."""
from __future__ import annotations

import importlib
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

from voicehost.errors import InputError
from voicehost.paths import ROOT
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import SpeechListener, StaticContext
from voicehost.phrases.words import Word

SPEECH = ("коллеги я мирный житель и хочу сказать что седьмой игрок вёл себя странно "
          "господин ведущий выставленные игроки выставляю на голосование кандидатуру игрока "
          "номер семь потому что он честно говоря молчал первый круг думаю третий тоже "
          "подозрителен пас в сторону четвёртого").split()


def percentile(values: list[float], share: float) -> float:
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
    return {"words": words, "p50_us": percentile(timings, 0.50), "p99_us": percentile(timings, 0.99),
            "mean_us": statistics.fmean(timings)}


def source_tool(name: str) -> ModuleType:
    """A bench helper from the source checkout's tools/ (they read tests/ and
    ../shared, which a plain pip install does not have). The checkout's
    `tools` package is loaded from its folder, so `sys.path` stays as it is."""
    folder = ROOT / "tools"
    package = sys.modules.get("tools")
    if package is None:
        spec = importlib.util.spec_from_file_location("tools", folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        if spec is None or spec.loader is None or not (folder / f"{name}.py").is_file():
            raise InputError(f"this bench needs a source checkout (no tools/{name}.py in {ROOT})")
        package = importlib.util.module_from_spec(spec)
        sys.modules["tools"] = package
        spec.loader.exec_module(package)
    if str(folder) not in [str(Path(p)) for p in getattr(package, "__path__", [])]:
        raise InputError(f"another package named tools is loaded ({package}); the bench needs {folder}")
    return importlib.import_module(f"tools.{name}")


def games(seconds: float = 3.0) -> dict[str, float]:
    """Whole simulated games per second; the scripts are read by tools/bench_core.py
    (tests/games and the recorded games live in the source checkout, not the package)."""
    result: dict[str, float] = source_tool("bench_core").games(seconds)
    return result


def core() -> None:
    words = phrase_rules()
    print(f"phrase rules: {words['words']} words, p50 {words['p50_us']:.1f} µs, "
          f"p99 {words['p99_us']:.1f} µs, mean {words['mean_us']:.1f} µs per word "
          f"(target p99 < 200 µs)")
    played = games()
    print(f"simulate: {played['games_per_s']:.0f} whole games/s over {played['games']} games "
          f"({played['distinct']} distinct scripts; target >= 200/s)")


def latency(runs: int = 3) -> None:
    """The live loop's latency and memory (voicehost.latency_bench)."""
    from voicehost.latency_bench import latency as measure

    measure(runs)


if __name__ == "__main__":
    core()
