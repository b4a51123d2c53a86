"""SPEC §7.2: `voicehost check-command` judges one host utterance without a
game and prints one JSON line; exit 0 whatever the verdict, 2 for bad arguments."""
from __future__ import annotations

import json

import pytest

from voicehost.cli import main


def check(capsys, *args: str) -> tuple[int, list[dict], str]:
    try:
        code = main(["check-command", *args])
    except SystemExit as exc:   # argparse refuses bad arguments itself
        code = exc.code
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


@pytest.mark.parametrize(("text", "want"), [
    ("фол третьему", {"accepted": True, "event": {"type": "foul", "seat": 3}}),
    ("седьмому фол", {"accepted": True, "event": {"type": "foul", "seat": 7}}),
    ("за седьмого четыре, за третьего два", {"accepted": True, "event": {"type": "votes", "counts": {"7": 4, "3": 2}}}),
    ("за подъём шесть", {"accepted": True, "event": {"type": "lift_votes", "count": 6}}),
    ("поднять всех 6", {"accepted": True, "event": {"type": "lift_votes", "count": 6}}),
    ("дисквалификация 6", {"accepted": True, "event": {"type": "disqualify", "seat": 6}}),
    ("лучший игрок 3", {"accepted": True, "event": {"type": "best_player", "seat": 3}}),
    ("отмена", {"accepted": True, "control": "undo"}),
    ("пауза", {"accepted": True, "control": "pause"}),
    ("стоп", {"accepted": True, "control": "pause"}),
    ("продолжаем", {"accepted": True, "control": "resume"}),
    ("дальше", {"accepted": True, "control": "next"}),
    ("подтверждаю", {"accepted": True, "control": "confirm"}),
])
def test_accepted_commands(capsys, text, want):
    assert check(capsys, "--text", text) == (0, [want], "")


@pytest.mark.parametrize(("args", "reason", "message"), [
    (["--text", "фол третьему", "--wake"], "no_wake_word", "Команда ведущего начинается со слова «ведущий»"),
    (["--text", "выстрел пятому"], "night_input", "Ночные действия голосом не принимаются: их услышал бы стол"),
    (["--text", "фол 12"], "not_at_table", "За столом нет места номер 12 (места 1–10)"),
    (["--text", "за седьмого"], "no_count", "«за седьмого»: не расслышано число голосов"),
    (["--text", "привет"], "not_a_command", "«привет» — не команда ведущего"),
    (["--text", "фол 12", "--ruleset", "ua-club"], "not_at_table", "За столом немає місця номер 12 (місця 1–10)"),
    (["--text", "ведучий", "--wake", "--ruleset", "ua-club"], "empty_command",
     "Команду не розчуто: після звертання немає слів"),
])
def test_refusals_are_one_line_in_the_tables_language(capsys, args, reason, message):
    assert check(capsys, *args) == (0, [{"accepted": False, "reason": reason, "message": message}], "")


def test_the_wake_word(capsys, tmp_path):
    assert check(capsys, "--text", "Ведущий, фол третьему", "--wake")[1] == [
        {"accepted": True, "event": {"type": "foul", "seat": 3}}]
    config = tmp_path / "config.toml"
    config.write_text('[host]\nwake_word = "судья"\n', "utf-8")
    assert check(capsys, "--text", "судья пауза", "--wake", "--config", str(config))[1] == [
        {"accepted": True, "control": "pause"}]
    assert check(capsys, "--text", "ведущий пауза", "--wake", "--config", str(config))[1][0]["reason"] == \
        "no_wake_word"


def test_a_city_table_has_an_eleventh_seat(capsys):
    assert check(capsys, "--text", "фол 11", "--ruleset", "city")[1] == [
        {"accepted": True, "event": {"type": "foul", "seat": 11}}]


@pytest.mark.parametrize("args", [[], ["--text"], ["--text", "фол 3", "--ruleset", "nope"], ["--text", "x", "--what"]])
def test_bad_arguments_exit_2(capsys, args):
    code, out, err = check(capsys, *args)
    assert code == 2 and out == [] and err.count("\n") == 1
