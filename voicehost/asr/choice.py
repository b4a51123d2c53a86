"""Which recognizer the table listens with: the one place that decides
grammar vs open (`choose_listening`), the grammar's phrase list, the rule
words a model cannot hear, and the fillers a model without [unk] lends a
grammar."""
from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz import fuzz, process

from voicehost.asr.model_files import AsrError
from voicehost.phrases.grammar import Grammar, normalize


def grammar_phrases(grammar: Grammar) -> list[str]:
    """The phrase list for grammar-limited mode: every whole word the rules
    react to in speech. Forbidden words matched by a prefix or a part of a word
    ("честн…") have too many forms to list; only the open recognizer hears them."""
    words = {grammar.trigger, *grammar.wrong_forms, *grammar.fillers, *grammar.thanks, *grammar.passes,
             *grammar.numbers, *grammar.question_words}
    for rule in grammar.forbidden:
        words |= set(rule.words)
        for phrase in rule.phrases:
            words |= set(phrase.split())
    words.discard("№")
    return sorted(words)


def unheard_rule_words(grammar: Grammar, knows: Callable[[str], bool]) -> list[str]:
    """The rule words a model's vocabulary lacks (it can never hear them), the
    ones a nomination needs first: the trigger, the numbers (by seat), the
    words that end a speech, the fillers, then the rest alphabetically."""
    def rank(word: str) -> tuple[int, int, str]:
        if word == grammar.trigger:
            return (0, 0, word)
        seat = grammar.numbers.get(word)
        if seat is not None:
            return (1, seat, word)
        if word in grammar.thanks or word in grammar.passes:
            return (2, 0, word)
        if word in grammar.fillers or word in grammar.wrong_forms:
            return (3, 0, word)
        return (4, 0, word)

    return sorted((w for w in grammar_phrases(grammar) if " " not in w and not knows(w)), key=rank)


def overheard_words(grammar: Grammar, phrases: Iterable[str]) -> Callable[[str], bool]:
    """Which words the captions lend the deciding grammar recognizer
    (`CaptionedRecognizer`): a forbidden word's forms the grammar does not
    list ("честное", "клятвой"), which it can only hear as [unk]."""
    listed = frozenset(phrases)

    def overheard(word: str) -> bool:
        text = normalize(word)
        return bool(text) and text not in listed and grammar.forbidden_rule(text) is not None

    return overheard


CAPTION_CHOICES = ("auto", "on", "off")
# `[asr] captions = "auto"` runs the open recognizer beside the grammar one
# when this much memory is still available with the model loaded (it takes
# ~50-200 MB more, see `voicehost bench latency`; the voice and the page need
# the rest) and the machine has a second core for it.
CAPTIONS_MEMORY_MB = 1024
CAPTIONS_CORES = 2


def available_mb(meminfo: Path = Path("/proc/meminfo")) -> float | None:
    """The system's available memory (MemAvailable), None where it cannot be read."""
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def usable_cores() -> int:
    """The cores this process may run on (a container's share, not the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass(frozen=True)
class Captions:
    """Whether the table runs the captions recognizer, and why (for the log)."""

    on: bool
    why: str


def choose_captions(setting: str, memory_mb: float | None, cores: int) -> Captions:
    """`[asr] captions` on this machine (`available_mb`, `usable_cores`)."""
    if setting not in CAPTION_CHOICES:
        raise AsrError(f"[asr] captions must be one of {', '.join(CAPTION_CHOICES)}, got {setting!r}")
    if setting != "auto":
        return Captions(setting == "on", f"[asr] captions is {setting}")
    if memory_mb is None:
        return Captions(False, "[asr] captions is auto and the available memory cannot be read")
    if memory_mb < CAPTIONS_MEMORY_MB:
        return Captions(False, f"[asr] captions is auto and only {memory_mb:.0f} MB of memory are available "
                               f"(it wants {CAPTIONS_MEMORY_MB} MB)")
    if cores < CAPTIONS_CORES:
        return Captions(False, "[asr] captions is auto and the machine has one core")
    return Captions(True, f"[asr] captions is auto: {memory_mb:.0f} MB available, {cores} cores")


MODES = ("auto", "grammar", "open")


@dataclass(frozen=True)
class Listening:
    """Which recognizer the table listens with, and why (for the log)."""

    grammar: bool
    why: str

    @property
    def name(self) -> str:
        return "the grammar recognizer (the rule words and [unk])" if self.grammar else \
            "the open-vocabulary recognizer"


FILLER_COUNT = 400  # a model's frequent words a grammar takes as [unk] when the model has no [unk]
# A filler must be a word of its own, not a piece or a likeness of a rule word:
# a one-syllable filler ("и", the Korean particle "의") fits inside every rule
# word, so the decoder can cut a number into it and another filler ("버스" ->
# "더 [unk]"); a filler that sounds like a rule word ("семья", "выставка")
# takes that word's place. Such words are left out of the grammar altogether.
FILLER_SYLLABLES = 2
FILLER_LIKENESS = 70.0  # rapidfuzz ratio of the decomposed letters at which a word sounds like a rule word
# How many times the trigger counts in the grammar's language model (Vosk
# estimates it from the phrase list, so a phrase listed three times is three
# times as likely): at a table "выставляю" opens every nomination, each wrong
# form is a rare slip. Weighted, a partial no longer shows the trigger as a
# longer look-alike for the whole of the next word ("라디오 어제" -> "라디오쇼").
TRIGGER_WEIGHT = 3
_VOWELS = frozenset("аеёиоуыэюяіїєaeiouy")


def syllables(word: str) -> int:
    """A word's syllables: a Hangul block is one, elsewhere a vowel letter is one."""
    return sum(1 for c in word.lower() if c in _VOWELS or "\uac00" <= c <= "\ud7a3")


def _letters(word: str) -> str:
    """A word's letters decomposed (Hangul blocks into their jamo, "й" into "и" and its mark)."""
    return unicodedata.normalize("NFD", word.lower())


def filler_split(grammar: Grammar | None, words: Iterable[str], rule_words: Iterable[str],
                 alike: Iterable[str] | None = None) -> tuple[list[str], list[str]]:
    """A model's frequent words for a grammar without [unk]: (fillers, heard):
    a word the speech rules react to (a forbidden word's other form,
    "честное") is heard as itself; any other is a filler heard as [unk],
    unless it is shorter than `FILLER_SYLLABLES` or sounds like a rule word
    (`FILLER_LIKENESS`: `alike`, by default every rule word), which are left
    out; the rule words themselves are neither."""
    rules = set(rule_words)
    likeness = [_letters(w) for w in (rules if alike is None else set(alike))]
    fillers: list[str] = []
    heard: list[str] = []
    for word in words:
        if word in rules:
            continue
        if grammar is not None and grammar.reacts_to(word):
            heard.append(word)
        elif syllables(word) >= FILLER_SYLLABLES and process.extractOne(
                _letters(word), likeness, scorer=fuzz.ratio, score_cutoff=FILLER_LIKENESS) is None:
            fillers.append(word)
    return fillers, heard


def grammar_fillers(model_dir: Path, grammar: Grammar | None, rule_words: list[str],
                    count: int = FILLER_COUNT, alike: Iterable[str] | None = None) -> tuple[list[str], list[str]]:
    """`filler_split` of a model's most frequent words that are no rule words
    (`voicehost.vocabulary`), up to `count` fillers; ([], []) when its graph
    cannot be read."""
    from voicehost.vocabulary import frequent_words

    fillers, heard = filler_split(grammar, frequent_words(model_dir, 4 * count, set(rule_words)), rule_words,
                                  alike)
    return fillers[:count], heard


def choose_listening(mode: str, knows: Callable[[str], bool], fillers: int = 0) -> Listening:
    """The recognizer for `[asr] mode`: "auto" takes the grammar when the
    model can say that a sound is none of the rule words: with its [unk], or
    with `fillers` of its own frequent words that are heard as [unk]
    (`voicehost.vocabulary`); with neither, every cough would come out as the
    nearest rule word, so it listens openly. "grammar" and "open" are the
    host's own choice and are kept."""
    if mode not in MODES:
        raise AsrError(f"[asr] mode must be one of {', '.join(MODES)}, got {mode!r}")
    unk = knows("[unk]")
    if mode == "open":
        return Listening(False, "[asr] mode is open")
    if mode == "grammar":
        return Listening(True, "[asr] mode is grammar" + ("" if unk or fillers else
                         "; the model has no [unk], so any sound may be heard as a rule word"))
    if unk:
        return Listening(True, "[asr] mode is auto and the model has [unk] for every other sound")
    if fillers:
        return Listening(True, f"[asr] mode is auto and the model has no [unk]: {fillers} of its most frequent "
                               f"words that are no rule words stand for every other sound")
    return Listening(False, "[asr] mode is auto and the model has no [unk], nor a vocabulary to take fillers "
                            "from: a grammar would hear every sound as a rule word")
