"""Bench helpers from the source checkout's tools/ (they read tests/ and
../shared, which a plain pip install does not have)."""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from voicehost.errors import InputError
from voicehost.paths import ROOT

# The fixture's JSON transcript (tools/latency_fixture.py), its utterances and their words
Transcript = dict[str, Any]


def source_tool(name: str) -> ModuleType:
    """The checkout's `tools.NAME`; the `tools` package is loaded from its
    folder, so `sys.path` stays as it is."""
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
