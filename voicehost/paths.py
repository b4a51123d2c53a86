"""Where things live. The phrase data (grammars, number words, phrasebooks)
is the checkout's top-level grammars/, which the build maps into the package
as voicehost/grammars/ (pyproject.toml's package-dir), so a plain `pip install`
runs; the ruleset presets and the models manifest ship inside the package; the
table's own files (config.toml, models/, journals/) live in the checkout when
run from one, else in the current folder (or VOICEHOST_ROOT)."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent if (PACKAGE.parent / "pyproject.toml").is_file() else None
ROOT = Path(os.environ.get("VOICEHOST_ROOT") or CHECKOUT or Path.cwd())
# The build's own mapping, read back: grammars/ beside the package in a
# checkout (an editable install runs from it), voicehost/grammars/ in a wheel.
GRAMMARS = (CHECKOUT or PACKAGE) / "grammars"
MODELS = ROOT / "models"                    # downloaded models go here
MANIFEST = PACKAGE / "models.toml"          # what `models download` fetches (ships in the package)
PRESETS = PACKAGE / "rules" / "presets.toml"


def program() -> str:
    """`voicehost` as the user must type it here: as it was started
    (`.venv/bin/voicehost`), else the script beside this Python when no
    `voicehost` is on the PATH (a checkout's .venv), relative to the current
    folder when it is under it."""
    started = sys.argv[0] if sys.argv else ""
    if Path(started).name == "voicehost":
        return started
    script = Path(sys.prefix) / "bin" / "voicehost"
    if shutil.which("voicehost") is not None or not script.is_file():
        return "voicehost"
    try:
        return str(script.relative_to(Path.cwd()))
    except ValueError:
        return str(script)
