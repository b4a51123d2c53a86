"""Which recognizer the table listens with: the one place that decides
grammar vs open (`choose_listening`), the grammar's phrase list, the rule
words a model cannot hear, and the fillers a model without [unk] lends a
grammar."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from voicehost.asr.model_files import AsrError
from voicehost.phrases.grammar import Grammar


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


def filler_split(grammar: Grammar | None, words: Iterable[str], rule_words: Iterable[str]) -> \
        tuple[list[str], list[str]]:
    """A model's frequent words for a grammar without [unk]: (fillers, heard):
    a word the speech rules react to (a forbidden word's other form,
    "честное") is heard as itself, any other is a filler heard as [unk]; the
    rule words themselves are neither."""
    rules = set(rule_words)
    fillers: list[str] = []
    heard: list[str] = []
    for word in words:
        if word in rules:
            continue
        (heard if grammar is not None and grammar.reacts_to(word) else fillers).append(word)
    return fillers, heard


def grammar_fillers(model_dir: Path, grammar: Grammar | None, rule_words: list[str],
                    count: int = FILLER_COUNT) -> tuple[list[str], list[str]]:
    """`filler_split` of a model's `count` most frequent words that are no rule
    words (`voicehost.vocabulary`); ([], []) when its graph cannot be read."""
    from voicehost.vocabulary import frequent_words

    fillers, heard = filler_split(grammar, frequent_words(model_dir, 2 * count, set(rule_words)), rule_words)
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
