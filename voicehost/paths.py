"""Where things live. The phrase data (grammars, number words, phrasebooks)
and the ruleset presets ship inside the package, so a plain `pip install`
runs; the table's own files (config.toml, models/, journals/) live in the
checkout when run from one, else in the current folder (or VOICEHOST_ROOT)."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent if (PACKAGE.parent / "pyproject.toml").is_file() else None
ROOT = Path(os.environ.get("VOICEHOST_ROOT") or CHECKOUT or Path.cwd())
GRAMMARS = PACKAGE / "grammars"
MODELS = ROOT / "models"                    # downloaded models go here
MANIFEST = PACKAGE / "models.toml"          # what `models download` fetches (ships in the package)
PRESETS = PACKAGE / "rules" / "presets.toml"
