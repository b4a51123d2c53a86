"""The speech listener against SPEC §2 and the 4MAFIA clauses (2.2.4–2.3.6, 3.6–3.7).

Each case is plain words (0.3 s each, 0.1 s apart, `<N>` = N seconds of
silence), judged as one regular day speech."""
from __future__ import annotations

import pytest

from voicehost.checkphrase import check_speech
from voicehost.phrases.listener import SpeechListener, StaticContext
from voicehost.phrases.words import Word, words_from_text
from voicehost.rules import rules_for

RULES = rules_for("4mafia")


def judge(text: str, grammar, *, context: StaticContext | None = None, limit: float = 60.0,
          rules=RULES) -> list[dict]:
    events = check_speech(words_from_text(text), grammar, rules, context or StaticContext(), limit)
    return [e.to_json() for e in events]


def nominations(events: list[dict]) -> list[tuple[int, bool, str | None]]:
    return [(e["target"], e["accepted"], e.get("reason")) for e in events if e["type"] == "nomination"]


ACCEPTED = {
    "2.3.2-full-phrase": ("выставляю на голосование кандидатуру игрока номер семь", 7),
    "2.3.2-shortest": ("выставляю семь", 7),
    "2.3.2-ordinal-genitive": ("выставляю седьмого", 7),
    "2.3.2-ordinal-accusative-fem": ("выставляю кандидатуру седьмую", 7),
    "2.3.2-under-number": ("выставляю игрока под номером три", 3),
    "2.3.2-digits": ("выставляю 10", 10),
    "2.3.2-numbered-digits": ("выставляю игрока №4", 4),
    "2.3.2-digits-ordinal-ending": ("выставляю 7-го", 7),
    "2.3.2-yo": ("выставляю четвёртого", 4),
    "2.3.2-no-yo": ("выставляю четвертого", 4),
    "2.3.2-cardinal-genitive": ("выставляю игрока номер восьми", 8),
    "2.3.2-tenth": ("выставляю десятого", 10),
    "2.3.2-first": ("выставляю первого", 1),
    "2.3.2-third-soft": ("выставляю третьего", 3),
    "2.3.2-two-feminine": ("выставляю кандидатуру номер две", 2),
    "2.3.2-capitals-punctuation": ("Выставляю, номер Пять!", 5),
    "SPEC-fuzzy-filler-case": ("выставляю кандидатуры игрока номер шесть", 6),
    "SPEC-fuzzy-filler-voting": ("выставляю на голосовании девятого", 9),
    "2.3.3-pause-exactly-10s": ("выставляю <10> седьмого", 7),
    "2.3.3-pause-10s-between-fillers": ("выставляю номер <10> семь", 7),
}


@pytest.mark.parametrize("text,seat", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_accepted(text, seat, ru):
    assert nominations(judge(text, ru)) == [(seat, True, None)]


REJECTED = {
    "2.3.3-extra-word": ("выставляю пожалуй семь", 7, "extra_words"),
    "2.3.3-unk": ("выставляю [unk] семь", 7, "extra_words"),
    "2.3.3-number-outside-seats": ("выставляю двенадцать номер семь", 7, "extra_words"),
    "2.3.3-digits-outside-seats": ("выставляю 11 семь", 7, "extra_words"),
    "2.3.3-pause-over-10s": ("выставляю <10.5> семь", 7, "pause_too_long"),
    "2.3.3-pause-later-in-phrase": ("выставляю игрока <12> номер семь", 7, "pause_too_long"),
    "SPEC-wrong-form-future": ("выставлю семь", 7, "wrong_form"),
    "SPEC-wrong-form-past": ("выставил номер семь", 7, "wrong_form"),
    "SPEC-wrong-form-plural": ("выставляем седьмого", 7, "wrong_form"),
    "SPEC-first-broken-wins-extra-then-pause": ("выставляю ну <12> семь", 7, "extra_words"),
    "SPEC-first-broken-wins-pause-then-extra": ("выставляю <12> ну семь", 7, "pause_too_long"),
    "SPEC-first-broken-wins-wrong-form": ("выставил ну семь", 7, "wrong_form"),
}


@pytest.mark.parametrize("text,seat,reason", REJECTED.values(), ids=REJECTED.keys())
def test_rejected(text, seat, reason, ru):
    assert nominations(judge(text, ru)) == [(seat, False, reason)]


def test_2_3_3_pause_spans_recognizer_results(ru):
    # Two Vosk results: the gap between them counts like any other.
    words = [Word("выставляю", 4.1, 4.6), Word("игрока", 4.7, 5.0), Word("семь", 15.1, 15.4)]
    events = check_speech(words, ru, RULES, StaticContext(), 60.0)
    assert [(e.target, e.reason) for e in events] == [(7, "pause_too_long")]


def test_2_3_2_number_t_is_end_of_number_word(ru):
    events = judge("ну выставляю семь", ru)
    assert events == [{"type": "nomination", "target": 7, "accepted": True, "t": 1.1}]


def test_2_3_3_rejection_t_is_last_word_looked_at(ru):
    events = judge("выставляю пожалуй номер семь", ru)
    assert events[0]["t"] == pytest.approx(1.5)


def test_SPEC_trigger_is_never_fuzzy(ru):
    for near in ("выставлю", "выставляя", "выставлял"):
        events = judge(f"{near} семь", ru)
        assert all(not e["accepted"] for e in events if e["type"] == "nomination"), near
    assert judge("выставлять это важно семь", ru)[0]["reason"] == "wrong_form"
    assert nominations(judge("выставка семь", ru)) == []


def test_SPEC_new_trigger_abandons_unfinished_attempt(ru):
    assert nominations(judge("выставляю пожалуй выставляю семь", ru)) == [(7, True, None)]


def test_SPEC_first_number_ends_the_attempt(ru):
    assert nominations(judge("выставляю семь восемь", ru)) == [(7, True, None)]


def test_SPEC_attempt_without_number_is_silent(ru):
    assert judge("выставляю пожалуй спасибо", ru) == [
        {"type": "speech_end", "word": "спасибо", "t": 1.1}]


def test_2_3_5_second_nomination_same_speech(ru):
    assert nominations(judge("выставляю семь и выставляю три", ru)) == [
        (7, True, None), (3, False, "second_nomination")]


def test_2_3_5_already_nominated_by_speaker(ru):
    ctx = StaticContext(speaker_has_nominated=True)
    assert nominations(judge("выставляю семь", ru, context=ctx)) == [(7, False, "second_nomination")]


def test_SPEC_not_alive(ru):
    ctx = StaticContext(alive=set(range(1, 11)) - {7})
    assert nominations(judge("выставляю семь", ru, context=ctx)) == [(7, False, "not_alive")]


def test_SPEC_already_nominated_keeps_the_right(ru):
    ctx = StaticContext(nominated=[7])
    assert nominations(judge("выставляю семь нет выставляю три", ru, context=ctx)) == [
        (7, False, "already_nominated"), (3, True, None)]


def test_SPEC_self_nomination_allowed(ru):
    listener = SpeechListener(ru, StaticContext())
    assert listener.hear(Word("выставляю", 0, 0.3)) == []
    (event,) = listener.hear(Word("пятого", 0.4, 0.7))
    assert event.accepted and event.target == 5


def test_2_2_5_thanks_ends_at_once_later_words_ignored(ru):
    events = judge("спасибо выставляю семь", ru)
    assert events == [{"type": "speech_end", "word": "спасибо", "t": 0.3}]


def test_2_2_5_pass_alone_ends_speech(ru):
    events = judge("я всё сказал пас <2> выставляю семь", ru)
    assert events == [{"type": "speech_end", "word": "пас", "t": 1.5}]


def test_2_2_5_pass_in_context_does_not_end(ru):
    events = judge("это был пас в сторону выставляю семь", ru)
    assert nominations(events) == [(7, True, None)]
    assert not [e for e in events if e["type"] == "speech_end"]


@pytest.mark.parametrize("gap,ends", [(1.5, False), (1.6, True)], ids=["2.2.5-1.5s-continues", "2.2.5-1.6s-ends"])
def test_2_2_5_pass_silence_window(gap, ends, ru):
    events = judge(f"пас <{gap}> дальше", ru)
    assert bool([e for e in events if e["type"] == "speech_end"]) is ends


def test_2_2_5_trailing_pass_ends_speech(ru):
    assert judge("пас", ru) == [{"type": "speech_end", "word": "пас", "t": 0.3}]


def test_SPEC_limit_ignores_later_words(ru):
    # The number starts at 60.2 s: after the 60 s limit, so the attempt never ends.
    assert nominations(judge("говорю <59.5> выставляю семь", ru, limit=60.0)) == []
    # A number that starts before the limit still counts.
    assert nominations(judge("говорю <59> выставляю семь", ru, limit=60.0)) == [(7, True, None)]


@pytest.mark.parametrize("text", [
    "господин ведущий выставленные игроки",
    "кто выставлен господин ведущий",
    "госпожа ведущая выставленные игроки",
], ids=["2.2.4-mister-host", "2.2.4-who-is-nominated", "2.2.4-madam-host"])
def test_2_2_4_host_question(text, ru):
    events = judge(text, ru)
    assert [e["type"] for e in events] == ["host_question"]


def test_2_2_4_question_is_not_a_nomination(ru):
    events = judge("ведущий выставленные игроки номер семь", ru)
    assert nominations(events) == []


FORBIDDEN = {
    "3.6.10-honestly": ("я честно мирный", "честно", "foul"),
    "3.6.10-any-form": ("это нечестная игра", "нечестная", "foul"),
    "3.6.10-honest-word": ("честное слово", "честное", "foul"),
    "3.6.9-percent": ("на сто процентов мафия", "процентов", "foul"),
    "3.7.3-oath": ("клянусь я красный", "клянусь", "disqualify"),
    "3.7.4-bet": ("спорим он шериф", "спорим", "disqualify"),
    "3.7.4-wager": ("давай пари", "пари", "disqualify"),
    "3.7.1-obscenity": ("да ну нахуй", "нахуй", "disqualify"),
}


@pytest.mark.parametrize("text,word,suggest", FORBIDDEN.values(), ids=FORBIDDEN.keys())
def test_forbidden_words_are_suggested(text, word, suggest, ru):
    events = [e for e in judge(text, ru) if e["type"] == "foul_word"]
    assert [(e["word"], e["suggest"]) for e in events] == [(word, suggest)]


def test_words_are_reported_without_punctuation(ru):
    events = judge("Клянусь, я мирный. Спасибо!", ru)
    assert [(e["type"], e["word"]) for e in events] == [("foul_word", "Клянусь"), ("speech_end", "спасибо")]


def test_3_6_forbidden_word_t_is_its_start(ru):
    (event,) = judge("я <3> честно", ru)
    assert event["t"] == pytest.approx(3.3)


@pytest.mark.parametrize("text", ["употреблять", "чесать", "процесс", "спортивный", "париж",
                                  "сукно", "ведущий"], ids=lambda t: f"3.6-no-false-alarm-{t}")
def test_3_6_innocent_words_pass(text, ru):
    assert judge(text, ru) == []


def test_SPEC_events_in_time_order(ru):
    events = judge("честно выставляю семь господин ведущий выставленные игроки спасибо", ru)
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    assert [e["type"] for e in events] == ["foul_word", "nomination", "host_question", "speech_end"]


def test_classic_requires_candidate_phrase(ru):
    classic = rules_for("classic")
    assert nominations(judge("выставляю семь", ru, rules=classic)) == [(7, False, "wrong_form")]
    assert nominations(judge("выставляю кандидатуру игрока номер семь", ru, rules=classic)) == [
        (7, True, None)]


def test_ua_club_phrases():
    from voicehost.phrases.grammar import load_grammar

    uk = load_grammar("uk")
    ua = rules_for("ua-club")
    assert nominations(judge("Я виставляю гравця під № 7", uk, rules=ua)) == [(7, True, None)]
    assert nominations(judge("виставляю гравця під номером сьомим", uk, rules=ua)) == [(7, True, None)]
    assert nominations(judge("виставляю п'ятого", uk, rules=ua)) == [(5, True, None)]
    assert judge("СПАСИБІ виставляю сім", uk, rules=ua) == [
        {"type": "speech_end", "word": "спасибі", "t": 0.3}]


def test_mafclubspb_oath_phrase_disqualifies():
    from voicehost.phrases.grammar import load_grammar

    spb = load_grammar("ru-mafclubspb")
    events = [e for e in judge("честное слово я мирный", spb) if e["type"] == "foul_word"]
    assert ("честное слово", "disqualify") in [(e["word"], e["suggest"]) for e in events]
