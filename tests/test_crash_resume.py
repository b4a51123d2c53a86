"""Crash-safe resume: a typed game is killed with SIGKILL at random points and
resumed from its journal each time; it must end exactly like the same game
played without a crash. An input the table acknowledged is never lost."""
from __future__ import annotations

import json
import os
import random
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

LINES = [
    "/roles d4 m2 m7 s6", "<80>",
    "выставляю седьмого спасибо", "выставляю третьего спасибо",
    *["/next"] * 8,
    "<3>", "/votes 7=7", "спасибо",
    "/shot 5", "<11>", "/don 6", "<10>", "/sheriff 2", "<10>", "/best 2 4 7", "спасибо",
    "выставляю четвёртого спасибо", *["/next"] * 7,
    "спасибо",
    "/shot 2", "<11>", "<25>",
]
EXPECTED_ELIMINATED = [{"seat": 7, "cause": "vote", "day": 1}, {"seat": 5, "cause": "shot", "night": 2},
                       {"seat": 4, "cause": "vote", "day": 2}, {"seat": 2, "cause": "shot", "night": 3}]


class Table:
    """A `voicehost run --text` process; every wait has a deadline."""

    def __init__(self, journal: Path, protocol: Path, resume: bool, home: Path) -> None:
        args = [sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--protocol", str(protocol)]
        args += ["--resume", str(journal)] if resume else ["--journal", str(journal)]
        env = {**os.environ, "HOME": str(home), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.output: list[str] = []
        self._pending = b""
        self.wait_status()

    def _lines(self, timeout: float):
        """Complete lines read straight from the pipe (no buffering to hide them)."""
        if self.selector.select(timeout=timeout):
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError(f"table exited: {self.proc.stderr.read().decode()}")
            self._pending += chunk
        *lines, self._pending = self._pending.split(b"\n")
        return [line.decode() for line in lines]

    def wait_status(self, timeout: float = 30.0) -> str:
        """Until the table prints its status line: the last input was taken."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self._lines(max(0.0, deadline - time.monotonic())):
                self.output.append(line)
                if line.startswith("· "):
                    return line
        raise AssertionError("no status line in time:\n" + "\n".join(self.output[-10:]))

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        status = self.wait_status()
        assert not self.output[-2].startswith("! "), self.output[-2:]
        assert status

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.selector.close()

    def quit(self) -> None:
        self.proc.stdin.write(b"/quit\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=30)
        self.selector.close()


def play(tmp: Path, name: str, kills: set[int], rng: random.Random) -> dict:
    journal, protocol = tmp / f"{name}.jsonl", tmp / f"{name}.json"
    table = Table(journal, protocol, resume=False, home=tmp)
    for index, line in enumerate(LINES):
        table.send(line)
        if index in kills:
            time.sleep(rng.uniform(0.0, 0.08))  # anywhere in the ticker's work
            table.kill()
            table = Table(journal, protocol, resume=True, home=tmp)
            assert any(line.startswith("Игра продолжена по журналу ") for line in table.output)
            if any(line.endswith("] Пауза") for line in table.output):   # a game back stands paused
                table.send("/resume")
    table.quit()
    return json.loads(protocol.read_text("utf-8"))


@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_at_random_points_loses_nothing(seed, tmp_path):
    rng = random.Random(seed)
    reference = play(tmp_path, "reference", set(), rng)
    assert reference["winner"] == "red" and reference["eliminated"] == EXPECTED_ELIMINATED
    kills = set(rng.sample(range(len(LINES) - 1), 6))
    crashed = play(tmp_path, "crashed", kills, rng)
    assert crashed == reference
