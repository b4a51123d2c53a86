"""Inputs that crashed instead of being refused (issue 8, defect 6): each is
now refused with one clear line, or read as what it is."""
from __future__ import annotations

import json

import pytest

from tests.conftest import GAMES, ROLES, Play
from voicehost.cli import main
from voicehost.errors import GameError, InputError, VoicehostError
from voicehost.game.events import parse_event
from voicehost.journal import Journal, replay
from voicehost.live.commands import parse_command
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.words import words_from_text
from voicehost.rules import rules_for

SETUP = json.dumps({"type": "setup", "roles": ROLES})
HUGE = "1" * 5000


def simulate_lines(tmp_path, capsys, *lines: str) -> tuple[int, list[str], bool]:
    script = tmp_path / "s.jsonl"
    script.write_text("\n".join(lines) + "\n", "utf-8")
    proto = tmp_path / "p.json"
    code = main(["simulate", str(script), "--protocol", str(proto)])
    err = capsys.readouterr().err.strip().splitlines()
    return code, err, proto.exists()


def refused_in_one_line(result, needle: str) -> None:
    code, err, wrote_protocol = result
    assert code == 2 and len(err) == 1 and needle in err[0] and not wrote_protocol, err
    assert len(err[0]) < 300


@pytest.mark.parametrize("digit", ["²", "٣", "３", HUGE])
def test_non_ascii_or_overlong_seat_is_refused_not_read(digit):
    with pytest.raises(InputError, match="must be a seat 1..10"):
        parse_event({"type": "shot", "seat": digit})
    with pytest.raises(InputError, match="must be a seat"):
        parse_event({"type": "votes", "counts": {digit: 3}})
    for line in (f"/shot {digit}", f"/votes {digit}=3", f"/votes 3={digit}", f"/lift {digit}",
                 f"/best {digit} 2 3", f"/candidates {digit}"):
        with pytest.raises(InputError) as refused:
            parse_command(line)
        assert len(str(refused.value)) < 120


def test_arabic_indic_three_is_not_seat_3_in_speech():
    grammar = load_grammar("ru")
    assert grammar.number("3") == 3 and grammar.number("٣") is None and grammar.number("²") is None
    play = Play().speech(1, "выставляю ٣ спасибо")
    assert play.game.nominations == []


def test_5000_digit_spoken_number_is_no_seat_and_no_crash():
    assert load_grammar("ru").number(HUGE) == 0
    play = Play().speech(1, f"выставляю {HUGE} спасибо")
    assert play.game.nominations == []


def test_5000_digit_count_in_a_script_is_refused_in_one_line(tmp_path, capsys):
    result = simulate_lines(tmp_path, capsys, SETUP, '{"type": "lift_votes", "count": ' + HUGE + "}")
    refused_in_one_line(result, ":2: malformed JSON (a number too long)")
    with pytest.raises(InputError, match="a number too large"):
        parse_event({"type": "lift_votes", "count": 10 ** 5000})


def test_json_nested_1000_deep_is_refused_in_one_line(tmp_path, capsys):
    deep = '{"type": "votes", "counts": ' + "[" * 100_000 + "]" * 100_000 + "}"
    refused_in_one_line(simulate_lines(tmp_path, capsys, SETUP, deep), ":2: malformed JSON (nested too deep)")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_or_infinite_time_in_a_script_is_refused(tmp_path, capsys, constant):
    speech = f'{{"type": "speech", "seat": 1, "words": [{{"word": "да", "start": {constant}, "end": 1}}]}}'
    refused_in_one_line(simulate_lines(tmp_path, capsys, SETUP, speech), f"'{constant}' is not a number")


def test_infinite_silence_is_refused_not_written_as_infinity(capsys):
    with pytest.raises(InputError, match="must be <N> seconds"):
        words_from_text("выставляю <" + "9" * 400 + "> седьмого")
    assert main(["check-phrase", "--text", "выставляю <" + "9" * 400 + "> седьмого"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "must be <N> seconds" in err[0]


def test_line_separators_inside_a_word_stay_in_their_script_line(tmp_path, capsys):
    words = [{"word": "да\u2028нет\u0085так", "start": 0.5, "end": 0.9}]
    speech = json.dumps({"type": "speech", "seat": 1, "words": words}, ensure_ascii=False)
    script = tmp_path / "s.jsonl"
    script.write_text(SETUP + "\n" + speech + "\n", "utf-8")
    assert main(["simulate", str(script)]) == 0, capsys.readouterr().err


def city_game_over() -> Play:
    lines = [json.loads(line) for line in (GAMES / "city_town_wins.jsonl").read_text("utf-8").splitlines()
             if line.strip()]
    play = Play("city", roles=lines[0]["roles"])
    for line in lines[1:]:
        if line["type"] not in ("best_player", "worst_player"):
            play.step(line)
    play.run_on()
    return play


def test_city_best_player_past_the_table_is_refused_also_on_replay(tmp_path):
    play = city_game_over()
    game = play.game
    assert game.winner == "city" and len(game.seats()) == 10
    with pytest.raises(GameError, match="seat 11 is not at this table") as refused:
        game.handle(parse_event({"type": "best_player", "seat": 11}, game.max_seat), game.now)
    assert refused.value.key == "not_at_table"
    # A journal that holds one (written before this check, with a valid chain) replays to a refusal.
    path = tmp_path / "j.jsonl"
    journal = Journal(path, rules_for("city"))
    journal.write_entry(0.0, {"type": "setup", "roles": {str(s): r.value for s, r in game.roles.items()}})
    journal.write_entry(1.0, {"type": "best_player", "seat": 11})
    journal.close()
    with pytest.raises(VoicehostError, match=r"j\.jsonl:3: seat 11 is not at this table"):
        replay(path)


@pytest.mark.parametrize("given", ['/votes 7=4 7=3', {"type": "votes", "counts": {"7": 1, "07": 2}}],
                         ids=["typed", "page"])
def test_a_candidate_named_twice_in_votes_is_refused_not_overwritten(given):
    """'7=4 7=3' once counted 3 for seat 7 and gave the remainder to the last
    candidate: a seat named twice is refused, in the table's language."""
    from voicehost.phrasebook import load_phrasebook

    with pytest.raises(InputError) as caught:
        parse_command(given) if isinstance(given, str) else parse_event(given)
    assert caught.value.key == "votes_seat_twice"
    assert load_phrasebook("phrasebook.ru").refusal(caught.value) == "Голоса: место 7 названо дважды"
