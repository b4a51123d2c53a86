"""Variants composed into one engine: each has its own transition table,
roles, sides, causes and winners; the engine names no city concept."""
from __future__ import annotations

import pytest

from tests.conftest import Play
from voicehost.game.model import Cause, Phase, Team, Winner
from voicehost.game.moderator import Moderator
from voicehost.game.variants.city import TRANSITIONS as CITY
from voicehost.game.variants.city import CityCause, CitySide, CityVariant
from voicehost.game.variants.sports import TRANSITIONS as SPORTS
from voicehost.game.variants.sports import SportsVariant
from voicehost.rules import rules_for

CITY_ONLY = {Phase.CANDIDATES, Phase.NIGHT_ACTION}
SPORTS_ONLY = {Phase.DON_MEETING, Phase.SHERIFF_MEETING, Phase.DON_CHECK, Phase.SHERIFF_CHECK,
               Phase.TIE_SPEECH, Phase.LIFT_VOTE, Phase.LAST_WORD}


def reachable(table: dict[Phase, frozenset[Phase]]) -> set[Phase]:
    return set(table) | {phase for targets in table.values() for phase in targets}


def test_sports_allows_no_city_only_transition():
    assert not reachable(SPORTS) & CITY_ONLY
    game = Play().game
    with pytest.raises(RuntimeError, match="moderator bug: mafia_meeting -> candidates"):
        game.enter(Phase.CANDIDATES)


def test_city_allows_no_sports_only_transition():
    assert not reachable(CITY) & SPORTS_ONLY


def test_each_ruleset_plays_its_own_variant():
    assert isinstance(Moderator.for_rules(rules_for("city")).variant, CityVariant)
    for name in ("4mafia", "fiim", "classic", "ua-club", "mafclubspb"):
        assert isinstance(Moderator.for_rules(rules_for(name)).variant, SportsVariant)


def test_the_base_knows_no_city_cause_and_winners_are_per_variant():
    assert {c.value for c in Cause} == {"vote", "lift", "shot", "fouls", "disqualified", "left_table"}
    assert {c.value for c in CityCause} == {"commissar", "maniac"}
    assert set(SportsVariant.win_say) == set(Winner) and set(CityVariant.win_say) == set(CitySide)
    assert {str(t) for t in Team} <= {str(w) for w in Winner}
