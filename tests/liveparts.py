"""`voicehost run` as the tests play it: typed play in this process, the
process as a host starts it (every wait with a deadline), and a whole game."""
from __future__ import annotations

import io
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

from voicehost.cli import build_parser
from voicehost.session import run

# The crash-resume test's game: red wins on night 3.
GAME = ["/roles d4 m2 m7 s6", "<80>", "выставляю седьмого спасибо", "выставляю третьего спасибо",
        *["/next"] * 8, "<3>", "/votes 7=7", "спасибо", "/shot 5", "<11>", "/don 6", "<10>", "/sheriff 2", "<10>",
        "/best 2 4 7", "спасибо", "выставляю четвёртого спасибо", *["/next"] * 7, "спасибо",
        "/shot 2", "<11>", "<25>"]


def play_typed(tmp_path: Path, lines: list[str], *extra: str) -> tuple[int, str, Path]:
    """`voicehost run --text` in this process, its stdin the given lines."""
    journal = tmp_path / "game.jsonl"
    args = build_parser().parse_args(["run", "--text", "--mute", "--journal", str(journal), *extra])
    out = io.StringIO()
    code = run(args, out, io.StringIO("".join(line + "\n" for line in lines)))
    return code, out.getvalue(), journal


class Process:
    """`voicehost run` as a host starts it; every wait has a deadline."""

    def __init__(self, *args: str, cwd: Path) -> None:
        env = {**os.environ, "HOME": str(cwd), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "voicehost", "run", "--text", "--mute", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env, cwd=cwd)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.text = ""

    def wait_for(self, needle: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text:
            assert time.monotonic() < deadline, f"no {needle!r} in time: {self.text}"
            if self.selector.select(timeout=0.1):
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"exited: {self.proc.stderr.read().decode()}"
                self.text += chunk.decode()

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def end(self, timeout: float = 15.0) -> tuple[int, str, str]:
        code = self.proc.wait(timeout=timeout)
        rest, err = self.proc.communicate(timeout=timeout)
        self.selector.close()
        return code, self.text + rest.decode(), err.decode()
