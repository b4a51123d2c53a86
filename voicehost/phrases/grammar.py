"""Grammar files (grammars/<lang>.toml) loaded into typed, validated objects."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz, process

from voicehost.errors import DataError
from voicehost.phrasedata import PhraseData, source

_EDGE_PUNCT = re.compile(r"^[^\w%№']+|[^\w%№']+$")
# Digits, "№7", and digits with an ordinal ending as people type them ("7-го", "7й").
MEMO_WORDS = 20_000   # distinct words remembered per grammar
_NUMBERED = re.compile(r"^№?([0-9]+)(?:-?(?:й|я|е|го|му|м|ой|ую|ый|ого|ому|ым|ом|ая|ое|ые|ых|ю))?$")


@lru_cache(maxsize=8192)
def normalize(word: str) -> str:
    """Lower case, "ё" as "е", typographic apostrophe as "'", edge punctuation off."""
    word = word.lower().replace("ё", "е").replace("’", "'").replace("ʼ", "'")
    return _EDGE_PUNCT.sub("", word)


def as_said(word: str) -> str:
    """A word for display: as spoken, without the punctuation around it."""
    return _EDGE_PUNCT.sub("", word) or word


class Kind(Enum):
    """What a word is to the nomination rules."""

    TRIGGER = "trigger"
    WRONG_FORM = "wrong_form"
    NUMBER = "number"
    FILLER = "filler"
    OTHER = "other"


@dataclass(frozen=True)
class ForbiddenRule:
    clause: str
    suggest: str
    prefixes: tuple[str, ...]
    words: tuple[str, ...]
    contains: tuple[str, ...]
    phrases: tuple[str, ...] = ()

    def matches(self, word: str) -> bool:
        return (
            word in self.words
            or word.startswith(self.prefixes)
            or any(part in word for part in self.contains)
        )


@dataclass(frozen=True)
class Grammar:
    language: str
    trigger: str
    wrong_forms: frozenset[str]
    fillers: tuple[str, ...]
    fuzzy_score: float
    fuzzy_min_length: int
    thanks: frozenset[str]
    passes: frozenset[str]
    question_address: tuple[str, ...]
    question_subject: tuple[str, ...]
    question_window: int
    # Whole words of the question, for a recognizer that hears only listed words.
    question_words: tuple[str, ...]
    forbidden: tuple[ForbiddenRule, ...]
    numbers: dict[str, int]
    # What a word is to the rules, worked out once per word (a replay hears thousands of "[unk]").
    _kinds: dict[str, Kind] = field(default_factory=dict, compare=False, repr=False)
    _forbidden: dict[str, ForbiddenRule | None] = field(default_factory=dict, compare=False, repr=False)

    def number(self, word: str) -> int | None:
        """The seat number a word names: 1..10, 0 for any other number, None if none."""
        if word in self.numbers:
            return self.numbers[word]
        digits = _NUMBERED.match(word)
        if digits:
            # ASCII digits only ("٣" is no seat), never converted when too long to be one
            text = digits.group(1)
            value = int(text) if len(text) <= 4 else 0
            return value if 1 <= value <= 10 else 0
        return None

    def kind(self, word: str) -> Kind:
        """Classify a normalised word; the trigger and the number are never fuzzy."""
        known = self._kinds.get(word)
        if known is None:
            known = self._kind(word)
            if len(self._kinds) < MEMO_WORDS:
                self._kinds[word] = known
        return known

    def _kind(self, word: str) -> Kind:
        if word == self.trigger:
            return Kind.TRIGGER
        if word in self.wrong_forms:
            return Kind.WRONG_FORM
        if self.number(word) is not None:
            return Kind.NUMBER
        if word in self.fillers or self._fuzzy_filler(word):
            return Kind.FILLER
        return Kind.OTHER

    def _fuzzy_filler(self, word: str) -> bool:
        if len(word) < self.fuzzy_min_length:
            return False
        return _fuzzy_match(word, self.fillers, self.fuzzy_score)

    def reacts_to(self, word: str) -> bool:
        """Whether the speech rules treat `word` (as heard) otherwise than any
        unknown word ("[unk]"): the listener (voicehost.phrases.listener) looks
        at a word's text only through these tests, so a word for which this
        is False can be heard as "[unk]" with its times and nothing changes."""
        text = normalize(word)
        if not text:
            return True   # a word of punctuation alone is passed over, unlike "[unk]"
        return (self.kind(text) is not Kind.OTHER
                or text in self.thanks or text in self.passes
                or text.startswith(self.question_address) or text.startswith(self.question_subject)
                or self.forbidden_rule(text) is not None
                or any(text in phrase.split() for rule in self.forbidden for phrase in rule.phrases))

    def forbidden_rule(self, word: str) -> ForbiddenRule | None:
        if word in self._forbidden:
            return self._forbidden[word]
        found = next((rule for rule in self.forbidden if rule.matches(word)), None)
        if len(self._forbidden) < MEMO_WORDS:
            self._forbidden[word] = found
        return found

    def forbidden_phrase(self, previous: str, word: str) -> ForbiddenRule | None:
        """A two-word phrase ("честное слово") ending with `word`."""
        pair = f"{previous} {word}"
        for rule in self.forbidden:
            if pair in rule.phrases:
                return rule
        return None


@lru_cache(maxsize=4096)
def _fuzzy_match(word: str, choices: tuple[str, ...], score: float) -> bool:
    long_choices = [c for c in choices if len(c) >= 4]
    return process.extractOne(word, long_choices, scorer=fuzz.ratio, score_cutoff=score) is not None


def _strings(table: Mapping[str, object], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(f"{where}: '{key}' must be a list of strings")
    return tuple(normalize(v) if v not in ("%", "№") else v for v in value)


def load_numbers(filename: str, folder: Path | PhraseData | None = None) -> dict[str, int]:
    """A number-words file (numbers.<lang>.toml): each word with the seat it names."""
    data = source(folder)
    path = data.path(filename)
    numbers: dict[str, int] = {}
    for key, forms in data.read(filename, "number words").items():
        seat = int(key) if key.isascii() and key.isdigit() else 0
        if not isinstance(forms, dict):
            raise DataError(f"{path}: [{key}] must be a table of cardinal and ordinal words")
        if not 1 <= seat <= 10:
            raise DataError(f"{path}: seat [{key}] is outside 1..10")
        for word in _strings(forms, "cardinal", f"{path} [{key}]") + _strings(
            forms, "ordinal", f"{path} [{key}]"
        ):
            if numbers.get(word, seat) != seat:
                raise DataError(f"{path}: '{word}' names both {numbers[word]} and {seat}")
            numbers[word] = seat
    return numbers


def _numbers_file(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.endswith(".toml") or Path(value).name != value:
        raise DataError(f"{where}: 'numbers' must name a number-words file beside it, got {value!r}")
    return value


def load_grammar(name: str = "ru", folder: Path | PhraseData | None = None) -> Grammar:
    """A grammar (over the file it `inherit`s from): the run's phrase data, or `folder`'s."""
    return _load_grammar(name, source(folder))


@lru_cache(maxsize=8)
def _load_grammar(name: str, phrases: PhraseData) -> Grammar:
    path = phrases.path(f"{name}.toml")
    data = phrases.read_inherited(name, "grammar")
    nom, end, question = data["nomination"], data["speech_end"], data["host_question"]
    where = str(path)
    forbidden = tuple(
        ForbiddenRule(
            clause=str(rule["clause"]),
            suggest=str(rule["suggest"]),
            prefixes=_strings(rule, "prefixes", where),
            words=_strings(rule, "words", where),
            contains=_strings(rule, "contains", where),
            phrases=tuple(" ".join(normalize(w) for w in p.split()) for p in _strings(rule, "phrases", where)),
        )
        for rule in data.get("forbidden", [])
    )
    for rule in forbidden:
        if rule.suggest not in ("foul", "disqualify"):
            raise DataError(f"{where}: forbidden rule {rule.clause} suggests '{rule.suggest}'")
    address, subject = _strings(question, "address", where), _strings(question, "subject", where)
    question_words = _strings(question, "words", where)
    for word in question_words:
        if not word.startswith(address + subject):
            raise DataError(f"{where}: [host_question] word '{word}' starts with none of address or subject")
    return Grammar(
        language=data["language"],
        trigger=normalize(nom["trigger"]),
        wrong_forms=frozenset(_strings(nom, "wrong_forms", where)),
        fillers=_strings(nom, "fillers", where),
        fuzzy_score=float(nom.get("fuzzy_score", 84.0)),
        fuzzy_min_length=int(nom.get("fuzzy_min_length", 5)),
        thanks=frozenset(_strings(end, "thanks", where)),
        passes=frozenset(_strings(end, "pass", where)),
        question_address=address,
        question_subject=subject,
        question_window=int(question.get("window", 6)),
        question_words=question_words,
        forbidden=forbidden,
        numbers=load_numbers(_numbers_file(data.get("numbers"), where), phrases),
    )
