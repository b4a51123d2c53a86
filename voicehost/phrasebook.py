"""The phrasebook: every sentence the moderator speaks, every label and
refusal a player or host reads, loaded from grammars/ (ru, uk, a club's own).

The core emits keys with values (`Output`); `Phrasebook.render` turns one into
the table's words at the edge: the speaker, the terminal, the page."""
from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, cast

from voicehost.errors import DataError, VoicehostError
from voicehost.phrasedata import PhraseData, source

if TYPE_CHECKING:
    from voicehost.records import Output

PLACEHOLDERS = {"seat", "seats", "count", "seconds", "word", "pause", "limit", "day", "card",
                "input", "wanted", "total", "voters", "role", "candidates", "known", "detail"}
SECTIONS = ("say", "explain", "cards", "refuse", "inputs", "phase", "status", "floor", "status_floor")
# Values of a refusal that name an input type ("votes"): shown by the [inputs] names.
_INPUT_VALUES = ("input", "wanted")


def format_value(value: object) -> str:
    """A value as the table reads it, in every text of the phrasebook (the
    moderator's, the page's, the live table's): a list as "1, 2, 3", a number
    without a trailing ".0" (10.0 -> "10", 1.5 -> "1.5")."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# CLDR's plural categories in the order a phrase lists its forms: {count:игрок|игрока|игроков}.
PLURAL_ORDER = ("one", "few", "many", "other")


class PluralFormatter(string.Formatter):
    """str.format with plural forms: `{count} {count:игрок|игрока|игроков}`
    picks the form of `count` by the language's CLDR plural rule (Babel), so
    no phrase spells «2 игроков». Forms follow PLURAL_ORDER; a missing one is the last given."""

    def __init__(self, language: str) -> None:
        from babel import Locale  # where used: the phrase files' readers only

        self.rule = Locale.parse(language).plural_form

    def format_field(self, value: object, format_spec: str) -> str:
        if "|" not in format_spec:
            return str(super().format_field(value, format_spec))
        forms = format_spec.split("|")
        try:
            category = self.rule(abs(int(str(value))))
        except ValueError:   # no count given: the general form
            return forms[-1]
        index = PLURAL_ORDER.index(category) if category in PLURAL_ORDER else len(forms) - 1
        return forms[min(index, len(forms) - 1)]


@lru_cache(maxsize=8)
def plural_formatter(language: str) -> PluralFormatter:
    return PluralFormatter(language)


def phrase(template: str, values: Mapping[str, object], language: str) -> str:
    """A phrase's text with its values, plural forms picked for `language`."""
    return plural_formatter(language).vformat(template, (), formatted(values))


def table_of(data: Mapping[str, object], name: str) -> dict[str, object]:
    """A phrasebook's table `[name]` (none: empty), or a DataError when it is not a table."""
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise DataError(f"phrasebook: [{name}] must be a table")
    return {str(key): value for key, value in table.items()}


def texts_of(value: object) -> dict[str, str]:
    """The texts of a table of texts (what is not text is left out)."""
    return {str(k): v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}


def language_of(data: Mapping[str, object]) -> str:
    """A phrasebook's language (its `language`, a club's book inheriting it): the plural rules'."""
    language = data.get("language", "ru")
    return language if isinstance(language, str) else "ru"


def formatted(values: Mapping[str, object]) -> dict[str, str]:
    """Every value of a text's placeholders, formatted by `format_value`."""
    return {key: format_value(value) for key, value in values.items()}


@dataclass(frozen=True)
class Phrasebook:
    say: dict[str, str]
    explain: dict[str, str]
    cards: dict[str, str]
    refuse: dict[str, str]
    inputs: dict[str, str]
    phase: dict[str, str]
    status: dict[str, str]
    floor: dict[str, str]
    status_floor: dict[str, str]

    def text(self, key: str, **values: object) -> str:
        return self.say[key].format(**formatted(values))

    def explanation(self, reason: str, **values: object) -> str:
        return self.explain[reason].format(**formatted(values))

    def render(self, output: Output) -> str:
        """The words of one output, in this phrasebook's language. A `card`
        value is a role's key, read out as the phrasebook's card for it."""
        values = output.values
        if "card" in values:
            card = str(values["card"])
            values = {**values, "card": self.cards.get(card, card)}
        if output.kind == "suggest" and "word" in values:   # a forbidden word: the word heard
            return str(values["word"])
        if "explain" in values:
            rest = {k: v for k, v in values.items() if k != "explain"}
            return self.explanation(str(values["explain"]), **rest)
        if output.key == "accepted":
            return self.confirmation(cast(int, values["seat"]), str(values.get("phrase", "")))
        if output.key == "seating":   # 1.2: each seat with its player, in seat order
            return self.text("seating", detail="; ".join(self.text("seat_player", seat=seat, word=name)
                                                          for seat, name in cast("list[list[object]]",
                                                                                 values["players"])))
        if "name" in values:   # [names] announce: "…номер 3, Вера, покинул…"
            template = self.say[output.key]
            after = template.partition("{seat}")[2]
            named = f"{values['seat']}, {values['name']}" + ("," if after[:1] not in ("", ".", "?", "!", ":") else "")
            rest = {k: v for k, v in values.items() if k not in ("name", "seat")}
            return template.replace("{seat}", "{named}").format(
                named=named, **formatted(rest))
        return self.text(output.key, **values)

    def confirmation(self, seat: int, phrase: str = "") -> str:
        """An accepted nomination confirmed: the club's own phrase, or the phrasebook's."""
        return phrase.format(seat=seat) if phrase else self.text("accepted", seat=seat)

    def refusal(self, error: VoicehostError) -> str:
        """A refused input in the table's language (the English stays in the log)."""
        template = self.refuse.get(error.key)
        if template is None:
            return str(error)
        values = {k: self.inputs.get(v, v) if k in _INPUT_VALUES and isinstance(v, str)
                  else self.cards.get(v, v) if k == "card" and isinstance(v, str) else v
                  for k, v in error.values.items()}
        return template.format(**formatted(values))

    def phase_label(self, phase: str) -> str:
        return self.phase.get(phase, phase)


def _check(section: Mapping[str, object], where: str) -> dict[str, str]:
    out = {}
    for key, text in section.items():
        if not isinstance(text, str):
            raise DataError(f"{where}: '{key}' must be text")
        names = {name for _, name, _, _ in string.Formatter().parse(text) if name}
        if names - PLACEHOLDERS:
            raise DataError(f"{where}: '{key}' uses unknown placeholder(s) {sorted(names - PLACEHOLDERS)}")
        out[key] = text
    return out


def load_phrasebook(name: str = "phrasebook.ru", folder: Path | PhraseData | None = None) -> Phrasebook:
    """A phrasebook; one that `inherit`s takes its parent's sentences and overrides some.
    Read from the run's phrase data (a club's files over the shipped ones), or `folder`."""
    return _load_phrasebook(name, source(folder))


def phrasebook_data(name: str, folder: Path | PhraseData | None = None) -> Mapping[str, object]:
    """The one reading of a phrasebook file (over the one it `inherit`s), from
    which its sentences (`load_phrasebook`), the page's words (web/texts.py) and
    the live table's (live/texts.py) are taken. Shared: never modified."""
    return _phrasebook_data(name, source(folder))


@lru_cache(maxsize=8)
def _phrasebook_data(name: str, phrases: PhraseData) -> Mapping[str, object]:
    return MappingProxyType(phrases.read_inherited(name, "phrasebook"))


@lru_cache(maxsize=8)
def _load_phrasebook(name: str, phrases: PhraseData) -> Phrasebook:
    path = phrases.path(f"{name}.toml")
    data = _phrasebook_data(name, phrases)
    sections = {}
    for section in SECTIONS:
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise DataError(f"{path}: [{section}] must be a table")
        sections[section] = _check(table, str(path))
    return Phrasebook(**sections)
