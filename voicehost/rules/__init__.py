"""Rulesets as data: presets.toml holds them, RuleOptions types and checks them."""
from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, get_type_hints

from voicehost.errors import ConfigError, DataError
from voicehost.paths import PRESETS

CHOICES: dict[str, tuple[str, ...]] = {
    "game": ("sports", "city"),
    "first_day_vote": ("normal", "none", "lift_only"),
    "later_single_nominee": ("vote", "leaves"),
    "quiet_rounds": ("red_win", "draw", "off"),
    "silence": ("skip", "short_speech"),
    "removal_cancels_vote": ("same_day", "nearest"),
}


@dataclass(frozen=True)
class RuleOptions:
    name: str
    game: str
    language: str
    grammar: str
    phrasebook: str
    speech_seconds: float
    tie_speech_seconds: float
    last_word_seconds: float
    warning_seconds: float
    pass_silence: float
    nomination_pause: float
    mafia_meet_seconds: float
    don_seconds: float
    sheriff_seconds: float
    vote_seconds: float
    number_call_seconds: float
    confirm_nominations: bool
    confirmation: str
    explain_rejections: bool
    required_fillers: tuple[str, ...]
    first_day_vote: str
    later_single_nominee: str
    quiet_rounds: str
    silence: str
    silenced_speech_seconds: float
    silenced_speech_seconds_few: float
    removal_cancels_vote: str
    check_out_seats: bool
    sheriff_best_move: bool
    everyone_tied_means_night: bool
    no_revote_at_alive: int

    def with_overrides(self, overrides: dict[str, Any], where: str = "--set") -> RuleOptions:
        return dataclasses.replace(self, **_checked(overrides, where))

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["required_fillers"] = list(self.required_fillers)
        return data


_HINTS = get_type_hints(RuleOptions)
KEYS = tuple(f.name for f in dataclasses.fields(RuleOptions) if f.name != "name")


def _type_name(hint: Any) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(
        hint, "a list of words"
    )


def _coerce(key: str, value: Any, where: str) -> Any:
    hint = _HINTS[key]
    ok = {
        bool: isinstance(value, bool),
        int: isinstance(value, int) and not isinstance(value, bool),
        float: isinstance(value, (int, float)) and not isinstance(value, bool),
        str: isinstance(value, str),
    }.get(hint)
    if ok is None:  # tuple[str, ...]
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    if not ok:
        raise ConfigError(f"{where}: '{key}' must be {_type_name(hint)}, got {value!r}")
    if hint is float:
        value = float(value)
        if value < 0:
            raise ConfigError(f"{where}: '{key}' must not be negative, got {value}")
    if key == "confirmation":
        try:
            value.format(seat=7)
        except (KeyError, IndexError, ValueError):
            raise ConfigError(f"{where}: 'confirmation' may use only {{seat}}, got {value!r}") from None
    if key in CHOICES and value not in CHOICES[key]:
        raise ConfigError(f"{where}: '{key}' must be one of {', '.join(CHOICES[key])}, got {value!r}")
    return value


def _checked(values: dict[str, Any], where: str) -> dict[str, Any]:
    out = {}
    for key, value in values.items():
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown rules setting '{key}'")
        out[key] = _coerce(key, value, where)
    return out


@lru_cache(maxsize=1)
def _presets() -> dict[str, dict[str, Any]]:
    try:
        data = tomllib.loads(PRESETS.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataError(f"{PRESETS}: {exc}") from exc
    return data


def preset_names() -> list[str]:
    return [name for name in _presets() if name != "defaults"]


def load_preset(name: str) -> RuleOptions:
    presets = _presets()
    if name not in presets or name == "defaults":
        raise ConfigError(f"unknown ruleset '{name}' (known: {', '.join(preset_names())})")
    values = {**presets["defaults"], **presets[name]}
    missing = set(KEYS) - values.keys()
    if missing:
        raise DataError(f"{PRESETS}: [defaults] lacks {', '.join(sorted(missing))}")
    return RuleOptions(name=name, **_checked(values, f"{PRESETS} [{name}]"))


def parse_set(pairs: list[str]) -> dict[str, Any]:
    """`--set KEY=VALUE` pairs; VALUE is read as TOML, or as text if that fails."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set takes KEY=VALUE, got {pair!r}")
        if key not in KEYS:
            raise ConfigError(f"--set: unknown rules setting '{key}'")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        if _HINTS[key] is tuple[str, ...] and isinstance(value, str):
            value = [w for w in value.replace(",", " ").split() if w]
        out[key] = value
    return out


def rules_for(name: str, overrides: dict[str, Any] | None = None, where: str = "--set") -> RuleOptions:
    rules = load_preset(name)
    return rules.with_overrides(overrides, where) if overrides else rules


__all__ = ["RuleOptions", "rules_for", "parse_set", "preset_names", "load_preset", "CHOICES", "KEYS"]
