"""SPEC §7.2: the host's spoken commands, parsed without a game (the pure
parser in voicehost.phrases.host), in Russian and Ukrainian."""
from __future__ import annotations

import tomllib

import pytest

from voicehost.errors import InputError
from voicehost.paths import GRAMMARS
from voicehost.phrasebook import load_phrasebook
from voicehost.phrases.host import load_host_grammar, parse_host

RU = load_host_grammar("ru")
UK = load_host_grammar("uk")


def parsed(text: str, grammar=RU, **kwargs) -> dict:
    return parse_host(text.split(), grammar, **kwargs).to_json()


def refused(text: str, grammar=RU, **kwargs) -> str:
    with pytest.raises(InputError) as error:
        parse_host(text.split(), grammar, **kwargs)
    assert error.value.key is not None
    return str(error.value.key)


def foul(seat: int) -> dict:
    return {"accepted": True, "event": {"type": "foul", "seat": seat}}


def control(name: str) -> dict:
    return {"accepted": True, "control": name}


@pytest.mark.parametrize(("text", "want"), [
    ("фол третьему", foul(3)),
    ("седьмому фол", foul(7)),
    ("фол 3", foul(3)),
    ("фол игроку номер 3", foul(3)),
    ("фол игроку 3", foul(3)),
    ("фол за номер 10", foul(10)),
    ("игрок номер 5 фол", foul(5)),
    ("Фол, третьему!", foul(3)),
    ("фол четвёртому", foul(4)),
    ("фол четвертому", foul(4)),
    ("за седьмого четыре, за третьего два", {"accepted": True, "event": {"type": "votes", "counts": {"7": 4, "3": 2}}}),
    ("за седьмого четыре за третьего два", {"accepted": True, "event": {"type": "votes", "counts": {"7": 4, "3": 2}}}),
    ("за номер 7 четыре голоса, за игрока 3 два голоса",
     {"accepted": True, "event": {"type": "votes", "counts": {"7": 4, "3": 2}}}),
    ("за седьмого ноль", {"accepted": True, "event": {"type": "votes", "counts": {"7": 0}}}),
    ("за седьмого десять голосов", {"accepted": True, "event": {"type": "votes", "counts": {"7": 10}}}),
    ("за подъём шесть", {"accepted": True, "event": {"type": "lift_votes", "count": 6}}),
    ("за подъем шесть голосов", {"accepted": True, "event": {"type": "lift_votes", "count": 6}}),
    ("поднять всех 6", {"accepted": True, "event": {"type": "lift_votes", "count": 6}}),
    ("дисквалификация 6", {"accepted": True, "event": {"type": "disqualify", "seat": 6}}),
    ("лучший игрок 3", {"accepted": True, "event": {"type": "best_player", "seat": 3}}),
    ("худший игрок номер восемь", {"accepted": True, "event": {"type": "worst_player", "seat": 8}}),
    ("отмена", control("undo")),
    ("пауза", control("pause")),
    ("стоп", control("pause")),
    ("продолжаем", control("resume")),
    ("продолжить", control("resume")),
    ("дальше", control("next")),
    ("следующий", control("next")),
    ("подтверждаю", control("confirm")),
    ("Ведущий: фол третьему", foul(3)),   # the wake word is allowed on the host channel too
])
def test_section_7_2_russian_commands(text, want):
    assert parsed(text) == want


def test_a_disqualification_waits_for_its_confirmation():
    assert parse_host(["дисквалификация", "6"], RU).needs_confirm
    assert not parse_host(["фол", "6"], RU).needs_confirm


@pytest.mark.parametrize(("text", "want"), [
    ("фол третьому", foul(3)),
    ("сьомому фол", foul(7)),
    ("за сьомого чотири, за третього два", {"accepted": True, "event": {"type": "votes", "counts": {"7": 4, "3": 2}}}),
    ("за підйом шість", {"accepted": True, "event": {"type": "lift_votes", "count": 6}}),
    ("дискваліфікація 6", {"accepted": True, "event": {"type": "disqualify", "seat": 6}}),
    ("найкращий гравець 3", {"accepted": True, "event": {"type": "best_player", "seat": 3}}),
    ("скасувати", control("undo")),
    ("продовжуємо", control("resume")),
    ("далі", control("next")),
    ("ведучий пауза", control("pause")),
])
def test_section_7_2_ukrainian_twins(text, want):
    assert parsed(text, UK) == want


def _forms(lang: str) -> list[tuple[int, str, str]]:
    data = tomllib.loads((GRAMMARS / f"numbers.{lang}.toml").read_text("utf-8"))
    return [(int(seat), kind, word) for seat, forms in data.items() for kind in ("cardinal", "ordinal")
            for word in forms[kind]]


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_every_case_form_of_every_seat_names_it(lang):
    grammar = load_host_grammar(lang)
    for seat, _, word in _forms(lang):
        assert parsed(f"фол {word}", grammar) == foul(seat), word


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_counts_are_cardinals_only(lang):
    grammar = load_host_grammar(lang)
    for seat, kind, word in _forms(lang):
        text = f"за 7 {word}"
        if kind == "cardinal":
            assert parsed(text, grammar)["event"]["counts"] == {"7": seat}, word
        elif word not in {w for _, k, w in _forms(lang) if k == "cardinal"}:
            assert refused(text, grammar) == "no_count", word


@pytest.mark.parametrize(("text", "reason"), [
    ("фол", "no_seat"),
    ("фол кому-то", "no_seat"),
    ("за подъём", "no_count"),
    ("за седьмого", "no_count"),
    ("за седьмого четыре за седьмого два", "votes_seat_twice"),
    ("фол 3 и 4", "extra_words"),
    ("пауза пожалуйста", "extra_words"),
    ("привет", "not_a_command"),
    ("", "empty_command"),
    ("ведущий", "empty_command"),
    ("выстрел в пятого", "night_input"),
    ("проверка дона 4", "night_input"),
    ("шериф проверяет второго", "night_input"),
    ("промах", "night_input"),
])
def test_refusals_have_a_clear_reason(text, reason):
    assert refused(text) == reason


@pytest.mark.parametrize("text", ["выстрел 5", "стреляю в пятого", "проверка 4", "дон 4", "шериф 2"])
def test_night_inputs_are_never_taken_by_voice(text):
    assert refused(text) == "night_input"
    assert refused("ведущий " + text, wake=True) == "night_input"


def test_the_wake_word_rule():
    assert refused("фол третьему", wake=True) == "no_wake_word"
    assert parsed("ведущий фол третьему", wake=True) == foul(3)
    assert parsed("Ведущий, фол третьему", wake=True) == foul(3)
    assert parsed("судья фол третьему", wake=True, wake_word="Судья") == foul(3)
    assert refused("ведущий фол третьему", wake=True, wake_word="судья") == "no_wake_word"
    assert refused("фол ведущий третьему", wake=True) == "no_wake_word"
    assert parsed("ведучий фол третьому", UK, wake=True) == foul(3)


@pytest.mark.parametrize("reason", ["no_wake_word", "empty_command", "not_a_command", "night_input", "no_seat",
                                    "no_count", "extra_words", "nothing_to_confirm"])
@pytest.mark.parametrize("book", ["phrasebook.ru", "phrasebook.uk", "phrasebook.mafclubspb"])
def test_every_refusal_reads_in_the_tables_language(reason, book):
    text = load_phrasebook(book).refuse[reason]
    assert text and not text.isascii()


def test_the_grammar_lists_every_word_a_command_may_hold():
    words = RU.words()
    assert {"фол", "за", "подъем", "пауза", "подтверждаю", "ведущий", "седьмого", "четыре", "голосов"} <= words


def test_a_clubs_host_grammar_goes_over_the_shipped_one_and_a_typo_is_named(tmp_path):
    from voicehost.config import load_phrase_file
    from voicehost.errors import ConfigError
    from voicehost.phrasedata import PhraseData, check_club

    club = tmp_path / "grammars"
    club.mkdir()
    (club / "host.ru.toml").write_text('[controls]\npause = ["перерыв"]\nresume = ["продолжаем"]\nnext = ["дальше"]\n'
                                       'undo = ["отмена"]\nconfirm = ["подтверждаю"]\n', "utf-8")
    data = PhraseData(club=club)
    check_club(data, load_phrase_file)
    grammar = load_host_grammar("ru", data)
    assert parse_host(["перерыв"], grammar).control == "pause"
    assert parse_host(["фол", "третьему"], grammar).event == {"type": "foul", "seat": 3}   # the rest is shipped
    (club / "host.ru.toml").write_text('[controlz]\npause = ["перерыв"]\n', "utf-8")
    with pytest.raises(ConfigError, match="controlz"):
        check_club(data, load_phrase_file)
