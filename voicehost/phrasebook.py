"""The phrasebook: every sentence the moderator speaks, loaded from grammars/."""
from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from voicehost.errors import DataError
from voicehost.paths import GRAMMARS

PLACEHOLDERS = {"seat", "seats", "count", "seconds", "word", "pause", "limit", "day", "card"}


def _fmt(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Phrasebook:
    say: dict[str, str]
    explain: dict[str, str]
    cards: dict[str, str]

    def text(self, key: str, **values: Any) -> str:
        return self.say[key].format(**{k: _fmt(v) for k, v in values.items()})

    def explanation(self, reason: str, **values: Any) -> str:
        return self.explain[reason].format(**{k: _fmt(v) for k, v in values.items()})


def _check(section: dict[str, Any], where: str) -> dict[str, str]:
    out = {}
    for key, text in section.items():
        if not isinstance(text, str):
            raise DataError(f"{where}: '{key}' must be text")
        names = {name for _, name, _, _ in string.Formatter().parse(text) if name}
        if names - PLACEHOLDERS:
            raise DataError(f"{where}: '{key}' uses unknown placeholder(s) {sorted(names - PLACEHOLDERS)}")
        out[key] = text
    return out


@lru_cache(maxsize=8)
def load_phrasebook(name: str = "phrasebook.ru", folder: Path = GRAMMARS) -> Phrasebook:
    """A phrasebook; one that `inherit`s takes its parent's sentences and overrides some."""
    path = folder / f"{name}.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DataError(f"no phrasebook '{name}' ({path})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"{path}: {exc}") from exc
    say = _check(data.get("say", {}), str(path))
    explain = _check(data.get("explain", {}), str(path))
    cards = _check(data.get("cards", {}), str(path))
    parent = data.get("inherit")
    if parent:
        base = load_phrasebook(parent, folder)
        say, explain, cards = {**base.say, **say}, {**base.explain, **explain}, {**base.cards, **cards}
    return Phrasebook(say, explain, cards)
