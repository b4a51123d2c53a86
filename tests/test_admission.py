"""Admission: an input is refused before anything moves (issue 8, defect 1).

A refused input must leave the game exactly as it was, clock included, so the
timers that were due by the time of the input still fire and speak."""
from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROLES, Play, run_async
from tests.randomgames import RandomCityGame, RandomGame
from voicehost.errors import GameError, InputError
from voicehost.game.events import parse_event
from voicehost.game.model import Phase
from voicehost.game.moderator import Moderator
from voicehost.game.protocol import snapshot
from voicehost.journal import Table
from voicehost.live import AudioClock, LiveTable
from voicehost.rules import rules_for


def test_refused_input_keeps_due_announcements():
    play = Play().speech(1)  # seat 1's floor runs 80..140 s
    game = play.game
    assert game.floor.seat == 1 and game.floor.end == 140.0
    before = snapshot(game)
    with pytest.raises(GameError, match="does not fit"):
        game.handle(parse_event({"type": "votes", "counts": {"3": 4}}), 141.0)
    assert snapshot(game) == before  # the clock did not move either
    spoken = [(o.t, game.book.render(o)) for o in game.advance(141.0)]
    assert spoken == [(130.0, "Десять секунд"), (140.0, "Время"), (140.0, "Слово игроку номер 2")]


def test_refused_input_after_due_timers_changes_nothing():
    """A refusal judged on the game at the input's time is rolled back whole."""
    play = Play().nominate(1, 7).nominate(2, 3)
    play.until(Phase.VOTING)
    game = play.game
    tally_at = game.next_deadline() + game.rules.vote_seconds  # both questions asked
    before = snapshot(game)
    with pytest.raises(GameError, match="add up to 11"):
        game.handle(parse_event({"type": "votes", "counts": {"7": 11}}), tally_at + 1)
    assert snapshot(game) == before
    game.handle(parse_event({"type": "votes", "counts": {"7": 6}}), tally_at + 1)
    assert game.votes[-1].to_json()["counts"] == {"7": 6, "3": 4}


def test_live_table_speaks_due_timers_before_a_refused_input():
    clock = AudioClock()
    live = LiveTable(Table(Moderator.for_rules(rules_for("4mafia"))), clock)
    live.apply_json({"type": "setup", "roles": ROLES})
    heard: list[str] = []
    live.listeners.append(lambda outputs: heard.extend(live.game.book.render(o) for o in outputs))
    clock.skip_to(141.0)
    with pytest.raises(GameError):
        live.apply_json({"type": "votes", "counts": {"3": 4}})
    assert heard[-3:] == ["Десять секунд", "Время", "Слово игроку номер 2"]


REFUSABLE = [
    {"type": "setup", "roles": ROLES},
    {"type": "votes", "counts": {"1": 11}},
    {"type": "lift_votes", "count": 11},
    {"type": "best_player", "seat": 3},
    {"type": "don_check", "seat": 4},
    {"type": "sheriff_check", "seat": 6},
    {"type": "best_move", "seats": [1, 1, 2]},
    {"type": "unfoul", "seat": 5},
    {"type": "resume"},
    {"type": "shot", "seat": 3},
    {"type": "speech", "seat": 9, "words": []},
    {"type": "heal", "seat": 2},
    {"type": "candidates", "seats": [2, 2]},
    {"type": "commissar_check", "seat": 3},
    {"type": "best_player", "seat": 11},
]


def try_refused(game: Moderator, rng: random.Random) -> bool:
    """Apply a likely-refused input at a later time to a copy of the game; when it
    is refused, the copy must equal the untouched game and speak the same."""
    later = game.now + rng.choice([0.5, 3.0, 11.0, 60.0, 200.0])
    try:
        event = parse_event(rng.choice(REFUSABLE), game.max_seat)
    except InputError:
        return False  # e.g. seat 11 at a ten-seat table: refused before it reaches the game
    trial, reference = copy.deepcopy(game), copy.deepcopy(game)
    try:
        trial.handle(event, later)
    except GameError:
        assert snapshot(trial) == snapshot(reference)
        assert trial.advance(later) == reference.advance(later)
        return True
    return False


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rng=st.randoms(use_true_random=False))
def test_refused_inputs_at_a_later_time_lose_nothing(tmp_path_factory, rng):
    kind = RandomCityGame if rng.random() < 0.3 else RandomGame
    play = kind(rng, tmp_path_factory.mktemp("j") / "journal.jsonl")
    tries = refused = 0
    for _ in range(600):
        if rng.random() < 0.15:
            tries += 1
            refused += try_refused(play.game, rng)
        if play.game.phase is Phase.GAME_OVER or not play.move():
            break
    play.journal.close()
    assert refused > 0 or tries < 5


REFUSALS_SEEN = [
    ({"type": "votes", "counts": {"3": 4}}, "does_not_fit", "Ввод «голоса» сейчас не подходит"),
    ({"type": "unfoul", "seat": 5}, "no_foul", "У игрока номер 5 нет замечаний"),
    ({"type": "resume"}, "not_paused", "Игра не на паузе"),
]


@pytest.mark.parametrize(("line", "key", "russian"), REFUSALS_SEEN, ids=[r[1] for r in REFUSALS_SEEN])
def test_refusals_carry_a_key_rendered_in_the_tables_language(line, key, russian):
    game = Play().speech(1).game
    with pytest.raises(GameError) as refused:
        game.handle(parse_event(line), game.now)
    assert refused.value.key == key
    assert game.book.refusal(refused.value) == russian
    assert "(phase: day 1, speech of seat 1)" in str(refused.value)  # English for the log


def test_ua_club_refusals_and_labels_are_ukrainian():
    play = Play("ua-club")
    game = play.game
    with pytest.raises(GameError) as refused:
        game.handle(parse_event({"type": "resume"}), game.now)
    assert game.book.refusal(refused.value) == "Гра не на паузі"
    assert game.book.phase_label(game.phase.value) == "Ніч знайомств: домовленість"


def test_every_refusal_key_the_core_raises_is_in_both_phrasebooks():
    from voicehost.phrasebook import load_phrasebook
    from voicehost.refusals import RefuseKey

    keys = {key.value for key in RefuseKey}   # the core raises these only (tests/test_refusal_keys.py)
    assert len(keys) >= 30 and {"best_player_named", "worst_player_named", "don_out", "sheriff_out", "don_own_seat",
                                "sheriff_own_seat", "does_not_fit_waiting"} <= keys
    for name in ("phrasebook.ru", "phrasebook.uk", "phrasebook.mafclubspb"):
        book = load_phrasebook(name)
        assert keys <= set(book.refuse), (name, sorted(keys - set(book.refuse)))
        assert set(book.phase) >= {p.value for p in Phase} and set(book.status_floor) == set(book.floor)


def test_page_gets_the_refusal_in_the_tables_language():

    from tests.conftest import until
    from tests.webparts import page, paired, post

    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            until(live, Phase.SPEECH)
            response = await post(client, "/api/input", {"type": "resume"}, state["csrf"])
            body = await response.json()
            # What the page shows is in the table's language only (the English reason goes to the log).
            assert response.status == 409 and body["error"] == body["refusal"] == "Игра не на паузе"

    run_async(go(), 60)
