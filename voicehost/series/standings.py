"""The standings of a series (SPEC §6.2, 4MAFIA 4.5) and the protest that can
change a game's result (§6.3, 1.8). Pure: protocols in, ordered rows out.

Order: the coefficient (points per game, compared exactly), then points,
wins, bests, the heavy role over the whole series, and last the lot — a
random draw made once and kept, so the table never reshuffles between views."""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from voicehost.errors import InputError
from voicehost.game.events import Protest, parse_protest
from voicehost.game.records import BestMoveRecord
from voicehost.game.scoring import protest_passes
from voicehost.jsontypes import JSONOutObject
from voicehost.names import check_name, name_key
from voicehost.refusals import RefuseKey

ROLES = ("citizen", "sheriff", "mafia", "don")
TEAM_OF = {"citizen": "red", "sheriff": "red", "mafia": "black", "don": "black"}
WINNERS = ("red", "black", "draw")
BEST_MOVE_BONUS = {3: Fraction(1, 2), 2: Fraction(1, 4)}
# 4.5.4: whose wins weigh more, by the colour that won less often (or earned fewer bests − worsts).
HEAVY_ORDER = {"black": ("don", "mafia", "sheriff", "citizen"),
               "red": ("sheriff", "citizen", "don", "mafia")}


class Decided(StrEnum):
    COEFFICIENT = "coefficient"
    POINTS = "points"
    WINS = "wins"
    BESTS = "bests"
    HEAVY_ROLE = "heavy_role"
    LOT = "lot"


def passes(protest: Protest, roles: Mapping[int, str]) -> bool:
    """1.8.3, counted on the deal: the protesting team's players and one opponent."""
    return protest_passes(sum(1 for role in roles.values() if TEAM_OF[role] == protest.team), protest.votes)


@dataclass(frozen=True)
class Game:
    """What the standings read of one protocol."""

    ruleset: str
    winner: str
    roles: dict[int, str]
    players: dict[int, str]
    points: dict[int, Fraction]
    best_player: int | None = None
    worst_player: int | None = None
    best_move: BestMoveRecord | None = None
    protest: Protest | None = None

    def counts(self) -> bool:
        """False when a protest passed and the judge annulled the game or had it replayed."""
        protest = self.protest
        return protest is None or not passes(protest, self.roles) or protest.outcome == "changed"

    def result(self) -> tuple[str, dict[int, Fraction]]:
        """The winner and the points as the protest leaves them."""
        protest = self.protest
        if protest is None or not passes(protest, self.roles) or protest.outcome != "changed":
            return self.winner, self.points
        other = {"red": "black", "black": "red"}
        winner = other.get(self.winner, protest.team)
        points = {}
        for seat, earned in self.points.items():
            team = TEAM_OF[self.roles[seat]]
            points[seat] = earned - (team == self.winner) + (team == winner)
        return winner, points


# ---------------------------------------------------------------- reading a protocol

def game_from(data: object) -> Game:
    """One protocol (SPEC §4 with §6.1's roles and players) as a game of the
    standings; an InputError naming what does not fit."""
    if not isinstance(data, dict) or "ruleset" not in data or "points" not in data:
        raise InputError("not a voicehost protocol (no ruleset or points)", key=RefuseKey.NOT_A_PROTOCOL)
    for part in ("roles", "players"):
        if not isinstance(data.get(part), dict) or not data[part]:
            raise InputError(f"the protocol has no '{part}' (SPEC §6.1)", key=RefuseKey.PROTOCOL_NO_PART,
                             values={"word": part})
    roles = {_seat(k, "roles"): v for k, v in data["roles"].items()}
    bad = next((r for r in roles.values() if r not in ROLES), None)
    if bad is not None:
        raise InputError(f"a role the standings do not rank: {bad!r}", key=RefuseKey.PROTOCOL_ROLE,
                         values={"word": str(bad)})
    players = {_seat(k, "players"): _player(v, _seat(k, "players")) for k, v in data["players"].items()}
    points = {_seat(k, "points"): _points(v) for k, v in data["points"].items()}
    if set(players) != set(roles) or set(points) != set(roles):
        raise InputError("the protocol's roles, players and points name different seats",
                         key=RefuseKey.PROTOCOL_SEATS)
    keys = [name_key(n) for n in players.values()]
    twice = next((n for n in players.values() if keys.count(name_key(n)) > 1), None)
    if twice is not None:
        raise InputError(f"one player sits twice in one game: {twice!r}", key=RefuseKey.PROTOCOL_TWICE,
                         values={"word": twice})
    winner = data.get("winner")
    if winner not in WINNERS:
        raise InputError(f"the game has not ended (winner {winner!r})", key=RefuseKey.PROTOCOL_UNFINISHED)
    move = data.get("best_move")
    best_move = BestMoveRecord(_seat(move.get("seat"), "best_move"), _named(move.get("named")),
                               _blacks(move.get("blacks", 0))) if isinstance(move, dict) else None
    protest = _protest(data["protest"]) if data.get("protest") is not None else None
    return Game(str(data["ruleset"]), winner, roles, players, points,
                _seat_or_none(data.get("best_player"), roles), _seat_or_none(data.get("worst_player"), roles),
                best_move, protest)


def _protest(value: object) -> Protest:
    if not isinstance(value, dict):
        raise InputError("'protest' must be an object with team, votes and outcome", key=RefuseKey.PROTEST_BAD)
    return parse_protest(value)


def _seat(value: object, part: str) -> int:
    text = str(value)
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= 99:
        raise InputError(f"'{part}' names {value!r}, which is not a seat", key=RefuseKey.PROTOCOL_SEAT,
                         values={"word": str(value)})
    return int(text)


def _named(value: object) -> tuple[int, ...]:
    """The seats a best move named, as far as they are seats (the standings count only its blacks)."""
    if not isinstance(value, list):
        return ()
    return tuple(s for s in value if isinstance(s, int) and not isinstance(s, bool))


def _blacks(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise InputError(f"a best move names 0-3 blacks, got {value!r}", key=RefuseKey.PROTOCOL_BEST_MOVE,
                         values={"word": str(value)})
    return value


def _seat_or_none(value: object, roles: Mapping[int, str]) -> int | None:
    if value is None:
        return None
    seat = _seat(value, "best_player/worst_player")
    if seat not in roles:
        raise InputError(f"seat {seat} is not at this game's table", key=RefuseKey.PROTOCOL_SEAT,
                         values={"word": str(seat)})
    return seat


def _player(value: object, seat: int) -> str:
    try:
        return check_name(value)
    except InputError as exc:
        raise InputError(f"players: seat {seat}: {exc}", key=RefuseKey.PROTOCOL_PLAYER,
                         values={"seat": seat, "word": str(value)}) from None


def _points(value: object) -> Fraction:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value \
            or abs(value) > 100:
        raise InputError(f"points must be numbers, got {value!r}", key=RefuseKey.PROTOCOL_POINTS,
                         values={"word": str(value)})
    return Fraction(str(value))


# --------------------------------------------------------------------- the table

@dataclass
class Row:
    key: str
    name: str
    games: int = 0
    wins: int = 0
    points: Fraction = Fraction(0)
    bests: int = 0
    worsts: int = 0
    best_moves: int = 0
    wins_by_role: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    place: int = 0
    decided_by: Decided | None = None

    @property
    def coefficient(self) -> Fraction:
        return self.points / self.games

    def to_json(self) -> JSONOutObject:
        return {"place": self.place, "name": self.name, "games": self.games, "wins": self.wins,
                "points": float(self.points), "coefficient": round(float(self.coefficient), 4),
                "bests": self.bests, "worsts": self.worsts, "best_moves": self.best_moves,
                "wins_by_role": dict(self.wins_by_role),
                "decided_by": None if self.decided_by is None else str(self.decided_by)}


# what places a row (4.5.5), in order: coefficient, points, wins, bests, wins in each heavy role
Merit = tuple[Fraction, Fraction, int, int, tuple[int, ...]]


@dataclass
class Lot:
    """4.5.5: each player's draw, made the first time a tie needs it and kept."""

    draws: dict[str, float] = field(default_factory=dict)
    seed: int | None = None

    def draw(self, keys: Iterable[str]) -> bool:
        """Draw for the players who have none yet; True when anything was drawn."""
        new = sorted(set(keys) - set(self.draws))
        if not new:
            return False
        rng = random.Random(None if self.seed is None else f"{self.seed}:{len(self.draws)}")
        for key in new:
            self.draws[key] = rng.random()
        return True


def standings(games: Iterable[Game], lot: Lot, names: Mapping[str, str] | None = None) -> list[Row]:
    """The ordered rows; draws the lot where players are still tied (the
    caller keeps `lot` with the series)."""
    every = list(games)
    counted = [g for g in every if g.counts()]
    rows: dict[str, Row] = {}
    for game in counted:
        _add(rows, game, names or {}, every.index(game) + 1 if len(every) > 1 else None)
    heavy = heavy_roles(counted)

    def merit(row: Row) -> Merit:
        return (row.coefficient, row.points, row.wins, row.bests,
                tuple(row.wins_by_role[r] for r in heavy))

    ordered = sorted(rows.values(), key=merit, reverse=True)
    tied = [r.key for r in ordered if sum(1 for o in ordered if merit(o) == merit(r)) > 1]
    lot.draw(tied)
    ordered.sort(key=lambda r: (_descending(merit(r)), lot.draws.get(r.key, 0.0)))
    for place, (above, row) in enumerate(zip([None, *ordered], ordered, strict=False), start=1):
        row.place = place
        row.decided_by = None if above is None else _decided(merit(above), merit(row))
    return ordered


def _descending(merit: Merit) -> Merit:
    coefficient, points, wins, bests, heavy = merit
    return (-coefficient, -points, -wins, -bests, tuple(-w for w in heavy))


def _decided(above: Merit, row: Merit) -> Decided:
    criteria = (Decided.COEFFICIENT, Decided.POINTS, Decided.WINS, Decided.BESTS, Decided.HEAVY_ROLE)
    return next((c for c, a, b in zip(criteria, above, row, strict=True) if a != b), Decided.LOT)


def unnamed(seat: int, name: str) -> bool:
    """A seat the host gave no name: the protocol names it by its number (SPEC §6.1)."""
    return name == str(seat)


def _add(rows: dict[str, Row], game: Game, names: Mapping[str, str], number: int | None) -> None:
    """One game's seats into the rows. An unnamed seat is a player of that game
    only: seat 3 of game 1 is not seat 3 of game 2 (its row: "3 (#2)")."""
    winner, points = game.result()
    bonus = game.best_move is not None and BEST_MOVE_BONUS.get(game.best_move.blacks, 0) > 0
    for seat, name in game.players.items():
        if unnamed(seat, name) and number is not None:
            key, shown = f"#{number}:{seat}", f"{seat} (#{number})"
        else:
            key, shown = name_key(name), names.get(name_key(name), name)
        row = rows.setdefault(key, Row(key, shown))
        role = game.roles[seat]
        won = TEAM_OF[role] == winner
        row.games += 1
        row.wins += won
        row.wins_by_role[role] += won
        row.points += points[seat]
        row.bests += game.best_player == seat
        row.worsts += game.worst_player == seat
        row.best_moves += bool(bonus and game.best_move is not None and game.best_move.seat == seat)


def heavy_roles(games: list[Game]) -> tuple[str, ...]:
    """4.5.4 over the whole series: the roles whose wins weigh, in order; none
    when the colours won equally and earned equal bests − worsts."""
    won = {"red": 0, "black": 0}
    earned = {"red": 0, "black": 0}
    for game in games:
        winner, _ = game.result()
        if winner in won:
            won[winner] += 1
        for seat, step in ((game.best_player, 1), (game.worst_player, -1)):
            if seat is not None:
                earned[TEAM_OF[game.roles[seat]]] += step
    if won["red"] != won["black"]:
        return HEAVY_ORDER["black" if won["red"] > won["black"] else "red"]
    if earned["red"] != earned["black"]:
        return HEAVY_ORDER["black" if earned["black"] < earned["red"] else "red"]
    return ()
