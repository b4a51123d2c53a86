"""The moderator against SPEC §1–2 (4MAFIA clauses in the test names).

Seating (tests/conftest.py ROLES): blacks 2 (mafia), 4 (don), 7 (mafia);
sheriff 6; the rest citizens."""
from __future__ import annotations

import pytest

from tests.conftest import Play
from voicehost.errors import GameError
from voicehost.game.effects import StartSpeeches
from voicehost.game.model import Phase
from voicehost.game.protocol import snapshot


def day1_no_nominations(play: Play) -> Play:
    """Runs day 1 with silent speeches to the night-2 hunt."""
    return play.shot(None)  # advancing to the shot runs day 1 out


# ------------------------------------------------------------------ night 1


def test_2_1_first_night_sequence_and_times():
    play = Play().speech(1)
    first = [(o.t, o.text) for o in play.said()][:9]
    assert first == [
        (0.0, "Наступает ночь"), (0.0, "Просыпается мафия"),
        (60.0, "Мафия засыпает"), (60.0, "Просыпается Дон"),
        (70.0, "Дон засыпает"), (70.0, "Просыпается Шериф"),
        (80.0, "Шериф засыпает"), (80.0, "Доброе утро"),
        (80.0, "Слово игроку номер 1"),
    ]


def test_2_1_no_shot_or_check_on_night_1():
    from voicehost.game.events import parse_event

    play = Play()
    play.game.advance(65.0)  # the Don's acquaintance window
    assert play.game.phase is Phase.DON_MEETING
    for line in ({"type": "don_check", "seat": 6}, {"type": "shot", "seat": 5}):
        with pytest.raises(GameError, match="does not fit"):
            play.game.handle(parse_event(line), 65.0)
    play.shot(5)  # a script's first shot waits for night 2
    assert play.game.night == 2


# --------------------------------------------------------------------- day


def test_2_2_1_speech_60s_warning_at_50s_and_close():
    play = Play().speech(1).speech(2)
    keyed = [(o.t, o.key) for o in play.said() if o.t < 141]
    assert (130.0, "ten_seconds") in keyed and (140.0, "floor_over") in keyed
    assert play.game.floor.seat == 2 and play.game.floor.start == 140.0


def test_2_2_5_thanks_ends_speech_at_once():
    play = Play().speech(1, "я мирный спасибо").speech(2)
    assert play.game.floor.start == pytest.approx(80.0 + 0.3 * 3 + 0.1 * 2)


def test_2_2_5_pass_ends_after_silence_window():
    play = Play().speech(1, "пас").speech(2)
    assert play.game.floor.start == pytest.approx(80.3 + 1.5)


def test_2_2_2_speech_order_day1_from_seat_1():
    play = Play()
    play.step({"type": "shot", "seat": None})
    floors = [o.data["seat"] for o in play.said("floor_speech")]
    assert floors == list(range(1, 11))


def test_2_2_2_opener_rotates_and_skips_the_dead():
    play = Play().shot(2)  # night 2: seat 2 killed; day 2 opens with 3 (first alive after 1)
    play.shot(None)
    day2 = [o.data["seat"] for o in play.said("floor_speech")][10:]
    assert day2 == [3, 4, 5, 6, 7, 8, 9, 10, 1]
    play.shot(None)
    day3 = [o.data["seat"] for o in play.said("floor_speech")][19:]
    assert day3[0] == 4


def test_3_4_silenced_player_skips_next_speech_and_opener_still_rotates():
    play = Play()
    for _ in range(3):
        play.seat_event("foul", 1)
    play.shot(None)
    assert [o.data["seat"] for o in play.said("floor_speech")][:2] == [2, 3]
    assert play.said("silenced_skips")[0].data["seat"] == 1
    play.shot(None)
    # Day 2 opens with seat 2, whether or not seat 1 spoke on day 1.
    assert [o.data["seat"] for o in play.said("floor_speech")][9] == 2


def test_3_4_third_foul_in_own_speech_costs_next_days_speech():
    play = Play().speech(1)
    for _ in range(3):
        play.seat_event("foul", 1)
    assert play.game.floor.seat == 1  # the speech that started goes on
    play.shot(None).shot(None)
    day2 = [o.data["seat"] for o in play.said("floor_speech")][10:19]
    assert 1 not in day2 and len(day2) == 9


def test_3_4_silence_does_not_touch_tie_speech_or_last_word():
    play = Play().nominate(1, 3).nominate(2, 5)
    for _ in range(3):
        play.seat_event("foul", 3)
    play.votes({3: 5})  # 5:5 tie between 3 and 5
    assert play.game.phase is Phase.TIE_SPEECH and play.game.floor.seat == 3


def test_3_4_three_players_left_silenced_speaks_anyway():
    play = Play().speech(1)
    play.game.alive, play.game.opener = {1, 2, 6}, None
    play.game.silenced = {1}
    play.game._run([StartSpeeches()])
    assert play.game.floor.seat == 1 and play.said("silenced_skips") == []


def test_2_2_4_host_question_answered_with_nominations():
    play = Play().nominate(1, 7).speech(2, "господин ведущий выставленные игроки")
    answer = play.said("host_answer")
    assert answer and answer[0].text == "Выставлены игроки номер 7"
    assert play.game.floor.seat == 2  # the clock keeps running: same floor


# ------------------------------------------------------------- nominations


def test_2_3_2_accepted_nomination_is_confirmed_at_its_number():
    play = Play().speech(1, "выставляю седьмого")
    (said,) = play.said("accepted")
    assert said.text == "Принят номер 7" and said.t == pytest.approx(80.7)
    assert [n.to_json() for n in play.game.nominations] == [{"day": 1, "by": 1, "target": 7}]


def test_SPEC_confirmation_phrase_is_configurable():
    play = Play(confirmation="Принято").speech(1, "выставляю седьмого")
    assert play.said("accepted")[0].text == "Принято"


def test_SPEC_rejections_are_silent_unless_training():
    play = Play().speech(1, "выставляю пожалуй седьмого")
    assert play.game.today == [] and play.said("accepted") == []
    play = Play(explain_rejections=True).speech(1, "выставляю пожалуй седьмого")
    assert "пожалуй" in play.said("extra_words")[0].text


def test_SPEC_nominations_only_in_own_regular_speech():
    play = Play().nominate(1, 3).nominate(2, 5).votes({3: 6})
    play.speech(3, "выставляю семь")  # last word: no nomination
    assert [n.to_json() for n in play.game.nominations] == [{"day": 1, "by": 1, "target": 3},
                                     {"day": 1, "by": 2, "target": 5}]


def test_2_3_5_one_nomination_per_player_per_day():
    play = Play().speech(1, "выставляю семь и ещё выставляю три")
    assert play.game.today == [7]


def test_SPEC_already_nominated_seat_keeps_right():
    play = Play().nominate(1, 7).speech(2, "выставляю семь выставляю три")
    assert play.game.today == [7, 3]


# ------------------------------------------------------------------- voting


def test_2_3_1_no_nominations_night():
    play = Play().shot(None)
    assert play.said("no_nominees") and play.game.votes == []


def test_2_3_12_day1_single_nominee_no_vote():
    play = Play().nominate(1, 7).shot(None)
    assert play.said("single_day_one") and play.game.votes == []
    assert 7 in play.game.alive


def test_2_3_12_day2_single_nominee_gets_every_vote():
    play = Play().shot(None).nominate(2, 7)
    play.run_on()
    assert [v.to_json() for v in play.game.votes] == [{"day": 2, "round": 1, "counts": {"7": 10}}]
    assert play.eliminated() == [(7, "vote", 2)]


def test_2_3_6_vote_order_is_nomination_order_and_questions_timed():
    play = Play().nominate(3, 7).nominate(5, 2)
    play.votes({7: 6})
    questions = play.said("vote_question")
    assert [q.data["seat"] for q in questions] == [7, 2]
    assert questions[1].t - questions[0].t == 1.0  # 1 s per candidate, then "Спасибо"


def test_2_3_10_remainder_goes_to_last_candidate():
    play = Play().nominate(1, 7).nominate(2, 3).nominate(4, 5)
    play.votes({7: 2, 3: 1})
    assert play.game.votes[-1].to_json()["counts"] == {"7": 2, "3": 1, "5": 7}
    assert play.eliminated() == [(5, "vote", 1)]


def test_2_3_10_full_counts_must_sum_to_alive():
    play = Play().nominate(1, 7).nominate(2, 3)
    with pytest.raises(GameError, match="add up to 9"):
        play.votes({7: 5, 3: 4})
    with pytest.raises(GameError, match="more than the 10"):
        play.votes({7: 11})


def test_2_3_13_unique_maximum_leaves_with_60s_last_word():
    play = Play().nominate(1, 7).nominate(2, 3).votes({7: 6})
    assert play.eliminated() == [(7, "vote", 1)]
    floor = play.game.floor
    assert (floor.seat, floor.kind.value, floor.end - floor.start) == (7, "last_word", 60.0)


def test_2_3_14_tie_speeches_in_nomination_order_then_revote():
    play = Play().nominate(1, 7).nominate(2, 3).votes({7: 5})
    assert play.said("tie")[0].data["seats"] == [7, 3]
    play.speech(7, "спасибо")
    floor = play.game.floor
    assert (floor.seat, floor.end - floor.start) == (3, 30.0)
    play.votes({7: 6})
    assert play.game.votes[-1].to_json() == {"day": 1, "round": 2, "counts": {"7": 6, "3": 4}}
    assert play.eliminated() == [(7, "vote", 1)]


def test_2_3_14_smaller_tie_repeats_speeches_for_that_set():
    play = Play().nominate(1, 7).nominate(2, 3).nominate(4, 5)
    play.votes({7: 4, 3: 2})  # 7:4, 3:2, 5:4 -> tie 7, 5
    assert play.game.tied == [7, 5]
    play.votes({7: 5})  # 5:5 -> same set -> lift
    assert play.game.phase is Phase.LIFT_VOTE


def test_2_3_14_three_way_then_smaller_tie():
    play = Play().nominate(1, 7).nominate(2, 3).nominate(4, 5)
    play.votes({7: 3, 3: 3})  # 3:3:4 -> 5 leaves
    assert play.eliminated() == [(5, "vote", 1)]
    play = Play().nominate(1, 7).nominate(2, 3).nominate(4, 5).nominate(5, 6)
    play.votes({7: 3, 3: 3, 5: 3})  # 3:3:3:1 tie of three
    assert play.game.tied == [7, 3, 5]
    play.votes({7: 4, 3: 4})  # 4:4:2 -> smaller tie 7, 3 -> speeches again
    assert play.game.tied == [7, 3] and play.game.phase is Phase.TIE_SPEECH
    play.votes({7: 5})  # same set again -> lift question
    assert play.game.phase is Phase.LIFT_VOTE


def test_2_3_14_lift_majority_all_leave_in_nomination_order():
    play = Play().nominate(1, 7).nominate(2, 3).votes({7: 5}).votes({7: 5}).lift(6)
    assert play.game.votes[-1].to_json() == {"day": 1, "round": 3, "lift": 6}
    assert play.eliminated() == [(7, "lift", 1), (3, "lift", 1)]
    assert [o.data["seat"] for o in play.said("floor_last_word")] == [7]
    play.speech(7, "спасибо")
    assert play.game.floor.seat == 3 and play.game.floor.end - play.game.floor.start == 60.0


def test_2_3_14_lift_half_or_less_all_stay():
    play = Play().nominate(1, 7).nominate(2, 3).votes({7: 5}).votes({7: 5}).lift(5)
    assert play.game.eliminated == [] and play.game.phase is Phase.HUNT


def test_2_3_16_removal_before_vote_cancels_days_vote():
    play = Play().nominate(1, 7).speech(2)
    play.seat_event("disqualify", 9)
    play.nominate(3, 5)
    play.run_on()
    assert play.said("vote_cancelled") and play.game.votes == []
    assert play.game.today == [7, 5]  # nominations still taken


def test_2_3_15_removal_during_vote_stops_it():
    play = Play().nominate(1, 7).nominate(2, 3).votes({7: 5})  # tie speeches
    play.seat_event("disqualify", 9)
    assert play.game.phase is Phase.HUNT and play.said("vote_cancelled")


def test_2_3_15_removal_after_result_both_leave():
    play = Play().nominate(1, 7).nominate(2, 3).votes({7: 6})
    play.seat_event("disqualify", 9)
    assert play.eliminated() == [(7, "vote", 1), (9, "disqualified", 1)]
    assert play.game.floor.seat == 7  # the last word goes on


# -------------------------------------------------------------------- night


def test_2_4_night_announcements_and_hunt_numbers():
    play = Play().shot(5)
    said = [o.text for o in play.said()]
    i = said.index("Мафия выходит на охоту")
    assert said[i - 1] == "Наступает ночь"
    play.run_on()
    said = [o.text for o in play.said()]
    assert said[i + 1:i + 11] == [str(n) for n in range(1, 11)]
    assert said[i + 11:i + 14] == ["Мафия засыпает", "Просыпается Дон и ищет Шерифа", "Дон засыпает"]


def test_2_4_4_shot_takes_effect_in_the_morning_and_victim_still_checks():
    play = Play().shot(6)
    play.seat_event("sheriff_check", 4)
    assert [c.to_json() for c in play.game.checks] == [{"night": 2, "role": "sheriff", "seat": 4, "result": "black"}]
    assert play.eliminated() == []  # the sheriff's window runs its full time (SPEC §5)
    play.until(Phase.LAST_WORD)
    assert play.eliminated() == [(6, "shot", 2)]
    assert play.said("killed")[0].text == "Этой ночью убит игрок номер 6"


def test_2_4_checks_are_private():
    play = Play().shot(None)
    play.seat_event("don_check", 6)
    (answer,) = play.said("don_yes")
    assert answer.private and answer.to_json()["private"] is True
    assert answer.t >= play.said("don_wakes")[0].t


def test_2_4_miss_announced():
    play = Play().shot(None).run_on()
    assert "Этой ночью никто не пострадал" in play.texts()


def test_2_4_dead_roles_windows_still_announced():
    play = Play().shot(6).shot(None)  # sheriff dead on night 2; night 3
    play.run_on()
    assert len(play.said("sheriff_wakes")) == 2
    with pytest.raises(GameError, match="sheriff is out"):
        play.seat_event("sheriff_check", 2)


def test_2_4_check_of_seat_out_refused_in_4mafia():
    play = Play().shot(5).shot(None)
    with pytest.raises(GameError, match="out of the game"):
        play.seat_event("don_check", 5)


def test_fiim_check_of_seat_out_answered():
    play = Play("fiim").shot(5).shot(None)
    play.seat_event("don_check", 5)
    assert play.game.checks[-1].to_json() == {"night": 3, "role": "don", "seat": 5, "result": "not_sheriff"}


# ----------------------------------------------------------------- the end


def test_1_7_black_wins_at_parity_no_last_word():
    play = Play()
    play.game.alive = {2, 4, 7, 1, 3, 5, 6}  # 3 black, 4 red
    play.nominate(1, 3).nominate(2, 7).votes({3: 7})
    assert play.game.winner == "black" and play.game.phase is Phase.GAME_OVER
    assert play.said("black_wins")[0].text == "Стоп игра. Победа мафии"
    assert play.said("floor_last_word") == []


def test_1_7_red_wins_when_no_black_left():
    play = Play()
    play.game.alive = {1, 3, 4, 5, 6}
    play.nominate(1, 4).nominate(3, 5).votes({4: 5})
    assert play.game.winner == "red" and play.texts()[-1] == "Стоп игра. Победа мирного города"


def test_1_7_group_leave_one_win_check_red_if_no_black():
    play = Play()
    play.game.alive = {1, 3, 4, 5}
    play.nominate(1, 4).nominate(3, 5).votes({4: 2}).votes({4: 2}).lift(3)
    assert play.game.winner == "red"


def test_1_7_2_three_quiet_nights_red_wins():
    play = Play().shot(None).shot(None).shot(None).run_on()
    assert play.game.winner == "red"
    assert "Три ночи подряд промах, никто не покидал игру" in play.texts()


def test_1_7_2_leaving_in_between_resets_quiet_nights():
    play = Play().shot(None).nominate(2, 9).run_on()  # day 2: 9 leaves by vote
    play.shot(None).shot(None).run_on()
    assert play.game.winner is None and play.game.misses == 2


def test_mafclubspb_has_no_quiet_rounds_rule():
    play = Play("mafclubspb").shot(None).shot(None).shot(None).run_on()
    assert play.game.winner is None


# -------------------------------------------------------------- discipline


def test_3_5_fourth_foul_removes_at_once_no_last_word():
    play = Play().speech(1)
    for _ in range(4):
        play.seat_event("foul", 1)
    assert play.eliminated() == [(1, "fouls", 1)]
    assert play.game.floor.seat == 2  # floor cut, next speaker
    assert play.said("floor_last_word") == []


def test_3_1_foul_during_own_last_word_and_fourth_cuts_it():
    play = Play().nominate(1, 3).nominate(2, 5).votes({3: 6})
    for _ in range(4):
        play.seat_event("foul", 3)
    assert play.game.fouls[3] == 4 and play.game.floor is None or play.game.floor.seat != 3
    assert play.eliminated() == [(3, "vote", 1)]


def test_3_fouls_on_seat_out_refused():
    play = Play().shot(5).shot(None)
    with pytest.raises(GameError, match="not in the game"):
        play.seat_event("foul", 5)


def test_3_8_1_leaving_the_table_loses_for_the_team():
    play = Play().speech(1)
    play.seat_event("leave_table", 2)  # a black player
    assert play.game.winner == "red" and play.eliminated() == [(2, "left_table", 1)]


def test_3_7_disqualification_at_night_labelled_by_night():
    play = Play().shot(None)
    play.seat_event("disqualify", 9)
    assert play.eliminated() == [(9, "disqualified", 2)]
    assert play.game.eliminated[0].to_json() == {"seat": 9, "cause": "disqualified", "night": 2}


# ------------------------------------------------------------------ scoring


def _red_win_with_best_move(blacks_named: list[int]) -> Play:
    play = Play().shot(5)
    play.step({"type": "best_move", "seats": blacks_named})
    return play


def test_4_3_best_move_three_blacks_half_point():
    play = _red_win_with_best_move([2, 4, 7])
    best = play.game.best_move
    assert best is not None and best.to_json() == {"seat": 5, "named": [2, 4, 7], "blacks": 3}
    assert play.game.points()[5] == 0.5


def test_4_3_best_move_two_blacks_quarter_point():
    assert _red_win_with_best_move([2, 4, 9]).game.points()[5] == 0.25


def test_4_3_3_sheriff_has_no_best_move():
    play = Play().shot(6).until(Phase.LAST_WORD)
    before = snapshot(play.game)
    with pytest.raises(GameError, match="4.3.3"):
        play.step({"type": "best_move", "seats": [2, 4, 7]})
    assert snapshot(play.game) == before


def test_fiim_sheriff_best_move_scored():
    play = Play("fiim").shot(6)
    play.step({"type": "best_move", "seats": [2, 4, 7]})
    assert play.game.points()[6] == 0.5


def test_4_3_best_move_only_for_night_2_victim():
    play = Play().shot(None).shot(5)
    with pytest.raises(GameError, match="night 2"):
        play.step({"type": "best_move", "seats": [2, 4, 7]})


def test_4_2_4_4_points_winners_best_and_worst():
    play = Play()
    play.game.alive = {1, 3, 4, 5, 6}
    play.nominate(1, 4).nominate(3, 5).votes({4: 5})
    play.seat_event("best_player", 3).seat_event("worst_player", 1)
    points = play.game.points()
    assert points[3] == 1.75 and points[1] == 0.0 and points[2] == 0.0 and points[10] == 1.0
    with pytest.raises(GameError, match="already named"):
        play.seat_event("best_player", 5)


# ------------------------------------------------------------------ presets


def test_fiim_first_day_vote_none():
    play = Play("fiim", first_day_vote="none").nominate(1, 7).nominate(2, 3).shot(None)
    assert play.game.votes == [] and play.said("no_vote_day_one")


def test_fiim_lift_only_unique_leader_not_removed_then_lift():
    play = Play("fiim", first_day_vote="lift_only").nominate(1, 7).nominate(2, 3)
    play.votes({7: 6})
    assert play.game.phase is Phase.TIE_SPEECH and play.game.tied == [7]
    play.lift(5)
    assert play.game.eliminated == [] and play.game.phase is Phase.HUNT
    play = Play("fiim", first_day_vote="lift_only").nominate(1, 7).nominate(2, 3)
    play.votes({7: 5}).lift(6)
    assert play.eliminated() == [(7, "lift", 1), (3, "lift", 1)]


def test_fiim_silenced_player_gets_short_speech():
    play = Play("fiim")
    for _ in range(3):
        play.seat_event("foul", 1)
    play.speech(1, "выставляю семь")
    floor_1 = play.said("silenced_speaks")[0]
    assert floor_1.data["seconds"] == 10.0 and play.game.today == [7]


def test_fiim_removal_after_result_cancels_next_days_vote():
    play = Play("fiim").nominate(1, 3).nominate(2, 5).votes({3: 6})
    play.seat_event("disqualify", 9)  # during 3's last word
    play.shot(None).nominate(4, 7).nominate(5, 8)
    play.run_on()
    assert play.said("vote_cancelled") and len(play.game.votes) == 1


def test_fiim_everyone_tied_means_night():
    play = Play("fiim")
    play.game.alive = {1, 2, 3, 4}
    play.nominate(1, 2).nominate(2, 3).nominate(3, 4).nominate(4, 1)
    play.votes({2: 1, 3: 1, 4: 1})
    assert play.said("everyone_tied") and play.game.phase is Phase.HUNT


def test_fiim_three_quiet_rounds_draw():
    play = Play("fiim").shot(None).shot(None).shot(None)
    assert play.game.winner is None
    play.run_on()  # the end of day 4 closes the third quiet round
    assert play.game.winner == "draw" and play.texts()[-1] == "Стоп игра. Ничья"


def test_ua_club_no_revote_with_four_left():
    play = Play("ua-club")
    play.game.alive = {1, 2, 3, 6}
    play.nominate(1, 2).nominate(2, 3).votes({2: 2})
    assert play.said("no_revote") and play.game.phase is Phase.HUNT


def test_classic_single_nominee_day2_leaves_without_vote():
    play = Play("classic").shot(None)
    play.speech(2, "выставляю кандидатуру игрока номер семь").run_on()
    assert play.eliminated() == [(7, "vote", 2)] and play.game.votes == []


# ------------------------------------------------------------- bad input


BAD_INPUTS = [
    ({"type": "votes", "counts": {"5": 3}}, "not a candidate"),
    ({"type": "votes", "counts": {"7": 11}}, "more than"),
    ({"type": "lift_votes", "count": 3}, "does not fit"),
    ({"type": "foul", "seat": 5}, None),
    ({"type": "best_player", "seat": 3}, "does not fit"),
    ({"type": "don_check", "seat": 3}, "does not fit"),
    ({"type": "setup", "roles": {}}, "already set up"),
    ({"type": "best_move", "seats": [1, 2, 3]}, "does not fit"),
]


@pytest.mark.parametrize("line,needle", BAD_INPUTS, ids=[b[0]["type"] for b in BAD_INPUTS])
def test_bad_host_input_leaves_state_untouched(line, needle):
    from voicehost.game.events import parse_event

    play = Play().nominate(1, 7).nominate(2, 3)
    play.sim.run_on()  # at the tally
    assert play.game.phase is Phase.TALLY
    before = snapshot(play.game)
    if needle is None:  # a valid input, to prove the snapshot sees changes
        play.game.handle(parse_event(line), play.game.now)
        assert snapshot(play.game) != before
        return
    with pytest.raises(GameError, match=needle):
        play.game.handle(parse_event(line), play.game.now)
    assert snapshot(play.game) == before


def test_setup_roles_validated():
    from voicehost.game.events import parse_event
    from voicehost.game.moderator import Moderator
    from voicehost.rules import rules_for

    game = Moderator.for_rules(rules_for("4mafia"))
    roles = {str(s): "citizen" for s in range(1, 11)}
    with pytest.raises(GameError, match="setup needs 6 citizen"):
        game.handle(parse_event({"type": "setup", "roles": roles}), 0)
    assert game.phase is Phase.SETUP


def test_words_after_thanks_do_not_move_the_clock():
    play = Play().speech(1, "спасибо <30> выставляю семь")
    assert play.game.floor.seat == 2
    assert play.game.now == pytest.approx(80.3) and play.game.floor.start == pytest.approx(80.3)
    assert play.game.today == []


def test_pause_and_resume_shift_the_floor():
    play = Play().speech(1)
    start_end = play.game.floor.end
    play.step({"type": "pause"})
    play.game.advance(play.game.now + 100)
    assert play.game.floor.seat == 1  # frozen
    play.step({"type": "resume"})
    assert play.game.floor.end == pytest.approx(start_end + 100)


def test_next_closes_the_floor():
    play = Play().speech(1)
    play.step({"type": "next"})
    assert play.game.floor.seat == 2


def test_mafclubspb_speaks_its_own_announcements():
    play = Play("mafclubspb").speech(1)
    texts = play.texts()
    assert "Засыпает Дон" in texts and "Утро. Все просыпаются" in texts and "Дон засыпает" not in texts


def _window(play: Play, wakes: str, sleeps: str, night: int = 2) -> float:
    said = play.said()
    opened = [o.t for o in said if o.key == wakes][night - 2]
    closed = [o.t for o in said if o.key == sleeps and o.t >= opened][0]
    return closed - opened


@pytest.mark.parametrize("how", ["checked at once", "no check", "role dead"])
def test_spec_5_a_check_window_lasts_its_full_time_whatever_was_entered(how):
    """SPEC §5: "Шериф засыпает" comes the same time after "Просыпается Шериф"
    whether the sheriff lives and checks, lives and does not, or is dead."""
    play = Play()
    sheriff = play.game.role_seat("sheriff")
    if how == "role dead":
        play.step({"type": "disqualify", "seat": sheriff})
    play.shot(None)
    if how == "checked at once":
        play.seat_event("don_check", 3 if sheriff != 3 else 4)
        play.seat_event("sheriff_check", 2 if sheriff != 2 else 1)
    play.until(Phase.SPEECH)
    assert _window(play, "don_wakes", "don_sleeps") == play.game.rules.don_seconds
    assert _window(play, "sheriff_wakes", "sheriff_sleeps") == play.game.rules.sheriff_seconds


def test_spec_5_a_second_check_in_one_window_is_refused_and_changes_nothing():
    play = Play().shot(None).seat_event("don_check", 3)
    before = snapshot(play.game)
    with pytest.raises(GameError) as refused:
        play.seat_event("don_check", 4)
    assert refused.value.key == "don_checked"
    assert play.game.book.refusal(refused.value) == "Дон уже проверил игрока этой ночью"
    assert snapshot(play.game) == before


@pytest.mark.parametrize("announce", [False, True], ids=["6.1-seats-alone", "6.1-names-announced"])
def test_6_1_a_club_can_hear_the_players_name_after_the_seat(announce):
    play = Play(announce_names=announce)
    play.step({"type": "names", "names": {"1": "Алиса", "3": "Вера"}})
    play.until(Phase.SPEECH)
    opening = play.said("floor_speech")[0].text
    assert opening == ("Слово игроку номер 1, Алиса" if announce else "Слово игроку номер 1")
    play.nominate(1, 3).nominate(2, 5).until(Phase.TALLY)
    question = play.said("vote_question")[0].text
    assert question == ("Кто за то, чтобы игрок номер 3, Вера, покинул игровой стол?" if announce
                        else "Кто за то, чтобы игрок номер 3 покинул игровой стол?")


def test_2_3_the_host_nominates_by_hand_under_the_same_rules():
    play = Play().until(Phase.SPEECH)
    play.seat_event("nominate", 7)
    assert [n.to_json() for n in play.game.nominations] == [{"day": 1, "by": 1, "target": 7}]
    assert play.said("accepted")[-1].text == "Принят номер 7"
    for target, key in ((8, "nominate_second_nomination"),):
        before = snapshot(play.game)
        with pytest.raises(GameError) as refused:
            play.seat_event("nominate", target)
        assert refused.value.key == key and snapshot(play.game) == before
    play.step({"type": "next"})   # seat 2 has the floor
    assert play.game.floor.seat == 2
    with pytest.raises(GameError) as refused:
        play.seat_event("nominate", 7)
    assert play.game.book.refusal(refused.value) == "Игрок номер 7 уже выставлен"
