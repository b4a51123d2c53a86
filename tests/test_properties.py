"""Property tests: random whole games, every preset, checked for the game's
invariants after every input, and replayed from their journal."""
from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.randomgames import (
    RandomCityGame,
    RandomGame,
)
from voicehost.game.model import Phase
from voicehost.game.protocol import snapshot
from voicehost.journal import replay


def play_out(kind: type, rng: random.Random) -> None:
    """A whole random game, checked after every input, then replayed from its journal."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.jsonl"
        play = kind(rng, path)
        for _ in range(2000):
            if play.game.phase is Phase.GAME_OVER or not play.move():
                break
            play.check_invariants()
        play.journal.close()
        replayed, _ = replay(path)
        assert snapshot(replayed) == snapshot(play.game)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_random_games_keep_the_invariants_and_replay(rng):
    play_out(RandomGame, rng)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_random_city_games_keep_the_invariants_and_replay(rng):
    play_out(RandomCityGame, rng)
