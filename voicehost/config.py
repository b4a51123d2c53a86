"""config.toml: the table's settings, read into frozen dataclasses.

Unknown keys and wrong types are errors that name the key."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from voicehost.errors import ConfigError
from voicehost.paths import ROOT
from voicehost.rules import RuleOptions, rules_for


@dataclass(frozen=True)
class AudioSettings:
    input_device: str = ""        # microphone: name (or part of it) or index; "" = system default
    table_device: str = ""        # the table speaker; "" = system default
    earpiece_device: str = ""     # the host's earpiece; "" = none (private answers: host page only)


@dataclass(frozen=True)
class AsrSettings:
    model: str = "models/vosk-model-small-ru-0.22"
    mode: str = "open"            # open | grammar
    stable_ms: int = 100          # take a word from the text partial once stable this long
    listen_lag: float = 1.0       # the game clock runs this far behind the microphone
    low_latency: bool = True      # load the model with a short partial-lattice delay
    endpoint_ms: int = 250        # trailing silence that ends an utterance (endpoint rule 2)


@dataclass(frozen=True)
class TtsSettings:
    voice: str = "models/ru_RU-irina-medium.onnx"   # a Piper voice; missing -> espeak-ng
    espeak_voice: str = ""        # "" = the ruleset's language
    echo_tail: float = 0.3        # ignore what is heard this long after we stop speaking


@dataclass(frozen=True)
class WebSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    allowed_hosts: tuple[str, ...] = ()   # extra Host names to accept (a DNS name for the device)


@dataclass(frozen=True)
class Config:
    ruleset: str = "4mafia"
    journal_dir: str = "journals"
    rules_overrides: tuple[tuple[str, Any], ...] = ()
    audio: AudioSettings = field(default_factory=AudioSettings)
    asr: AsrSettings = field(default_factory=AsrSettings)
    tts: TtsSettings = field(default_factory=TtsSettings)
    web: WebSettings = field(default_factory=WebSettings)

    def rules(self, name: str | None = None, extra: dict[str, Any] | None = None) -> RuleOptions:
        rules = rules_for(name or self.ruleset, dict(self.rules_overrides), where="config.toml [rules]")
        return rules.with_overrides(extra) if extra else rules

    def path(self, value: str) -> Path:
        """Relative paths in the config are relative to the project folder."""
        path = Path(value).expanduser()
        return path if path.is_absolute() else ROOT / path


SECTIONS = {"audio": AudioSettings, "asr": AsrSettings, "tts": TtsSettings, "web": WebSettings}
CHOICES = {("asr", "mode"): ("open", "grammar")}


def _section(cls: type, data: Any, name: str, where: Path) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: [{name}] must be a table")
    hints = get_type_hints(cls)
    values = {}
    for key, value in data.items():
        if key not in hints:
            raise ConfigError(f"{where}: unknown setting '{key}' in [{name}]")
        hint = hints[key]
        if hint is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if hint == tuple[str, ...] and isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = tuple(value)
        if (isinstance(value, bool) and hint is not bool) or not isinstance(
                value, hint if isinstance(hint, type) else tuple):
            raise ConfigError(f"{where}: [{name}] '{key}' must be {getattr(hint, '__name__', hint)}, "
                              f"got {value!r}")
        if (name, key) in CHOICES and value not in CHOICES[(name, key)]:
            raise ConfigError(f"{where}: [{name}] '{key}' must be one of {', '.join(CHOICES[(name, key)])}")
        values[key] = value
    return cls(**values)


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no config file at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    known = {"ruleset", "journal_dir", "rules", *SECTIONS}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown setting '{unknown[0]}'")
    for key in ("ruleset", "journal_dir"):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(f"{path}: '{key}' must be text, got {data[key]!r}")
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise ConfigError(f"{path}: [rules] must be a table")
    sections = {name: _section(cls, data.get(name, {}), name, path) for name, cls in SECTIONS.items()}
    config = Config(data.get("ruleset", "4mafia"), data.get("journal_dir", "journals"),
                    tuple(overrides.items()), **sections)
    config.rules()  # every rules key and type is checked now, not mid-game
    return config


def default_config_path() -> Path | None:
    path = ROOT / "config.toml"
    return path if path.is_file() else None


__all__ = ["Config", "load_config", "default_config_path"]
