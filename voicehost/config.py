"""config.toml: the table's settings, read into frozen dataclasses.

Every command reads the settings the same way (`load_settings`): the file
given with --config, else config.toml in the project folder (the checkout, or
the current folder when installed with pip) if there is one, then the
ruleset and --set on top. Every value is checked when it is read: unknown
keys, wrong types, durations that are not finite and above 0, ports outside
0-65535, grammar and phrasebook names that do not load, and a club's own
phrase files (`grammars_dir`, voicehost.phrasedata). Errors name the key and
the file they come from."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, get_type_hints

from voicehost import paths, phrasedata
from voicehost.array import ArrayGeometry, parse_array, parse_seat_angles
from voicehost.channels import ChannelMap, parse_channels
from voicehost.errors import ConfigError, VoicehostError
from voicehost.paths import PRESETS
from voicehost.phrasedata import PhraseData
from voicehost.rules import RuleOptions, parse_set, rules_for
from voicehost.tomlio import TomlTable, coerce, read_toml


@dataclass(frozen=True)
class AudioSettings:
    input_device: str = ""        # microphone: name (or part of it) or index; "" = system default
    table_device: str = ""        # the table speaker; "" = system default
    earpiece_device: str = ""     # the host's earpiece; "" = none (private answers: host page only)
    channels: ChannelMap = field(default_factory=ChannelMap)   # host and seats to inputs (voicehost.channels)
    out_of_turn_ms: int = 700     # voice this long on another seat's channel during a floor: a foul suggestion
    array: ArrayGeometry | None = None   # a microphone array in the middle (voicehost.array); None: none


@dataclass(frozen=True)
class TableSettings:
    seats: dict[int, float] = field(default_factory=dict)   # each seat's direction from the array, degrees


@dataclass(frozen=True)
class AsrSettings:
    model: str = ""               # "" = the table language's model from `voicehost models download`
    mode: str = "auto"            # auto | grammar | open (voicehost.asr.choose_listening)
    stable_ms: int = 100          # take a word from the text partial once stable this long
    listen_lag: float = 1.0       # the game clock runs this far behind the microphone
    low_latency: bool = True      # load the model with a short partial-lattice delay
    endpoint_ms: int = 250        # trailing silence that ends an utterance (endpoint rule 2)
    captions: str = "auto"        # auto | on | off: an open recognizer beside the grammar one
    #                               (voicehost.asr.choose_captions; a TOML true/false means on/off)


@dataclass(frozen=True)
class TtsSettings:
    voice: str = ""               # a Piper voice; "" = the table language's; missing -> espeak-ng
    espeak_voice: str = ""        # "" = the ruleset's language
    echo_tail: float = 0.3        # ignore what is heard this long after we stop speaking


@dataclass(frozen=True)
class WebSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    allowed_hosts: tuple[str, ...] = ()   # extra Host names to accept (a DNS name for the device)
    overlay_delay: float = 60.0           # the stream overlay's roles mode runs this many seconds late


@dataclass(frozen=True)
class NamesSettings:
    announce: bool = False        # "Слово игроку номер 3, Алиса": the seat's player named after it


@dataclass(frozen=True)
class HostSettings:
    # SPEC §7.2: with one microphone, an utterance that starts with this word is
    # the host's command, said back aloud; "" = no spoken commands on a shared microphone.
    wake_word: str = ""


@dataclass(frozen=True)
class Config:
    ruleset: str = "4mafia"
    journal_dir: str = "journals"
    series_dir: str = "series"
    rules_overrides: tuple[tuple[str, object], ...] = ()
    audio: AudioSettings = field(default_factory=AudioSettings)
    asr: AsrSettings = field(default_factory=AsrSettings)
    tts: TtsSettings = field(default_factory=TtsSettings)
    web: WebSettings = field(default_factory=WebSettings)
    names: NamesSettings = field(default_factory=NamesSettings)
    host: HostSettings = field(default_factory=HostSettings)
    table: TableSettings = field(default_factory=TableSettings)
    source: str = ""              # the file these settings came from ("" = the defaults)
    grammars_dir: str = ""        # a club's phrase files; "" = grammars/ beside the file, if any
    phrases: PhraseData = field(default_factory=PhraseData)   # the shipped files, the club's over them

    def rules(self, name: str | None = None, extra: TomlTable | None = None) -> RuleOptions:
        where = f"{self.source} [rules]" if self.source else "[rules]"
        overrides = dict(self.rules_overrides)
        if self.names.announce:
            overrides.setdefault("announce_names", True)
        name = name or self.ruleset
        rules = rules_for(name, overrides, where=where)
        check_phrase_data(rules, where if overrides else f"{PRESETS} [{name}]")
        if not extra:
            return rules
        rules = rules.with_overrides(extra)
        check_phrase_data(rules, "--set")
        return rules

    def path(self, value: str) -> Path:
        """Relative paths in the config are relative to the project folder."""
        path = Path(value).expanduser()
        return path if path.is_absolute() else paths.ROOT / path

    def model_dir(self, language: str) -> Path:
        """The Vosk model folder: `[asr] model`, or when it is empty the default
        model of the table's language (ua-club: the Ukrainian one) in models/."""
        return self._asset("asr", self.asr.model, language)

    def voice_file(self, language: str) -> Path:
        """The Piper voice: `[tts] voice`, or when it is empty the table language's default voice."""
        return self._asset("voice", self.tts.voice, language)

    def _asset(self, kind: str, value: str, language: str) -> Path:
        if value:
            return self.path(value)
        from voicehost.models import DownloadError, default_path

        try:
            return default_path(kind, language, paths.MODELS)
        except DownloadError as exc:
            key = "[asr] model" if kind == "asr" else "[tts] voice"
            raise ConfigError(f"{key} is empty and {exc}: name one in config.toml") from None


SECTIONS = {"audio": AudioSettings, "asr": AsrSettings, "tts": TtsSettings, "web": WebSettings,
            "names": NamesSettings, "host": HostSettings, "table": TableSettings}
CHOICES = {("asr", "mode"): ("auto", "grammar", "open"), ("asr", "captions"): ("auto", "on", "off")}
SWITCHES = {("asr", "captions")}  # choices where a TOML boolean means "on" or "off"
PARSERS: dict[tuple[str, str], Callable[[object, str], object]] = {
    ("audio", "channels"): parse_channels, ("audio", "array"): parse_array, ("table", "seats"): parse_seat_angles}
# (section, key): (lowest, highest) for numbers
RANGES: dict[tuple[str, str], tuple[float, float]] = {
    ("web", "port"): (0, 65535),
    ("web", "overlay_delay"): (0.0, 3600.0),
    ("asr", "stable_ms"): (0, 10_000),
    ("audio", "out_of_turn_ms"): (100, 60_000),
    ("asr", "endpoint_ms"): (50, 10_000),
    ("asr", "listen_lag"): (0.0, 30.0),
    ("tts", "echo_tail"): (0.0, 30.0),
}


def _section(cls: type, data: Any, name: str, where: Path | str) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: [{name}] must be a table")
    hints = get_type_hints(cls)
    values = {}
    for key, value in data.items():
        if key not in hints:
            raise ConfigError(f"{where}: unknown setting '{key}' in [{name}]")
        if (name, key) in SWITCHES and isinstance(value, bool):
            value = "on" if value else "off"
        if (name, key) in CHOICES and value not in CHOICES[(name, key)]:  # any type: the choices named
            raise ConfigError(f"{where}: [{name}] '{key}' must be one of {', '.join(CHOICES[(name, key)])}, "
                              f"got {value!r}")
        if (name, key) in PARSERS:
            values[key] = PARSERS[(name, key)](value, f"{where}: [{name}] {key}")
            continue
        value = coerce(value, hints[key], f"{where}: [{name}] '{key}'")
        if (name, key) in RANGES:
            low, high = RANGES[(name, key)]
            if not low <= value <= high:
                raise ConfigError(f"{where}: [{name}] '{key}' must be from {low:g} to {high:g}, got {value!r}")
        values[key] = value
    return cls(**values)


REFERENCE_PHRASEBOOK = "phrasebook.ru"   # the complete one: every other has its keys


def check_phrase_data(rules: RuleOptions, where: str) -> None:
    """The grammar and the phrasebook `rules` name load (from the run's phrase
    data), and the phrasebook has every sentence the game may say: a wrong name
    fails where the rules are read (the settings, --set, a journal's header),
    not mid-game. The rules themselves are data and load no phrase files."""
    _check_data(rules.grammar, rules.phrasebook, where, phrasedata.active())


@lru_cache(maxsize=32)
def _check_data(grammar: str, phrasebook: str, where: str, phrases: phrasedata.PhraseData) -> None:
    from voicehost.phrasebook import load_phrasebook
    from voicehost.phrases.grammar import load_grammar

    for key, name, load in (("grammar", grammar, load_grammar), ("phrasebook", phrasebook, load_phrasebook)):
        try:
            loaded = load(name, phrases)
        except (VoicehostError, KeyError, TypeError, ValueError) as exc:
            detail = str(exc) if isinstance(exc, VoicehostError) else f"lacks {exc}"
            raise ConfigError(f"{where}: '{key}' = {name!r} does not load: {' '.join(detail.split())}") from None
        if key == "phrasebook":
            reference = load_phrasebook(REFERENCE_PHRASEBOOK, phrases)
            for section in ("say", "explain"):
                missing = sorted(set(getattr(reference, section)) - set(getattr(loaded, section)))
                if missing:
                    raise ConfigError(f"{where}: 'phrasebook' = {name!r} is not a phrasebook: "
                                      f"[{section}] lacks {', '.join(missing[:5])}"
                                      f"{' …' if len(missing) > 5 else ''}")


def load_phrase_file(data: PhraseData, filename: str) -> None:
    """Load a phrase file as the game would, so what it says is checked now."""
    from voicehost.livetexts import live_texts
    from voicehost.phrasebook import load_phrasebook
    from voicehost.phrases.grammar import load_grammar, load_numbers
    from voicehost.phrases.host import load_host_grammar

    name = filename.removesuffix(".toml")
    what = phrasedata.kind(filename)
    if what == "number words":
        load_numbers(filename, data)
    elif what == "phrasebook":
        load_phrasebook(name, data)
        live_texts(name, data)
    elif what == "host grammar":
        load_host_grammar(name.removeprefix("host."), data)
    else:
        load_grammar(name, data)


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    data = read_toml(path)
    known = {"ruleset", "journal_dir", "series_dir", "grammars_dir", "rules", *SECTIONS}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown setting '{unknown[0]}'")
    for key in ("ruleset", "journal_dir", "series_dir", "grammars_dir"):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(f"{path}: '{key}' must be text, got {data[key]!r}")
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise ConfigError(f"{path}: [rules] must be a table")
    sections = {name: _section(cls, data.get(name, {}), name, path) for name, cls in SECTIONS.items()}
    if sections["audio"].array is not None and sections["audio"].channels.on:
        # an array hears the whole table through its own mics, the host too (after [host] wake_word)
        raise ConfigError(f"{path}: [audio] array and [audio] channels both map the microphones (an array hears "
                          "the host too, after [host] wake_word): keep one of them")
    config = Config(data.get("ruleset", "4mafia"), data.get("journal_dir", "journals"),
                    data.get("series_dir", "series"), tuple(overrides.items()), **sections, source=str(path),
                    grammars_dir=data.get("grammars_dir", ""))
    phrases = PhraseData(club=phrasedata.club_folder(path, config.grammars_dir, config.path))
    phrasedata.check_club(phrases, load_phrase_file)   # a club's phrase files are settings too: checked now
    config = replace(config, phrases=phrases)
    try:
        with phrasedata.using(phrases):
            config.rules()  # every rules key and type is checked now, not mid-game
    except ConfigError as exc:
        message = str(exc)
        raise ConfigError(message if str(path) in message else f"{path}: {message}") from None
    return config


def default_config_path() -> Path | None:
    """config.toml in the project folder, if there is one."""
    path = paths.ROOT / "config.toml"
    return path if path.is_file() else None


def load_settings(config: Path | None, ruleset: str | None = None,
                  overrides: Sequence[str] = ()) -> tuple[Config, RuleOptions]:
    """The one settings loader of every command: the config file, then the
    ruleset and `--set KEY=VALUE` pairs on top. Every phrase loader reads the
    settings' phrase data from now on (a club's files over the shipped ones)."""
    settings = load_config(config if config is not None else default_config_path())
    phrasedata.use(settings.phrases)
    return settings, settings.rules(ruleset, parse_set(list(overrides)))


__all__ = ["Config", "load_config", "load_settings", "default_config_path"]
