"""Words heard by a microphone array (SPEC §7.1): the seat comes from the
direction, the angle is kept, and a word whose direction names no seat is
never the speaker's, live, in the journal and after a resume."""
from __future__ import annotations

import pytest

from tests.conftest import day_table
from voicehost.asr import Revision
from voicehost.errors import InputError
from voicehost.game.events import parse_event
from voicehost.journal import replay_entries
from voicehost.phrases.words import Word


def words(entries):
    return [e.event for e in entries if e.event["type"] == "word"]


def test_a_word_of_unclear_direction_never_nominates_and_a_placed_one_does(tmp_path):
    path = tmp_path / "j.jsonl"
    live = day_table(path)   # seat 1 holds the floor
    live.hear([Word("выставляю", 31.0, 31.4, angle=97.0), Word("седьмого", 31.5, 32.0, angle=97.0)])
    assert live.game.today == []
    live.hear([Word("спасибо", 32.2, 32.6, angle=97.0)])
    assert live.game.where() == "day 1, speech of seat 1"   # an unplaced "спасибо" ends nothing
    live.hear([Word("выставляю", 33.0, 33.4, seat=1, angle=36.2), Word("седьмого", 33.5, 34.0, seat=1, angle=35.9)])
    assert live.game.today == [7]
    live.close()
    game, _, entries = replay_entries(path)
    assert game.today == [7] and game.where() == live.game.where()
    heard = words(entries)
    assert heard == words(live.entries) and len(heard) == 5
    assert [(w.get("seat"), w.get("angle")) for w in heard] == [(None, 97.0)] * 3 + [(1, 36.2), (1, 35.9)]


def test_a_revision_keeps_each_words_seat_and_direction_through_a_resume(tmp_path):
    """The final result turns a placed provisional word into an unplaced one:
    the replay must not count it for the speaker either."""
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    partial = (Word("выставляю", 31.0, 31.4, seat=1, angle=36.0), Word("пятого", 31.5, 32.0, seat=1, angle=36.0))
    live.hear(list(partial))
    assert live.game.today == [5]
    live.hear([Revision(partial, (Word("выставляю", 31.0, 31.4, seat=1, angle=36.0),
                                  Word("седьмого", 31.5, 32.1, angle=200.5)))])
    assert live.game.today == []
    live.close()
    game, _, entries = replay_entries(path)
    assert game.today == [] and game.where() == live.game.where()
    assert [(w.get("seat"), w.get("angle")) for w in words(entries)] == [(1, 36.0), (None, 200.5)]


def test_a_words_angle_is_read_from_an_input_line_and_a_bad_one_is_named():
    event = parse_event({"type": "word", "word": "три", "start": 1.0, "end": 1.5, "seat": 3, "angle": 108.4})
    assert (event.word.seat, event.word.angle, event.word.unplaced) == (3, 108.4, False)
    assert parse_event({"type": "word", "word": "три", "start": 1.0, "end": 1.5, "angle": 5}).word.unplaced
    with pytest.raises(InputError, match="angle must be in degrees from 0 to 360, got 400.0"):
        parse_event({"type": "word", "word": "три", "start": 1.0, "end": 1.5, "angle": 400})
    with pytest.raises(InputError, match="angle must be a number of degrees, got \"north\""):
        parse_event({"type": "word", "word": "три", "start": 1.0, "end": 1.5, "angle": "north"})
