"""The partial committer on word streams (no model): a word of a partial
counts by what it means to the rules, so a number word whose case ending is
still changing ("седьмой" -> "седьмого") is taken once its value has held,
while the trigger and its wrong forms stay apart."""
from __future__ import annotations

import pytest

from voicehost.asr import PartialCommitter, rule_meaning
from voicehost.phrases.grammar import load_grammar


@pytest.fixture(scope="module")
def meaning():
    return rule_meaning(load_grammar("ru"))


def committer(meaning) -> PartialCommitter:
    return PartialCommitter(0.1, meaning=meaning)


def test_a_number_counts_by_its_value_while_its_ending_changes(meaning):
    c = committer(meaning)
    assert [w.word for w in c.partial(["выставляю", "седьмой"], 1.00)] == ["выставляю"]
    assert c.partial(["выставляю", "седьмого"], 1.04) == []
    assert c.partial(["выставляю", "седьмому"], 1.08) == []
    (word,) = c.partial(["выставляю", "седьмого"], 1.10)  # 7 held for 0.1 s in three forms
    assert word.word == "седьмого"  # the form the partial shows when it is taken
    assert c.partial(["выставляю", "седьмого"], 1.30) == []  # taken once


def test_cardinal_and_ordinal_of_one_value_are_one_number(meaning):
    c = committer(meaning)
    c.partial(["выставляю"], 0.5)
    c.partial(["выставляю", "семь"], 1.00)
    (word,) = c.partial(["выставляю", "седьмой"], 1.10)
    assert word.word == "седьмой"


def test_a_changed_value_starts_the_window_again(meaning):
    c = committer(meaning)
    c.partial(["выставляю", "седьмой"], 1.00)
    assert c.partial(["выставляю", "восьмой"], 1.06) == []
    assert c.partial(["выставляю", "восьмого"], 1.12) == []  # 8 seen for 0.06 s only
    assert [w.word for w in c.partial(["выставляю", "восьмого"], 1.16)] == ["восьмого"]


def test_without_a_grammar_every_change_of_text_restarts_the_window():
    c = PartialCommitter(0.1)
    c.partial(["седьмой"], 1.00)
    assert c.partial(["седьмого"], 1.06) == []
    assert c.partial(["седьмого"], 1.12) == []
    assert [w.word for w in c.partial(["седьмого"], 1.16)] == ["седьмого"]


def test_the_trigger_and_a_wrong_form_are_never_the_same_word(meaning):
    c = committer(meaning)
    assert c.partial(["выставляем"], 1.00) == []
    assert c.partial(["выставляю"], 1.06) == []  # the verdict differs: the window starts again
    assert c.partial(["выставляю"], 1.12) == []
    assert [w.word for w in c.partial(["выставляю"], 1.16)] == ["выставляю"]


def test_a_wrong_form_is_never_taken_from_a_partial_the_final_decides(meaning):
    c = committer(meaning)
    assert c.partial(["выставляем"], 1.00) == []
    assert c.partial(["выставляя"], 1.06) == []  # another wrong form: the same refusal
    assert c.partial(["выставляют", "седьмого"], 1.20) == []  # the number waits with it
    assert c.partial(["выставляют", "седьмого"], 1.40) == []
    words = c.final([{"word": "выставляют", "start": 0.5, "end": 0.9},
                     {"word": "седьмого", "start": 0.95, "end": 1.3}], 1.5)
    assert [w.word for w in words] == ["выставляют", "седьмого"]  # plain words: nothing was taken


def test_a_trigger_shown_for_a_moment_as_its_wrong_form_is_taken_once_it_is_the_trigger(meaning):
    c = committer(meaning)
    assert c.partial(["выставляем"], 1.00) == []
    assert c.partial(["выставляем"], 1.20) == []
    assert [w.word for w in c.partial(["выставляю", "седьмого"], 1.24)] == ["выставляю"]
    assert [w.word for w in c.partial(["выставляю", "седьмого"], 1.34)] == ["седьмого"]


def test_a_word_the_rules_ignore_is_taken_whatever_its_ending(meaning):
    c = committer(meaning)
    c.partial(["молчал"], 1.00)
    assert [w.word for w in c.partial(["молчали"], 1.10)] == ["молчали"]


def test_a_word_that_becomes_a_rule_word_waits_its_window(meaning):
    c = committer(meaning)
    c.partial(["вы"], 1.00)
    assert c.partial(["выставляю"], 1.08) == []
    assert [w.word for w in c.partial(["выставляю"], 1.18)] == ["выставляю"]


def test_forbidden_forms_and_fillers_keep_their_exact_text(meaning):
    c = committer(meaning)
    c.partial(["честно"], 1.00)
    assert c.partial(["честное"], 1.06) == []
    assert [w.word for w in c.partial(["честное"], 1.16)] == ["честное"]
    c = committer(meaning)
    c.partial(["номер"], 1.00)
    assert c.partial(["номером"], 1.06) == []


def test_a_later_word_takes_the_number_at_once_whatever_its_form(meaning):
    c = committer(meaning)
    c.partial(["выставляю", "седьмой"], 1.00)
    words = c.partial(["выставляю", "седьмого", "игрока"], 1.02)
    assert [w.word for w in words] == ["седьмого"]


def test_ukrainian_numbers_count_by_value_too():
    c = PartialCommitter(0.1, meaning=rule_meaning(load_grammar("uk")))
    c.partial(["виставляю", "сьомий"], 1.00)
    assert [w.word for w in c.partial(["виставляю", "сьомого"], 1.10)] == ["сьомого"]


def test_a_word_the_rules_do_not_know_right_after_the_trigger_waits(meaning):
    """After the trigger (and fillers) an unknown word can only refuse, and a
    partial shows one where the number is still being heard."""
    c = committer(meaning)
    assert [w.word for w in c.partial(["выставляю", "[unk]"], 1.00)] == ["выставляю"]
    assert c.partial(["выставляю", "[unk]"], 1.20) == []
    assert [w.word for w in c.partial(["выставляю", "седьмого"], 1.30)] == []
    assert [w.word for w in c.partial(["выставляю", "седьмого"], 1.40)] == ["седьмого"]
    c = committer(meaning)
    assert [w.word for w in c.partial(["выставляю", "на", "[unk]", "пятого"], 1.00)] == ["выставляю", "на"]
    words = c.final([{"word": w, "start": i * 0.3, "end": i * 0.3 + 0.25}
                     for i, w in enumerate(["выставляю", "на", "этого", "пятого"])], 1.5)
    assert [w.word for w in words[0].new] == ["выставляю", "на", "этого", "пятого"]


def test_unknown_words_outside_a_nomination_are_taken_at_once(meaning):
    c = committer(meaning)
    assert [w.word for w in c.partial(["коллеги", "[unk]", "выставляю"], 1.00)] == ["коллеги", "[unk]"]
