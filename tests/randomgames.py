"""Random whole games (the sports presets and the city variant), checked for
the game's invariants after every input: what the property tests play."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from voicehost.errors import GameError
from voicehost.game.events import parse_event
from voicehost.game.model import FloorKind, Phase, Role, Team
from voicehost.game.moderator import Moderator
from voicehost.game.protocol import snapshot
from voicehost.journal import Journal, Table
from voicehost.rules import rules_for
from voicehost.simulate import Simulation

ROLE_POOL = ["citizen"] * 6 + ["sheriff", "mafia", "mafia", "don"]


PRESETS = [("4mafia", {}), ("fiim", {}), ("fiim", {"first_day_vote": "lift_only"}),
           ("fiim", {"first_day_vote": "none"}), ("classic", {}), ("ua-club", {}), ("mafclubspb", {})]


FILLERS = ["на", "голосование", "кандидатуру", "игрока", "номер", "под", "номером"]


NOISE = ["я", "мирный", "пожалуй", "честно", "двенадцать", "[unk]", "господин", "ведущий",
         "выставленные", "пас", "думаю", "выставлю"]


NUMBERS = ["один", "второго", "третьего", "четыре", "пятого", "шестую", "седьмого", "восемь",
           "девятого", "десятого"]


def random_words(rng: random.Random, grammar_trigger: str) -> list[dict]:
    words, clock = [], rng.uniform(0.0, 2.0)
    for _ in range(rng.randint(0, 14)):
        roll = rng.random()
        if roll < 0.25:
            text = grammar_trigger
        elif roll < 0.45:
            text = rng.choice(NUMBERS) if rng.random() < 0.8 else str(rng.randint(1, 12))
        elif roll < 0.6:
            text = rng.choice(FILLERS)
        elif roll < 0.65:
            text = "спасибо"
        else:
            text = rng.choice(NOISE)
        length = rng.uniform(0.15, 0.6)
        words.append({"word": text, "start": round(clock, 3), "end": round(clock + length, 3)})
        clock += length + (min(rng.expovariate(1.0), 8.0) if rng.random() < 0.9 else rng.uniform(9.0, 12.0))
    return words


def random_counts(rng: random.Random, candidates: list[int], voters: int) -> dict[str, int]:
    cuts = sorted(rng.randint(0, voters) for _ in range(len(candidates) - 1))
    shares = [b - a for a, b in zip([0] + cuts, cuts + [voters], strict=True)]
    counts = {str(c): n for c, n in zip(candidates, shares, strict=True)}
    if rng.random() < 0.5:
        counts.pop(str(candidates[-1]))
    return counts


class RandomGame:
    def __init__(self, rng: random.Random, journal_path: Path) -> None:
        name, overrides = rng.choice(PRESETS)
        self.rules = rules_for(name, overrides or None)
        self.rng = rng
        self.game = Moderator.for_rules(self.rules)
        self.journal = Journal(journal_path, self.rules)
        self.sim = Simulation(self.game, Table(self.game, self.journal))
        roles = ROLE_POOL[:]
        rng.shuffle(roles)
        self.step({"type": "setup", "roles": {str(i + 1): r for i, r in enumerate(roles)}})
        self.tally_sums: list[tuple[int, int]] = []

    def step(self, line: dict) -> None:
        self.sim.step(parse_event(line))

    def alive_of(self, team: Team) -> int:
        return sum(1 for s in self.game.alive if self.game.roles[s].team is team)

    def move(self) -> bool:
        game, rng = self.game, self.rng
        if rng.random() < 0.03 and game.alive:
            kind = rng.choice(["foul", "foul", "foul", "disqualify", "leave_table"] if rng.random() < 0.2
                              else ["foul"])
            self.step({"type": kind, "seat": rng.choice(sorted(game.alive))})
            return True
        floor = game.floor
        if floor is not None and not floor.heard:
            if floor.kind is FloorKind.LAST_WORD and game.best_move_open() and rng.random() < 0.7:
                others = [s for s in range(1, 11) if s != floor.seat]
                line = {"type": "best_move", "seats": rng.sample(others, 3)}
                sheriff = game.roles[floor.seat] is Role.SHERIFF
                if sheriff and not self.rules.sheriff_best_move:
                    self.expect_refused(line)
                else:
                    self.step(line)
            self.step({"type": "speech", "seat": floor.seat,
                       "words": random_words(rng, game.grammar.trigger)})
            return True
        if game.phase is Phase.TALLY:
            voters = len(game.alive)
            if rng.random() < 0.1:
                self.expect_refused({"type": "votes", "counts": {str(game.candidates[0]): voters + 1}})
            self.step({"type": "votes", "counts": random_counts(rng, game.candidates, voters)})
            entry = game.votes[-1]
            self.tally_sums.append((sum((entry.counts or {}).values()), voters))
            return True
        if game.phase is Phase.LIFT_VOTE:
            self.step({"type": "lift_votes", "count": rng.randint(0, len(game.alive))})
            return True
        if game.phase is Phase.HUNT and not game.shot_entered:
            target = rng.choice(sorted(game.alive) + [None, None])
            self.step({"type": "shot", "seat": target})
            return True
        if game.phase in (Phase.DON_CHECK, Phase.SHERIFF_CHECK) and rng.random() < 0.7:
            role = Role.DON if game.phase is Phase.DON_CHECK else Role.SHERIFF
            checker = game.seat_of(role)
            targets = [s for s in range(1, 11) if s != checker
                       and (s in game.alive or self.rules.check_out_seats)]
            checked = any(c.night == game.night and c.role == role.value for c in game.checks)
            if checker in game.alive and not checked:
                self.step({"type": f"{role.value}_check", "seat": rng.choice(targets)})
                return True
        deadline = game.next_deadline()
        if deadline is None:
            return False
        self.sim.outputs += self.sim.table.advance(deadline)
        return True

    def expect_refused(self, line: dict) -> None:
        before = snapshot(self.game)
        with pytest.raises(GameError):
            self.game.handle(parse_event(line, self.game.max_seat), self.game.now)
        assert snapshot(self.game) == before

    def check_invariants(self) -> None:
        game = self.game
        per_day: dict[tuple[int, int], int] = {}
        for n in game.nominations:
            key = (n.day, n.by)
            per_day[key] = per_day.get(key, 0) + 1
        assert all(v == 1 for v in per_day.values()), game.nominations
        black, red = self.alive_of(Team.BLACK), self.alive_of(Team.RED)
        if game.phase is not Phase.GAME_OVER:
            assert 0 < black < red, (black, red, game.where())
        else:
            causes = {e.cause.value for e in game.eliminated}
            quiet_draw = self.rules.quiet_rounds == "draw" and game.state.record.quiet_rounds >= 3
            win_holds = {"red": black == 0, "black": black >= red, "draw": quiet_draw}[game.winner]
            assert win_holds or "left_table" in causes or (
                game.winner == "red" and game.misses >= 3), (game.winner, black, red)
        for total, voters in self.tally_sums:
            assert total == voters


CITY_ROLES = ["mafia", "mafia", "commissar", "doctor", "lover", "maniac"]


class RandomCityGame(RandomGame):
    """The city variant: 8–11 players, host-named candidates, the night's actions."""

    def __init__(self, rng: random.Random, journal_path: Path) -> None:
        self.rules = rules_for("city")
        self.rng = rng
        from voicehost.game.moderator import new_game

        self.game = new_game(self.rules)
        self.journal = Journal(journal_path, self.rules)
        self.sim = Simulation(self.game, Table(self.game, self.journal))
        count = rng.randint(8, 11)
        pool = rng.sample(CITY_ROLES, rng.randint(2, 6))
        if "commissar" not in pool:
            pool.append("commissar")
        if "mafia" not in pool:
            pool.append("mafia")
        roles = (pool + ["citizen"] * count)[:count]
        rng.shuffle(roles)
        self.step({"type": "setup", "roles": {str(i + 1): r for i, r in enumerate(roles)}})
        self.tally_sums = []

    def step(self, line: dict) -> None:
        self.sim.step(parse_event(line, 11))

    def move(self) -> bool:
        game, rng = self.game, self.rng
        if game.phase is Phase.CANDIDATES:
            alive = sorted(game.alive)
            self.step({"type": "candidates", "seats": rng.sample(alive, rng.randint(0, min(3, len(alive))))})
            return True
        if game.phase is Phase.NIGHT_ACTION and rng.random() < 0.8:
            action = game.windows[game.window]
            from voicehost.game.variants.city import ACTION_ROLE

            actor = game.role_seat(ACTION_ROLE[action])
            if actor in game.alive and action not in game.state.night.actions:
                self.step({"type": action, "seat": rng.choice(sorted(game.alive) + [None])})
                return True
        return super().move()

    def check_invariants(self) -> None:
        from collections import Counter

        game = self.game
        sides = Counter(game.side(s) for s in game.alive)
        others = len(game.alive) - sides["mafia"]
        holds = {"city": sides["mafia"] == 0 and sides["maniac"] == 0,
                 "maniac": sides["maniac"] > 0 and len(game.alive) <= 2,
                 "mafia": sides["maniac"] == 0 and sides["mafia"] >= others}
        if game.phase is Phase.GAME_OVER:
            assert holds[game.winner], (game.winner, dict(sides))
        else:
            assert not any(holds.values()), (dict(sides), game.where())
        for total, voters in self.tally_sums:
            assert total == voters
