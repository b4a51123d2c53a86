"""The page reads a host input with the one parser (game.events.parse_event):
one set of limits for the page, typed play and scripts, and every refusal one
line in the table's language, Russian or Ukrainian."""
from __future__ import annotations

import pytest

from voicehost.game.events import HOST_INPUTS, MAX_COUNT, Votes, parse_event
from voicehost.live.commands import parse_command
from voicehost.phrasebook import load_phrasebook
from voicehost.web.texts import Texts
from voicehost.web.validate import Refusal, parse_input

PAGE = HOST_INPUTS | {"setup", "names"}


def _refused(data: object, name: str = "phrasebook.ru") -> str:
    """The page's line for a refused input, as the guard renders it."""
    with pytest.raises(Refusal) as refused:
        parse_input(data, PAGE, 10, load_phrasebook(name))
    error = refused.value
    assert error.status == 400
    return str(error.values["text"]) if error.key == "raw" else Texts(name)(error.key, **error.values)


def test_the_page_takes_the_counts_parse_event_takes():
    event, suggestion = parse_input({"type": "votes", "counts": {"7": MAX_COUNT}}, PAGE, 10,
                                    load_phrasebook("phrasebook.ru"))
    assert event == parse_event({"type": "votes", "counts": {"7": MAX_COUNT}}) == Votes({7: MAX_COUNT})
    assert suggestion is None
    assert f"от 0 до {MAX_COUNT}" in _refused({"type": "votes", "counts": {"7": MAX_COUNT + 1}})


def test_a_seat_typed_with_four_digits_is_read_alike_on_the_page_and_in_typed_play():
    assert parse_command("/foul 0007") == {"type": "foul", "seat": 7}
    event, _ = parse_input({"type": "foul", "seat": "0007"}, PAGE, 10, load_phrasebook("phrasebook.ru"))
    assert event == parse_event(parse_command("/foul 0007"))


@pytest.mark.parametrize(("name", "line"), [
    ("phrasebook.ru", "Нужен номер игрока от 1 до 10, а не «12»"),
    ("phrasebook.uk", "Потрібен номер гравця від 1 до 10, а не «12»"),
])
def test_a_seat_off_the_table_is_the_pages_line_in_both_languages(name, line):
    assert _refused({"type": "foul", "seat": 12}, name) == line


@pytest.mark.parametrize("name", ["phrasebook.ru", "phrasebook.uk"])
def test_a_refusal_the_page_has_no_words_for_is_the_phrasebooks_refusal(name):
    # "7" and "07" are one seat: parse_event refuses it, in the table's language, not as "not read".
    line = _refused({"type": "votes", "counts": {"7": 3, "07": 4}}, name)
    assert line == load_phrasebook(name).refuse["votes_seat_twice"].format(seat=7)
    assert "\n" not in line and not line.isascii()
