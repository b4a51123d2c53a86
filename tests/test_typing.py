"""The pure core is type-checked strictly (pyproject.toml [tool.mypy]): the
game and the phrase rules, with the city variant under the same rules."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_core_is_clean_under_mypy_strict():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "voicehost/game", "voicehost/phrases"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_type_ignore_in_the_core():
    sources = [*ROOT.joinpath("voicehost", "game").rglob("*.py"), *ROOT.joinpath("voicehost", "phrases").rglob("*.py")]
    marked = [str(p.relative_to(ROOT)) for p in sources if "type: ignore" in p.read_text("utf-8")]
    assert marked == []
