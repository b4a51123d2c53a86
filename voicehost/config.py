"""config.toml: the table's settings, read into frozen dataclasses.

Unknown keys and wrong types are errors that name the key."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.errors import ConfigError
from voicehost.rules import RuleOptions, rules_for

TOP_KEYS = {"ruleset", "rules"}


@dataclass(frozen=True)
class Config:
    ruleset: str = "4mafia"
    rules_overrides: tuple[tuple[str, Any], ...] = ()

    def rules(self, name: str | None = None, extra: dict[str, Any] | None = None) -> RuleOptions:
        rules = rules_for(name or self.ruleset, dict(self.rules_overrides), where="config.toml [rules]")
        return rules.with_overrides(extra) if extra else rules


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no config file at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown setting '{unknown[0]}'")
    ruleset = data.get("ruleset", "4mafia")
    if not isinstance(ruleset, str):
        raise ConfigError(f"{path}: 'ruleset' must be text, got {ruleset!r}")
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise ConfigError(f"{path}: [rules] must be a table")
    config = Config(ruleset, tuple(overrides.items()))
    config.rules()  # every key and type is checked now, not mid-game
    return config
