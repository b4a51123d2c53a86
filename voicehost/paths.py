"""Where the committed data lives: next to the package in a checkout."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("VOICEHOST_ROOT", Path(__file__).resolve().parent.parent))
GRAMMARS = ROOT / "grammars"
MODELS = ROOT / "models"
PRESETS = Path(__file__).resolve().parent / "rules" / "presets.toml"
