"""Fuzzing the command line in-process (issue 8, "Done when"): a seeded mutator
over tests/games/*.jsonl plays ≥ 2,000 mutated scripts through `simulate`, and
≥ 1,000 mutated inputs go through `check-phrase`. Each gives exit 0 with a
protocol (which its journal replays to), or exit 2 with one line naming the
script line and the phase, and no protocol; never a traceback, never a hang."""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import signal
from pathlib import Path

from tests.conftest import GAMES
from voicehost.cli import main

SCRIPTS = int(os.environ.get("VOICEHOST_FUZZ_SCRIPTS", "2000"))
PHRASES = int(os.environ.get("VOICEHOST_FUZZ_PHRASES", "1000"))
SECONDS_EACH = 10


class Hang(BaseException):
    """Raised by the alarm: not an Exception, so no handler can swallow it."""


@contextlib.contextmanager
def deadline(seconds: int):
    def ring(signum, frame):
        raise Hang()
    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def call(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old_stdin = os.sys.stdin
    os.sys.stdin = io.StringIO(stdin)
    try:
        with deadline(SECONDS_EACH), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:   # argparse: a bad flag value
                code = exc.code if isinstance(exc.code, int) else 2
    except Hang:
        code = -1
    finally:
        os.sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ the mutator

DEEP = "[" * 3000 + "]" * 3000
NASTY_VALUES = [
    -1, 0, 11, 12, 99, 10 ** 30, -(10 ** 30), 7.5, 1e308, -0.0, True, False, None, [], {}, "", "7",
    "²", "٣", "７", "\ud800", "a\u2028b", "x\u0085y", "выставляю", "спасибо", "<999999999999>",
    [7, 7], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], {"7": 7}, {"²": 3}, {"3": -2}, {"3": 10 ** 20},
    "x" * 5000,
]
RAW_VALUES = ["NaN", "Infinity", "-Infinity", "1" * 5000, DEEP, '"\\ud800"', '"\\udfff\\ud800"',
              "1e999", "-1e999", '"\u2028"']
RAW_CHARS = ["\x00", "\u2028", "\u0085", "\ufeff", "²", "\\", '"', "{", "}", ",", ":", "]", "\n", " "]
TYPES = ["setup", "speech", "votes", "lift_votes", "shot", "don_check", "sheriff_check", "best_move",
         "foul", "unfoul", "disqualify", "leave_table", "pause", "resume", "next", "candidates",
         "heal", "visit", "commissar_check", "maniac_kill", "best_player", "worst_player", "word", "tick"]


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, path + (index,))


def _set(node, path, value):
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


def _mutate_json(line: str, rng: random.Random) -> str:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return line
    paths = [p for p in _paths(data) if p]
    choice = rng.random()
    if not paths or choice < 0.1:
        data = {"type": rng.choice(TYPES), **({"seat": rng.choice(NASTY_VALUES)} if rng.random() < 0.5 else {})}
        return json.dumps(data)
    path = rng.choice(paths)
    if choice < 0.2:
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        del parent[path[-1]]
        return json.dumps(data)
    if choice < 0.3 and isinstance(data, dict):
        data["type"] = rng.choice(TYPES)
        return json.dumps(data)
    if choice < 0.45:       # a raw token JSON can hold but Python values cannot say
        marker = "__RAW__"
        _set(data, path, marker)
        return json.dumps(data).replace(f'"{marker}"', rng.choice(RAW_VALUES))
    value = rng.choice(NASTY_VALUES)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and rng.random() < 0.5:
        value = rng.choice([value, str(value)])
    _set(data, path, value)
    return json.dumps(data, ensure_ascii=rng.random() < 0.5)


def _plausible(line: str, rng: random.Random) -> str:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return line
    paths = [p for p in _paths(data) if p and isinstance(p[-1], str)]
    if not paths:
        return line
    path = rng.choice(paths)
    node = data
    for step in path:
        node = node[step]
    if path[-1] == "word":
        value = rng.choice(WORDS)
    elif path[-1] in ("start", "end") and isinstance(node, (int, float)):
        value = max(0.0, round(node + rng.uniform(-2, 12), 2))
    elif isinstance(node, int) and not isinstance(node, bool):
        value = rng.randint(0, 11)
    else:
        return line
    _set(data, path, value)
    return json.dumps(data, ensure_ascii=False)


def mutate(lines: list[str], others: list[list[str]], rng: random.Random) -> list[str]:
    lines = list(lines)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if not lines:
            break
        at = rng.randrange(len(lines))
        kind = rng.random()
        if kind < 0.25:   # a plausible change: another seat, another word, another time
            lines[at] = _plausible(lines[at], rng)
        elif kind < 0.45:
            lines[at] = _mutate_json(lines[at], rng)
        elif kind < 0.55:
            del lines[at]
        elif kind < 0.62:
            lines.insert(at, lines[rng.randrange(len(lines))])
        elif kind < 0.68 and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        elif kind < 0.74:
            other = rng.choice(others)
            lines.insert(at, rng.choice(other))
        elif kind < 0.82:
            line = lines[at]
            cut = rng.randrange(len(line) + 1)
            lines[at] = line[:cut] + rng.choice(RAW_CHARS) + line[cut + rng.choice([0, 0, 1]):]
        elif kind < 0.88:
            lines[at] = lines[at][: rng.randrange(len(lines[at]) + 1)]
        elif kind < 0.94:
            lines[at] = re.sub(r"\d+", lambda m: rng.choice(["²", "٣", m.group(0) * 3, "-" + m.group(0), "0"]),
                               lines[at], count=1)
        else:
            lines = lines[: at + 1]
    return lines


def _games() -> list[tuple[Path, list[str], list[str]]]:
    out = []
    for path in sorted(GAMES.glob("*.jsonl")):
        expect = path.with_suffix(".expect.json")
        options = json.loads(expect.read_text("utf-8")).get("args", []) if expect.exists() else []
        out.append((path, path.read_text("utf-8").splitlines(), options))
    return out


# ------------------------------------------------------------------ simulate

ONE_LINE_ERROR = re.compile(r"^voicehost simulate: (?P<where>\S+?):(?P<line>\d+): .*\(phase: [^)]*\)$")


def _check_simulate(index: int, argv: list[str], script: Path, protocol: Path, journal: Path | None,
                    failures: list[str]) -> str:
    code, out, err = call(argv)
    problem = ""
    if code == 0:
        if err:
            problem = f"exit 0 with stderr {err!r}"
        elif not protocol.is_file():
            problem = "exit 0 without a protocol"
        elif journal is not None:
            from voicehost.game.protocol import protocol as protocol_of
            from voicehost.journal import replay

            if protocol_of(replay(journal)[0]) != json.loads(protocol.read_text("utf-8")):
                problem = "the journal replays to another protocol"
    elif code == 2:
        empty = err.endswith(": the script is empty; its first line must be the setup\n")  # no line to name
        if out or err.count("\n") != 1 or not (ONE_LINE_ERROR.match(err.rstrip("\n")) or empty):
            problem = f"exit 2 but not one line naming line and phase: {err!r}"
        elif protocol.exists():
            problem = "exit 2 but a protocol was written"
        elif [p.name for p in script.parent.iterdir() if p.name.startswith(".")]:
            problem = "a temp file was left behind"
    elif code == -1:
        problem = "hung"
    else:
        problem = f"exit {code}: {err.strip()[:300]!r}"
    if problem:
        keep = script.with_name(f"failure-{index}.jsonl")
        keep.write_bytes(script.read_bytes())
        failures.append(f"{keep}: {' '.join(argv[2:])}: {problem}")
    return "ok" if code == 0 else "refused" if code == 2 else "bad"


def test_mutated_scripts_exit_0_with_a_protocol_or_2_with_one_line(tmp_path):
    rng = random.Random(20261201)
    games = _games()
    others = [lines for _, lines, _ in games]
    failures: list[str] = []
    outcomes = {"ok": 0, "refused": 0, "bad": 0}
    for index in range(SCRIPTS):
        source, lines, options = games[index % len(games)]
        folder = tmp_path / f"run{index % 4}"
        folder.mkdir(exist_ok=True)
        for stale in folder.iterdir():
            stale.unlink()
        script = folder / "script.jsonl"
        script.write_text("\n".join(mutate(lines, others, rng)) + "\n", "utf-8", errors="surrogatepass")
        protocol = folder / "p.json"
        journal = folder / "j.jsonl" if index % 4 == 0 else None
        argv = ["simulate", str(script), "--protocol", str(protocol), *options]
        if journal is not None:
            argv += ["--journal", str(journal)]
        outcomes[_check_simulate(index, argv, script, protocol, journal, failures)] += 1
    assert not failures, f"{len(failures)} of {SCRIPTS} scripts misbehaved:\n" + "\n".join(failures[:15])
    # the mutator bites, and not only by killing: a good share still plays to the end
    print(f"simulate fuzz: {outcomes}")
    assert outcomes["ok"] > SCRIPTS // 10 and outcomes["refused"] > SCRIPTS // 10, outcomes


# ------------------------------------------------------------------ check-phrase

WORDS = ["выставляю", "выставляю", "седьмого", "третьего", "номер", "семь", "десятого", "спасибо", "пас",
         "кандидатуру", "игрока", "честно", "клянусь", "я", "ну", "второго", "одиннадцатого", "ноль"]
TOKENS = ["<12>", "<0>", "<1.5>", "<999999999999999999999>", "<" + "9" * 5000 + ">", "<-1>", "<nan>",
          "<1e309>", "²", "٣", "7", "77", "\u2028", "\ud800", "x" * 300, "<10>", "<10.0>", "<10.000001>"]
FLAGS = [["--speaker", "1"], ["--speaker", "²"], ["--speaker", "11"], ["--alive", "1,2,3,7"],
         ["--alive", ""], ["--nominated", "7"], ["--already-nominated-by-speaker"], ["--limit", "5"],
         ["--limit", "nan"], ["--limit", "inf"], ["--limit", "1e-300"], ["--explain"],
         ["--ruleset", "classic"], ["--ruleset", "ua-club"], ["--ruleset", "city"],
         ["--set", "nomination_pause=nan"], ["--set", "required_fillers=кандидатуру,игрока"]]


def _phrase_argv(rng: random.Random, folder: Path) -> tuple[list[str], str]:
    flags = [part for _ in range(rng.randrange(3)) for part in rng.choice(FLAGS)]
    if rng.random() < 0.5:
        tokens = [rng.choice(WORDS + TOKENS) if rng.random() < 0.8 else rng.choice(TOKENS)
                  for _ in range(rng.randrange(0, 9))]
        return ["check-phrase", "--text", " ".join(tokens), *flags], ""
    words, clock = [], 0.0
    for _ in range(rng.randrange(0, 8)):
        start = clock + rng.choice([0.1, 0.1, 2.0, 11.0])
        words.append({"word": rng.choice(WORDS), "start": round(start, 3), "end": round(start + 0.3, 3)})
        clock = start + 0.3
    text = json.dumps({"words": words}, ensure_ascii=False)
    if words and rng.random() < 0.7:
        text = _mutate_json(text, rng)
    if rng.random() < 0.15:
        text = rng.choice([DEEP, "[" * 100000, '{"words": ' + "[" * 5000, '{"result": [{"word": "x"}]}',
                           '[{"text": ""}, 7]', text[: len(text) // 2], "\xff\xfe"])
    if rng.random() < 0.3:
        path = folder / "speech.json"
        path.write_text(text, "utf-8", errors="surrogatepass")
        return ["check-phrase", str(path), *flags], ""
    return ["check-phrase", "-", *flags], text


def test_mutated_check_phrase_inputs_exit_0_with_events_or_2_with_one_line(tmp_path):
    rng = random.Random(8)
    failures = []
    outcomes = {0: 0, 2: 0}
    for _ in range(PHRASES):
        argv, stdin = _phrase_argv(rng, tmp_path)
        code, out, err = call(argv, stdin)
        problem = ""
        if code == 0:
            try:
                events = [json.loads(line) for line in out.splitlines()]
            except ValueError:
                problem = f"exit 0 with output that is not JSON Lines: {out[:200]!r}"
            else:
                if any(not isinstance(e, dict) or "type" not in e for e in events):
                    problem = f"exit 0 with events without a type: {out[:200]!r}"
        elif code == 2:
            if out or err.count("\n") != 1 or "Traceback" in err:
                problem = f"exit 2 but not one line: {err[:300]!r}"
        else:
            problem = "hung" if code == -1 else f"exit {code}: {err.strip()[:300]!r}"
        if problem:
            failures.append(f"{argv!r} stdin={stdin[:120]!r}: {problem}")
        else:
            outcomes[code] += 1
    print(f"check-phrase fuzz: {outcomes}")
    assert outcomes[0] > 200 and outcomes[2] > 100, outcomes
    assert not failures, f"{len(failures)} of {PHRASES} inputs misbehaved:\n" + "\n".join(failures[:15])
