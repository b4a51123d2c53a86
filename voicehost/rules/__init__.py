"""Rulesets as data: presets.toml holds them, RuleOptions types and checks them."""
from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any, get_type_hints

from voicehost.errors import ConfigError, DataError
from voicehost.paths import PRESETS
from voicehost.tomlio import TomlTable, coerce, read_toml


class GameKind(StrEnum):
    """Which game the table plays (the variant is chosen by it)."""
    SPORTS = "sports"
    CITY = "city"


class FirstDayVote(StrEnum):
    """The first day's vote: as any day, none at all, or only a lift."""
    NORMAL = "normal"
    NONE = "none"
    LIFT_ONLY = "lift_only"


class LaterSingleNominee(StrEnum):
    """A lone nominee after day 1: voted on, or leaves without a vote."""
    VOTE = "vote"
    LEAVES = "leaves"


class QuietRounds(StrEnum):
    """Three rounds with nobody removed: the red team wins, a draw, or nothing."""
    RED_WIN = "red_win"
    DRAW = "draw"
    OFF = "off"


class Silence(StrEnum):
    """A silenced player's speech: skipped, or a short one."""
    SKIP = "skip"
    SHORT_SPEECH = "short_speech"


class RemovalCancelsVote(StrEnum):
    """Which vote a removal for fouls cancels: the same day's, or the nearest."""
    SAME_DAY = "same_day"
    NEAREST = "nearest"


# The rule options that are a choice, each with its enum (its values, in order,
# are the choices the error lists).
CHOICE_ENUMS: dict[str, type[StrEnum]] = {
    "game": GameKind,
    "first_day_vote": FirstDayVote,
    "later_single_nominee": LaterSingleNominee,
    "quiet_rounds": QuietRounds,
    "silence": Silence,
    "removal_cancels_vote": RemovalCancelsVote,
}
CHOICES: dict[str, tuple[str, ...]] = {
    key: tuple(member.value for member in enum) for key, enum in CHOICE_ENUMS.items()}


@dataclass(frozen=True)
class RuleOptions:
    name: str
    game: GameKind
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
    announce_names: bool
    required_fillers: tuple[str, ...]
    first_day_vote: FirstDayVote
    later_single_nominee: LaterSingleNominee
    quiet_rounds: QuietRounds
    silence: Silence
    silenced_speech_seconds: float
    silenced_speech_seconds_few: float
    removal_cancels_vote: RemovalCancelsVote
    check_out_seats: bool
    sheriff_best_move: bool
    everyone_tied_means_night: bool
    no_revote_at_alive: int

    def with_overrides(self, overrides: TomlTable, where: str = "--set") -> RuleOptions:
        return dataclasses.replace(self, **_checked(overrides, where))

    def to_json(self) -> TomlTable:
        data = dataclasses.asdict(self)
        data["required_fillers"] = list(self.required_fillers)
        for key in CHOICE_ENUMS:
            data[key] = str(data[key])   # plain text in the JSON, as before the enums
        return data


_HINTS = get_type_hints(RuleOptions)
KEYS = tuple(f.name for f in dataclasses.fields(RuleOptions) if f.name != "name")


# Durations that may be 0: it turns the announcement off.
MAY_BE_ZERO = frozenset({"warning_seconds"})
# Seconds must stay below this: a day of speech is already absurd, and a
# larger value (1e300) would make every deadline sum lose its precision.
MAX_SECONDS = 86400.0
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _coerce(key: str, value: Any, where: str) -> Any:
    hint = _HINTS[key]
    choice = CHOICE_ENUMS.get(key)
    value = coerce(value, str if choice else hint, f"{where}: '{key}'")
    if hint is float:
        if key in MAY_BE_ZERO and not 0 <= value <= MAX_SECONDS:
            raise ConfigError(f"{where}: '{key}' must be 0 (off) or a number of seconds up to "
                              f"{MAX_SECONDS:g}, got {value}")
        if key not in MAY_BE_ZERO and not 0 < value <= MAX_SECONDS:
            raise ConfigError(f"{where}: '{key}' must be more than 0 seconds and at most "
                              f"{MAX_SECONDS:g}, got {value}")
    if hint is int and not 0 <= value <= 100:
        raise ConfigError(f"{where}: '{key}' must be a whole number from 0 to 100, got {value}")
    if key in ("grammar", "phrasebook", "language") and not NAME.match(value):
        raise ConfigError(f"{where}: '{key}' must be a plain name (letters, digits, '.', '-', '_'), "
                          f"got {value!r}")
    if key == "confirmation":
        try:
            value.format(seat=7)
        except (KeyError, IndexError, ValueError, AttributeError):
            raise ConfigError(f"{where}: 'confirmation' may use only {{seat}}, got {value!r}") from None
    if key == "required_fillers" and any(not w.strip() for w in value):
        raise ConfigError(f"{where}: 'required_fillers' must be words, got {list(value)!r}")
    if choice is not None:
        if value not in CHOICES[key]:
            raise ConfigError(f"{where}: '{key}' must be one of {', '.join(CHOICES[key])}, got {value!r}")
        return choice(value)
    return value


def _checked(values: TomlTable, where: str) -> TomlTable:
    out = {}
    for key, value in values.items():
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown rules setting '{key}'")
        out[key] = _coerce(key, value, where)
    return out


@lru_cache(maxsize=1)
def _presets() -> dict[str, TomlTable]:
    return read_toml(PRESETS, "ruleset presets file", DataError)


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


def parse_set(pairs: list[str]) -> TomlTable:
    """`--set KEY=VALUE` pairs; VALUE is read as TOML, or as text if that fails."""
    out: TomlTable = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set takes KEY=VALUE, got {pair!r}")
        if key not in KEYS:
            raise ConfigError(f"--set: unknown rules setting '{key}'")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except (tomllib.TOMLDecodeError, RecursionError):
            value = raw
        if _HINTS[key] == tuple[str, ...] and isinstance(value, str):
            value = [w for w in value.replace(",", " ").split() if w]
        out[key] = value
    return out


def rules_for(name: str, overrides: TomlTable | None = None, where: str = "--set") -> RuleOptions:
    if not isinstance(name, str):
        raise ConfigError(f"{where}: the ruleset must be a name, got {name!r}")
    rules = load_preset(name)
    return rules.with_overrides(overrides, where) if overrides else rules


__all__ = ["RuleOptions", "rules_for", "parse_set", "preset_names", "load_preset", "CHOICES", "KEYS",
           "CHOICE_ENUMS", "GameKind", "FirstDayVote", "LaterSingleNominee", "QuietRounds", "Silence",
           "RemovalCancelsVote"]
