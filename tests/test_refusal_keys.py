"""Every refusal a player or host reads comes from the phrasebooks: the keys the
code raises exist in each one, and input that cannot be read (a seat off the
table, a malformed command) is refused in the table's language in typed play,
while the English message stays for the logs and the command line."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.liveparts import play_typed
from voicehost.errors import InputError
from voicehost.game.events import parse_event
from voicehost.phrasebook import load_phrasebook
from voicehost.refusals import RefuseKey

ROOT = Path(__file__).resolve().parent.parent / "voicehost"
SPELLED_KEY = re.compile(r'\bkey=f?"')  # a refusal's key spelled as text, not read from the registry


def refusal_keys() -> set[str]:
    return {key.value for key in RefuseKey}


def test_every_refusal_is_raised_with_a_registry_key_not_spelled_text():
    spelled = [f"{path.relative_to(ROOT)}:{number}" for path in sorted(ROOT.rglob("*.py"))
               for number, line in enumerate(path.read_text("utf-8").splitlines(), 1) if SPELLED_KEY.search(line)]
    assert not spelled, spelled


def test_every_refusal_key_used_is_in_the_russian_and_ukrainian_phrasebooks():
    keys = refusal_keys()
    # the ones this file is about, so the scan cannot quietly find nothing
    assert {"not_at_table", "bad_seat", "bad_count", "event_unknown", "needs_seat", "no_foul"} <= keys
    for name in ("phrasebook.ru", "phrasebook.uk", "phrasebook.mafclubspb"):
        book = load_phrasebook(name)
        assert keys <= set(book.refuse), (name, sorted(keys - set(book.refuse)))


@pytest.mark.parametrize(("data", "key"), [
    ({"type": "foul", "seat": 12}, "not_at_table"),
    ({"type": "foul", "seat": "x"}, "bad_seat"),
    ({"type": "foul"}, "needs_seat"),
    ({"type": "votes", "counts": {"3": -1}}, "bad_count"),
    ({"type": "votes", "counts": []}, "votes_not_a_map"),
    ({"type": "candidates", "seats": 3}, "candidates_not_a_list"),
    ({"type": "best_move", "seats": "1 2 3"}, "best_move_not_a_list"),
    ({"type": "setup", "roles": []}, "deal_not_a_map"),
    ({"type": "setup", "roles": {"1": 5}}, "deal_role_not_a_name"),
    ({"type": "names", "names": []}, "names_not_a_map"),
    ({"type": "names", "names": {"1": "a\nb"}}, "name_bad"),
    ({"type": "dance"}, "event_unknown"),
    ([1], "event_not_object"),
])
def test_unreadable_inputs_carry_a_key_that_renders_in_both_languages(data, key):
    with pytest.raises(InputError) as refused:
        parse_event(data)
    assert refused.value.key == key
    assert str(refused.value).isascii()  # the English stays for the log and the CLI
    for name in ("phrasebook.ru", "phrasebook.uk"):
        text = load_phrasebook(name).refusal(refused.value)
        assert text != str(refused.value) and "{" not in text


def test_a_seat_off_the_table_is_refused_in_russian_in_typed_play(tmp_path):
    code, out, _ = play_typed(tmp_path, ["/foul 12", "/votes 3=2 15=1", "/quit"])
    lines = out.splitlines()
    assert code == 0
    assert "! За столом нет места номер 12 (места 1–10)" in lines
    assert "! За столом нет места номер 15 (места 1–10)" in lines
    assert not any("must be a seat" in line for line in lines)


def test_a_seat_off_the_table_is_refused_in_ukrainian_for_ua_club(tmp_path):
    code, out, _ = play_typed(tmp_path, ["/foul 12", "/quit"], "--ruleset", "ua-club")
    assert code == 0
    assert "! За столом немає місця номер 12 (місця 1–10)" in out.splitlines()


def test_an_input_that_does_not_fit_is_named_in_russian_not_by_its_type(tmp_path):
    code, out, _ = play_typed(tmp_path, ["/roles d4 m2 m7 s6", "/shot 3", "/quit"])
    refusals = [line for line in out.splitlines() if line.startswith("! ")]
    assert code == 0 and refusals
    assert any("«выстрел»" in line for line in refusals), refusals
    assert not any("«shot»" in line or "«votes»" in line for line in out.splitlines())


def test_a_negative_silence_in_typed_speech_is_refused_not_heard_as_a_seat(tmp_path):
    code, out, _ = play_typed(tmp_path, ["/roles d4 m2 m7 s6", "<90>", "выставляю <-5>", "/quit"])
    lines = out.splitlines()
    assert code == 0
    assert any(line.startswith("! Тишина <-5>") for line in lines), lines
    assert not any("номер 5" in line and "Принят" in line for line in lines)


def test_the_terminal_texts_load_through_the_one_inherit_loader(tmp_path):
    """A club book over the Russian one: its [live.roles] overrides one role and
    keeps the others; an `inherit` loop is one clear error, not a hang."""
    from voicehost.errors import DataError
    from voicehost.live.texts import live_texts

    (tmp_path / "base.toml").write_text('[live]\nresumed = "a {path}"\n[live.roles]\ndon = "Дон"\nsheriff = "Шериф"\n',
                                        "utf-8")
    (tmp_path / "club.toml").write_text('inherit = "base"\n[live.roles]\ndon = "Босс"\n', "utf-8")
    texts = live_texts("club", tmp_path)
    assert (texts.role("don"), texts.role("sheriff"), texts.text("resumed", path="x")) == ("Босс", "Шериф", "a x")
    (tmp_path / "loop.toml").write_text('inherit = "loop2"\n', "utf-8")
    (tmp_path / "loop2.toml").write_text('inherit = "loop"\n', "utf-8")
    with pytest.raises(DataError, match="loops back"):
        live_texts("loop", tmp_path)
