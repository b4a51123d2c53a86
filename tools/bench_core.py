"""The core bench's whole-game part: it reads the game scripts in tests/games
and the recorded games in ../shared/realgames, so it lives with the source
checkout rather than in the runtime package."""
from __future__ import annotations

import json
import time
from pathlib import Path

from tools.records import convert, load_records
from voicehost.rules import RuleOptions, parse_set, rules_for

ROOT = Path(__file__).resolve().parent.parent

Script = tuple[list[tuple[int, str]], RuleOptions]


def scripts() -> list[Script]:
    """Every game script with its rules: tests/games, then the complete recorded games."""
    found: list[Script] = []
    for path in sorted((ROOT / "tests" / "games").glob("*.jsonl")):
        expect = json.loads(path.with_suffix(".expect.json").read_text("utf-8"))
        args = expect["args"]
        ruleset = args[args.index("--ruleset") + 1] if "--ruleset" in args else "4mafia"
        sets = parse_set([args[i + 1] for i, arg in enumerate(args) if arg == "--set"])
        lines = path.read_text("utf-8").splitlines()
        found.append((list(enumerate(lines, 1)), rules_for(ruleset, sets or None)))
    realgames = ROOT.parent / "shared" / "realgames"
    for path in sorted(realgames.glob("*.json")) if realgames.is_dir() else []:
        for record in load_records(path):
            if record.complete:
                lines = [json.dumps(line, ensure_ascii=False) for line in convert(record).script]
                found.append((list(enumerate(lines, 1)), rules_for("fiim", record.options)))
    return found


def games(seconds: float = 3.0) -> dict[str, float]:
    """Whole simulated games per second: the game scripts and the real recorded games."""
    from voicehost.simulate import simulate

    played_scripts = scripts()
    played, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for lines, rules in played_scripts:
            simulate(lines, rules, "bench")
            played += 1
    elapsed = time.perf_counter() - start
    return {"games": played, "distinct": len(played_scripts), "games_per_s": played / elapsed}
