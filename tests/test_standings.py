"""The standings of a series (SPEC §6.2, 4MAFIA 4.5) and protests (§6.3, 1.8),
each order rule with its clause in the test id."""
from __future__ import annotations

import json

import pytest

from tests.conftest import series_protocol as protocol
from voicehost.series.standings import TEAM_OF, Lot, game_from, standings


def table(*protocols: dict, lot: Lot | None = None) -> list[dict]:
    return [row.to_json() for row in standings([game_from(p) for p in protocols], lot or Lot(seed=1))]


def by_name(rows: list[dict]) -> dict[str, dict]:
    return {row["name"]: row for row in rows}


def order(rows: list[dict]) -> list[str]:
    return [row["name"] for row in rows]


def test_6_4_a_row_has_every_field_of_the_spec():
    rows = table(protocol("red", {"Алиса": "sheriff", "Борис": "don"}, best="Алиса"))
    assert rows[0] == {"place": 1, "name": "Алиса", "games": 1, "wins": 1, "points": 1.75, "coefficient": 1.75,
                       "bests": 1, "worsts": 0, "best_moves": 0,
                       "wins_by_role": {"citizen": 0, "sheriff": 1, "mafia": 0, "don": 0}, "decided_by": None}
    assert rows[1]["place"] == 2 and rows[1]["decided_by"] == "coefficient"


def test_4_5_coefficient_comes_first_and_is_rounded_only_for_display():
    games = [protocol("red", {"А": "citizen", "Б": "mafia", "В": "citizen"}),
             protocol("red", {"А": "citizen", "Б": "mafia"}),
             protocol("black", {"А": "citizen", "Б": "mafia"})]
    rows = by_name(table(*games))
    assert rows["А"]["coefficient"] == 0.6667 and rows["В"]["coefficient"] == 1.0
    assert order(table(*games))[:2] == ["В", "А"]


def test_4_5_1_equal_coefficients_more_points_first():
    rows = table(protocol("red", {"А": "citizen", "Я": "mafia"}), protocol("red", {"А": "citizen", "Я": "mafia"}),
                 protocol("red", {"Б": "citizen", "Ю": "mafia"}))
    assert order(rows)[:2] == ["А", "Б"] and rows[1]["decided_by"] == "points"


def test_4_5_2_equal_points_more_wins_first():
    # А: one win (1.0); Б: a loss with best player (0.75) and a scoring best move (0.25) = 1.0
    rows = table(protocol("red", {"А": "citizen", "Я": "mafia"}),
                 protocol("black", {"Б": "citizen", "Ю": "mafia"}, best="Б", move=("Б", 2)))
    pair = [r for r in rows if r["name"] in "АБ"]
    assert order(pair) == ["А", "Б"] and pair[1]["decided_by"] == "wins"   # above Б: А, or Ю who won too
    assert by_name(rows)["Б"]["best_moves"] == 1


def test_4_5_3_equal_wins_more_bests_first():
    # А: win + best (1.75), loss (0); Б: win + best move of 3 (1.5), loss + best move of 2 (0.25)
    rows = table(protocol("red", {"А": "citizen", "Я": "mafia"}, best="А"),
                 protocol("black", {"А": "citizen", "Я": "mafia"}),
                 protocol("red", {"Б": "citizen", "Ю": "mafia"}, move=("Б", 3)),
                 protocol("black", {"Б": "citizen", "Ю": "mafia"}, move=("Б", 2)))
    assert order(rows)[:2] == ["А", "Б"] and rows[1]["decided_by"] == "bests"


def _heavy_case(extra_winner: str, a_role: str, b_role: str, **extra) -> list[dict]:
    """А and Б equal in all but the role of their one win; one more game decides
    which colour won more often (or, drawn even, which earned fewer bests − worsts)."""
    games = [protocol(TEAM_OF[a_role], {"А": a_role, "Я": "mafia" if TEAM_OF[a_role] == "red" else "citizen"}),
             protocol(TEAM_OF[b_role], {"Б": b_role, "Ю": "mafia" if TEAM_OF[b_role] == "red" else "citizen"})]
    if extra_winner:   # its winner is the worst player, so no one ties with А or Б
        winner = "Ц" if extra_winner == "red" else "Ч"
        games.append(protocol(extra_winner, {"Ц": "citizen", "Ч": "mafia"}, worst=winner, **extra))
    return table(*games)


@pytest.mark.parametrize(("extra", "a_role", "b_role"), [
    ("red", "don", "mafia"), ("red", "mafia", "sheriff"), ("red", "sheriff", "citizen"),
    ("black", "sheriff", "citizen"), ("black", "citizen", "don"), ("black", "don", "mafia"),
], ids=["4.5.4-red-won-more-don-before-mafia", "4.5.4-red-won-more-mafia-before-sheriff",
        "4.5.4-red-won-more-sheriff-before-citizen", "4.5.4-black-won-more-sheriff-before-citizen",
        "4.5.4-black-won-more-citizen-before-don", "4.5.4-black-won-more-don-before-mafia"])
def test_4_5_4_the_heavy_role_by_the_colour_that_won_less(extra, a_role, b_role):
    rows = [r for r in _heavy_case(extra, a_role, b_role) if r["name"] in "АБ"]
    assert order(rows) == ["А", "Б"]
    assert rows[1]["decided_by"] == "heavy_role"


@pytest.mark.parametrize(("best", "worst", "a_role", "b_role"), [
    ("Ц", None, "don", "sheriff"),     # red earned more bests − worsts: black is heavy -> don first
    (None, "Ц", "sheriff", "don"),     # red earned fewer: red is heavy -> sheriff first
    ("Ч", None, "sheriff", "don"),     # black earned more: red heavy
], ids=["4.5.4-equal-wins-red-earned-more-black-heavy", "4.5.4-equal-wins-red-earned-less-red-heavy",
        "4.5.4-equal-wins-black-earned-more-red-heavy"])
def test_4_5_4_equal_wins_the_heavy_colour_earned_fewer_bests_minus_worsts(best, worst, a_role, b_role):
    # А's win and Б's win are one red and one black: the colours won equally often;
    # a drawn game (fiim) names the best or worst player who tips bests − worsts
    games = [protocol(TEAM_OF[a_role], {"А": a_role, "Я": "citizen" if TEAM_OF[a_role] == "black" else "mafia"}),
             protocol(TEAM_OF[b_role], {"Б": b_role, "Ю": "citizen" if TEAM_OF[b_role] == "black" else "mafia"}),
             protocol("draw", {"Ц": "citizen", "Ч": "mafia"}, best=best, worst=worst)]
    rows = [r for r in table(*games) if r["name"] in "АБ"]
    assert order(rows) == ["А", "Б"] and rows[1]["decided_by"] == "heavy_role"


def test_4_5_4_equal_wins_and_equal_bests_minus_worsts_the_heavy_role_decides_nothing():
    games = [protocol("black", {"А": "don", "Я": "citizen"}), protocol("red", {"Б": "sheriff", "Ю": "mafia"})]
    rows = [r for r in table(*games) if r["name"] in "АБ"]
    assert rows[1]["decided_by"] == "lot"


def test_4_5_5_all_equal_the_lot_decides_and_a_seed_repeats_it():
    games = [protocol("red", {"А": "citizen", "Я": "mafia"}), protocol("red", {"Б": "citizen", "Ю": "mafia"})]
    first = table(*games, lot=Lot(seed=7))
    assert first[1]["decided_by"] == "lot"
    assert order(table(*games, lot=Lot(seed=7))) == order(first)
    seen = {tuple(order(table(*games, lot=Lot(seed=s)))[:2]) for s in range(20)}
    assert seen == {("А", "Б"), ("Б", "А")}   # a real draw, not the input order


def test_4_5_5_a_kept_lot_is_not_drawn_again():
    games = [protocol("red", {"А": "citizen", "Я": "mafia"}), protocol("red", {"Б": "citizen", "Ю": "mafia"})]
    lot = Lot()
    first = order(table(*games, lot=lot))
    kept = dict(lot.draws)
    for _ in range(5):
        assert order(table(*games, lot=lot)) == first
    assert lot.draws == kept


@pytest.mark.parametrize("names", [("Алёна", "алена"), ("ВЕРА", "вера"), ("Ёлка", "елка")],
                         ids=["6.1-yo-is-ye", "6.1-case", "6.1-capital-yo"])
def test_6_1_names_differing_only_by_case_or_yo_are_one_player(names):
    rows = table(protocol("red", {names[0]: "citizen", "Я": "mafia"}),
                 protocol("red", {names[1]: "sheriff", "Ю": "mafia"}))
    merged = [r for r in rows if r["games"] == 2]
    assert len(merged) == 1 and merged[0]["name"] == names[0] and merged[0]["wins"] == 2


RED_WON = {"А": "citizen", "Б": "sheriff", "В": "mafia"}   # 2 red, 1 black: red passes with 3 votes


@pytest.mark.parametrize(("protest", "expect"), [
    ({"team": "black", "votes": 2, "outcome": "changed"}, {"В": 1.0, "А": 0.75}),  # best player kept
    ({"team": "black", "votes": 1, "outcome": "changed"}, {"А": 1.75, "В": 0.0}),  # no opponent voted: fails
    ({"team": "black", "votes": 2, "outcome": "annulled"}, {}),
    ({"team": "black", "votes": 2, "outcome": "replayed"}, {}),
    ({"team": "red", "votes": 2, "outcome": "annulled"}, {"А": 1.75, "В": 0.0}),   # red needs 3 votes
], ids=["1.8-changed", "1.8.3-failed-without-an-opponent", "1.8-annulled", "1.8-replayed",
        "1.8.3-failed-short-of-the-team"])
def test_6_3_a_protest_changes_the_standings_only_when_it_passes(protest, expect):
    rows = by_name(table(protocol("red", RED_WON, best="А", protest=protest)))
    assert {name: rows[name]["points"] for name in expect} == expect
    if not expect:
        assert rows == {}
    if protest["outcome"] == "changed" and expect["В"] == 1.0:
        assert rows["В"]["wins_by_role"]["mafia"] == 1 and rows["А"]["wins"] == 0
        assert rows["А"]["bests"] == 1   # the best player is kept


@pytest.mark.parametrize(("change", "needle"), [
    ({"roles": None}, "roles"), ({"players": {}}, "players"),
    ({"players": {"1": "A<b>", "2": "Б", "3": "В"}}, "players: seat 1"),
    ({"players": {"1": "Б", "2": "б", "3": "В"}}, "sits twice"),
    ({"winner": None}, "has not ended"), ({"roles": {"1": "doctor", "2": "sheriff", "3": "mafia"}}, "doctor"),
    ({"protest": {"team": "green", "votes": 1, "outcome": "changed"}}, "red or black"),
    ({"best_move": {"seat": 1, "named": [2, 3, 4], "blacks": "two"}}, "0-3 blacks"),
])
def test_a_protocol_that_does_not_fit_is_one_clear_error(change, needle):
    from voicehost.errors import InputError

    data = {**protocol("red", RED_WON), **change}
    with pytest.raises(InputError, match=needle):
        game_from(json.loads(json.dumps(data)))


def test_unnamed_seats_of_different_games_are_different_players(tmp_path):
    """Issue 30: seat "3" of game 1 merged with seat "3" of game 2 (the protocol
    names an unnamed seat by its number); named players still merge by name,
    and unnamed seats never join a series' roster."""
    from voicehost.series.store import Series

    roles = ["citizen", "mafia", "citizen", "don", "citizen", "sheriff", "mafia", "citizen", "citizen", "citizen"]
    unnamed = protocol("red", {str(seat): role for seat, role in enumerate(roles, start=1)})
    named = protocol("black", dict(zip(["Алиса", *map(str, range(2, 11))], roles, strict=True)))
    rows = standings([game_from(unnamed), game_from(named)], Lot(seed=1))
    assert len(rows) == 20 and sum(r.games for r in rows) == 20     # no two seats merged
    assert {"3 (#1)", "3 (#2)", "Алиса"} <= {r.name for r in rows}
    assert all(r.games == 1 for r in rows)
    alone = standings([game_from(unnamed)], Lot(seed=1))          # one game: the seat's number is its name
    assert sorted(r.name for r in alone) == sorted(map(str, range(1, 11)))
    series = Series.create(tmp_path, "vecher", ["Алиса"], "4mafia")
    assert series.put("game-001", unnamed) == [] and series.put("game-002", named) == []
    assert series.roster == ["Алиса"]
