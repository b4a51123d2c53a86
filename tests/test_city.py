"""The city variant (SPEC 3.1): its deal, its night, its wins."""
from __future__ import annotations

import pytest

from tests.conftest import Play
from voicehost.errors import GameError
from voicehost.game.events import parse_event

ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "doctor", "5": "lover",
         "6": "commissar", "7": "citizen", "8": "maniac", "9": "citizen"}


def city(roles=ROLES) -> Play:
    return Play("city", roles=roles)


def to_night(play: Play) -> Play:
    return play.step({"type": "candidates", "seats": []})


@pytest.mark.parametrize("roles,needle", [
    ({str(s): "citizen" for s in range(1, 8)}, "8 to 11 players"),
    ({**ROLES, "10": "commissar"}, "exactly one commissar"),
    ({**ROLES, "2": "citizen"}, "at least one mafia"),
    ({**ROLES, "3": "doctor"}, "at most one doctor"),
    ({**ROLES, "3": "sheriff"}, "unknown role"),
    ({**{k: v for k, v in ROLES.items() if k != "9"}, "10": "citizen"}, "seats 1..N"),
])
def test_SPEC_3_1_deal_is_checked(roles, needle):
    from voicehost.game.moderator import new_game
    from voicehost.rules import rules_for

    game = new_game(rules_for("city"))
    with pytest.raises(GameError, match=needle):
        game.handle(parse_event({"type": "setup", "roles": roles}, 11), 0.0)


def test_SPEC_3_1_eleven_seats():
    roles = {**ROLES, "10": "citizen", "11": "mafia"}
    play = city(roles)
    assert play.game.seats() == list(range(1, 12)) and len(play.game.points()) == 11


def test_SPEC_3_1_night_1_is_acquaintance_only():
    play = city().run_on()
    texts = play.texts()
    assert texts[:4] == ["Наступает ночь", "Просыпается мафия", "Мафия засыпает", "Доброе утро"]
    assert play.game.waiting_for() == "candidates"


def test_SPEC_3_1_lover_visit_cancels_the_heal_not_the_mafia_kill():
    play = to_night(city())
    for line in ({"type": "shot", "seat": 3}, {"type": "heal", "seat": 3}, {"type": "visit", "seat": 4},
                 {"type": "commissar_check", "seat": None}, {"type": "maniac_kill", "seat": None}):
        play.step(line)
    play.run_on()
    assert play.eliminated() == [(3, "shot", 2)]


def test_SPEC_3_1_visited_mafia_still_kills_and_heal_saves_from_the_maniac():
    play = to_night(city())
    for line in ({"type": "shot", "seat": 7}, {"type": "heal", "seat": 1}, {"type": "visit", "seat": 2},
                 {"type": "commissar_check", "seat": 1}, {"type": "maniac_kill", "seat": 1}):
        play.step(line)
    play.run_on()
    assert play.eliminated() == [(7, "shot", 2)]


def test_SPEC_3_1_commissar_check_on_the_maniac_kills_him():
    play = to_night(city())
    for line in ({"type": "shot", "seat": None}, {"type": "heal", "seat": None}, {"type": "visit", "seat": None},
                 {"type": "commissar_check", "seat": 8}):
        play.step(line)
    play.run_on()
    assert play.eliminated() == [(8, "commissar", 2)]
    assert [c.to_json() for c in play.game.checks] == [{"night": 2, "role": "commissar", "seat": 8, "result": "maniac"}]


def test_SPEC_3_1_maniac_wins_with_one_other_left():
    roles = {"1": "maniac", "2": "mafia", "3": "commissar", **{str(s): "citizen" for s in range(4, 9)}}
    play = city(roles)
    play.game.alive = {1, 2, 3, 4}
    play.step({"type": "candidates", "seats": [4]})
    assert play.game.winner is None  # the maniac and two others
    play = city(roles)
    play.game.alive = {1, 2, 3}
    play.step({"type": "candidates", "seats": [3]})
    assert play.game.winner == "maniac" and play.texts()[-1] == "Стоп игра. Победа маньяка"


def test_SPEC_3_1_no_sports_checks_or_best_move():
    play = to_night(city())
    with pytest.raises(GameError, match="no don or sheriff"):
        play.step({"type": "don_check", "seat": 3})
    play.step({"type": "shot", "seat": 9})
    with pytest.raises(GameError):
        play.step({"type": "best_move", "seats": [1, 2, 3]})


def test_SPEC_3_1_dead_actor_cannot_act():
    play = to_night(city())
    play.step({"type": "shot", "seat": 4})
    play.step({"type": "heal", "seat": None})
    play.step({"type": "visit", "seat": None})
    play.step({"type": "commissar_check", "seat": None})
    play.step({"type": "maniac_kill", "seat": None})
    play.step({"type": "candidates", "seats": []})
    assert 4 not in play.game.alive
    with pytest.raises(GameError, match="no doctor in the game"):
        play.step({"type": "heal", "seat": 1})


@pytest.mark.parametrize("healed", [True, False], ids=["heal entered", "no heal"])
def test_SPEC_5_a_city_window_lasts_its_full_time_whatever_was_entered(healed):
    play = to_night(city()).step({"type": "shot", "seat": 3})
    if healed:
        play.step({"type": "heal", "seat": 3})
    play.run_on()
    said = play.said()
    opened = next(o.t for o in said if o.key == "doctor_wakes")
    closed = next(o.t for o in said if o.key == "doctor_sleeps")
    assert closed - opened == play.game.rules.don_seconds


def test_SPEC_5_a_second_city_action_in_one_window_is_refused():
    play = to_night(city()).step({"type": "shot", "seat": 3}).step({"type": "heal", "seat": 3})
    with pytest.raises(GameError) as refused:
        play.step({"type": "heal", "seat": 1})
    assert refused.value.key == "city_acted"
