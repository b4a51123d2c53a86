"""Which recognizer the table listens with (`[asr] mode`), and the grammar
recognizer's phrase list against the grammar files it is made from.

The Korean test model has no [unk], so the "has [unk]" branch is exercised
here with fake vocabularies; tests/test_real_vosk.py runs "auto" on the real
model, where it falls back to the open recognizer."""
from __future__ import annotations

import logging
import tomllib

import pytest

from tests.conftest import ROOT
from voicehost.asr import MODES, AsrError, choose_listening, grammar_phrases
from voicehost.config import AsrSettings, load_config
from voicehost.errors import ConfigError
from voicehost.paths import GRAMMARS
from voicehost.phrases.grammar import load_grammar, normalize


def fake_vocabulary(*words: str):
    """A fake model vocabulary: `knows` for exactly these words."""
    return lambda word: word in words


WITH_UNK = fake_vocabulary("[unk]", "выставляю")
WITHOUT_UNK = fake_vocabulary("выставляю")


@pytest.mark.parametrize("mode,knows,fillers,grammar,why", [
    ("auto", WITH_UNK, 0, True, "has [unk]"),
    ("auto", WITHOUT_UNK, 0, False, "no [unk], nor a vocabulary"),
    ("auto", WITHOUT_UNK, 400, True, "400 of its most frequent words"),
    ("grammar", WITH_UNK, 0, True, "mode is grammar"),
    ("grammar", WITHOUT_UNK, 0, True, "no [unk], so any sound"),
    ("open", WITH_UNK, 0, False, "mode is open"),
    ("open", WITHOUT_UNK, 400, False, "mode is open"),
], ids=["auto-unk-grammar", "auto-no-unk-open", "auto-fillers-grammar", "grammar-kept", "grammar-kept-warned",
        "open-kept", "open-kept-no-unk"])
def test_mode_picks_the_recognizer(mode, knows, fillers, grammar, why):
    choice = choose_listening(mode, knows, fillers)
    assert choice.grammar is grammar and why in choice.why
    assert ("grammar" in choice.name) is grammar


def test_only_known_modes_are_taken():
    with pytest.raises(AsrError, match="must be one of auto, grammar, open"):
        choose_listening("vocabulary", WITH_UNK)
    assert MODES == ("auto", "grammar", "open")


def test_auto_is_the_default_and_what_config_toml_ships():
    assert AsrSettings().mode == "auto"
    assert load_config(ROOT / "config.toml").asr.mode == "auto"
    assert load_config(None).asr.mode == "auto"


def test_a_mode_that_does_not_exist_is_one_line_naming_the_key(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[asr]\nmode = "grammer"\n', "utf-8")
    with pytest.raises(ConfigError, match=r"\[asr\] 'mode' must be one of auto, grammar, open") as info:
        load_config(path)
    assert "\n" not in str(info.value)


class FakeModel:
    """Named a fake: stands for a Vosk model whose vocabulary has [unk]."""

    def __init__(self, words: set[str]) -> None:
        self.words = words

    def vosk_model_find_word(self, word: str) -> int:
        return 1 if word in self.words else -1


def test_the_log_says_which_recognizer_and_why(caplog, monkeypatch):
    from voicehost.asr import factory as listening  # recognizer_for and listening_recognizer live in asr/ now

    built = {}

    class Recorded:
        def __init__(self, model, *, phrases, stable_seconds, limits, meaning, fillers, weights):
            built.update(phrases=phrases, stable_seconds=stable_seconds,
                         fillers=fillers, weights=weights)

    monkeypatch.setattr(listening, "VoskRecognizer", Recorded)
    model = FakeModel({"[unk]", "выставляю"})
    with caplog.at_level(logging.INFO, logger="voicehost.asr.factory"):
        listening.listening_recognizer(model, AsrSettings(mode="auto", stable_ms=120), ["выставляю", "семь"],
                                       weights={"выставляю": 3})
    assert built == {"phrases": ["выставляю", "семь"], "stable_seconds": 0.12, "fillers": [],
                     "weights": {"выставляю": 3}}
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith("listening with the grammar recognizer") and "has [unk]" in line


# ---------------------------------------------------------------- the phrase list

def _file_words(name: str) -> dict[str, set[str]]:
    """Every whole word a grammar file (and the file it inherits) lists for
    the speech rules, read straight from the TOML, by what it is."""
    data = tomllib.loads((GRAMMARS / f"{name}.toml").read_text("utf-8"))
    parent = _file_words(data["inherit"]) if "inherit" in data else {}
    nomination = data.get("nomination", {})
    end = data.get("speech_end", {})
    question = data.get("host_question", {})
    words: dict[str, set[str]] = {
        "trigger": {nomination["trigger"]} if "trigger" in nomination else set(),
        "wrong forms": set(nomination.get("wrong_forms", [])),
        "fillers": set(nomination.get("fillers", [])) - {"№"},
        "thanks": set(end.get("thanks", [])),
        "pass": set(end.get("pass", [])),
        "host question": set(question.get("words", [])),
        "numbers": set(),
        "forbidden": set(),
    }
    if "numbers" in data:
        for forms in tomllib.loads((GRAMMARS / data["numbers"]).read_text("utf-8")).values():
            words["numbers"] |= set(forms["cardinal"]) | set(forms["ordinal"])
    if "forbidden" in data:  # a file's own rules replace the inherited ones
        words["forbidden"] = {w for rule in data["forbidden"] for w in rule.get("words", [])}
        words["forbidden"] |= {w for rule in data["forbidden"] for p in rule.get("phrases", []) for w in p.split()}
    for kind, inherited in parent.items():
        if not words[kind]:
            words[kind] = inherited
    return {kind: {normalize(w) for w in found} for kind, found in words.items()}


@pytest.mark.parametrize("name", ["ru", "uk", "ru-mafclubspb"])
def test_phrase_list_has_every_word_the_rules_react_to(name):
    phrases = set(grammar_phrases(load_grammar(name)))
    for kind, words in _file_words(name).items():
        if kind != "forbidden" or name == "ru-mafclubspb":
            assert words, (name, kind)  # every list is there to compare with
        assert words <= phrases, (name, kind, sorted(words - phrases))
    assert all(" " not in p and p for p in phrases)


def test_numbers_in_every_form_reach_the_phrase_list():
    phrases = set(grammar_phrases(load_grammar("ru")))
    assert {"семь", "седьмого", "седьмой", "десятого", "первую", "трех", "четвертому"} <= phrases
    assert {"честное", "слово", "говорю"} <= set(grammar_phrases(load_grammar("ru-mafclubspb")))
    assert {"ведущий", "выставленные"} <= phrases


def test_host_question_words_must_start_as_the_rule_reads_them(tmp_path):
    from voicehost.errors import DataError

    text = (GRAMMARS / "ru.toml").read_text("utf-8").replace('"ведущий",', '"ведомый",')
    (tmp_path / "club.toml").write_text(text, "utf-8")
    (tmp_path / "numbers.ru.toml").write_text((GRAMMARS / "numbers.ru.toml").read_text("utf-8"), "utf-8")
    with pytest.raises(DataError, match="'ведомый' starts with none of address or subject"):
        load_grammar("club", tmp_path)


# ---------------------------------------------------------------- words the model cannot hear

def test_the_rule_words_a_model_lacks_come_with_the_nominations_words_first():
    from voicehost.asr import unheard_rule_words

    grammar = load_grammar("ru")
    everything = set(grammar_phrases(grammar))
    assert unheard_rule_words(grammar, lambda w: w in everything) == []
    lacks = {"пари", "спасибо", "седьмого", "первого", "выставляю"}
    missing = unheard_rule_words(grammar, lambda w: w not in lacks)
    assert missing == ["выставляю", "первого", "седьмого", "спасибо", "пари"]
    nothing = unheard_rule_words(grammar, lambda w: False)
    assert nothing[0] == "выставляю" and set(nothing) == everything
    assert [grammar.numbers[w] for w in nothing[1:1 + len(grammar.numbers)]] == sorted(grammar.numbers.values())


def test_a_models_frequent_words_split_into_fillers_and_forms_the_rules_hear():
    from voicehost.asr import filler_split

    grammar = load_grammar("ru")
    rule_words = grammar_phrases(grammar)
    words = ["и", "выставляю", "честное", "дом", "седьмого", "честностью", "дома", "семья", "выставка",
             "погода", "третьей", "сегодня"]
    fillers, heard = filler_split(grammar, words, rule_words)
    # heard as [unk]: words of two syllables or more that sound like no rule word; "и" and "дом"
    # fit inside rule words, "семья", "выставка" and "третьей" sound like "семь", "выставляю", "третий"
    assert fillers == ["дома", "погода", "сегодня"]
    assert heard == ["честное", "честностью"]  # a forbidden word's other forms are heard as themselves


@pytest.mark.parametrize("word, count", [("и", 1), ("дом", 1), ("выставляю", 4), ("пас", 1), ("їжак", 2),
                                         ("의", 1), ("라디오", 3)])
def test_syllables_are_vowels_or_hangul_blocks(word, count):
    from voicehost.asr.choice import syllables

    assert syllables(word) == count
