"""Games recorded on public rating platforms (Polemica, mafiaratings), read
into one shape and turned into `simulate` scripts.

A record says what the players did (nominations, votes, shots, checks,
fouls); the script is built by walking the game and, at each point where it
needs an input, answering from the record. What the record says the game
came to (winner, who left and when) is kept apart, to be compared with what
the moderator makes of the script."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.errors import InputError, VoicehostError
from voicehost.game.events import Event, parse_event
from voicehost.game.model import FloorKind, Phase
from voicehost.game.moderator import Moderator
from voicehost.journal import Table
from voicehost.rules import RuleOptions, rules_for
from voicehost.simulate import Simulation

POLEMICA_ROLES = {0: "don", 1: "mafia", 2: "citizen", 3: "sheriff"}
RATINGS_ROLES = {"civ": "citizen", "maf": "mafia", "don": "don", "sheriff": "sheriff", "srf": "sheriff"}
ZERO_VOTING = {None: "normal", "normal": "normal", "none": "none", "liftOnly": "lift_only"}
NUMBER_WORDS = ("один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять", "десять")

# Where in a day a foul was given: (day, stage, seat of the floor or None).
Stage = tuple[int, str, int | None]


class RecordError(VoicehostError):
    """A record that contradicts itself or the rules it was played by."""


@dataclass
class Record:
    source: str
    id: str
    roles: dict[int, str]
    options: dict[str, Any]
    winner: str | None
    complete: bool
    nominations: dict[int, dict[int, int]] = field(default_factory=dict)
    tallies: dict[int, list[dict[int, int]]] = field(default_factory=dict)
    voters: dict[int, list[set[int]]] = field(default_factory=dict)
    lifts: dict[int, int] = field(default_factory=dict)
    # night -> shooter -> target (None: no shot or a wrong one)
    shots: dict[int, dict[int, int | None]] = field(default_factory=dict)
    don_checks: dict[int, int] = field(default_factory=dict)
    sheriff_checks: dict[int, int] = field(default_factory=dict)
    fouls: list[tuple[Stage, int]] = field(default_factory=list)
    best_move: tuple[int, ...] | None = None
    # Where an unfinished record ends: (our night, the phase it stood in).
    stop_at: tuple[int, Phase] | None = None
    # What the record says happened: (seat, "day"|"night", number), or None if not kept.
    deaths: list[tuple[int, str, int]] | None = None
    # Seats the record says were removed by fouls or disqualification.
    removed: set[int] = field(default_factory=set)

    @property
    def name(self) -> str:
        return f"{self.source}#{self.id}"


# ---------------------------------------------------------------- voicehost exports

# The key voicehost's exports add beside each platform's documented fields.
EXTENSION = "voicehost"


def _extension_votes(record: Record, data: dict[str, Any]) -> None:
    """Tallies a voicehost export keeps as counts (the game does not know who voted
    for whom); read only where the record has no per-voter votes of its own."""
    votes = data.get(EXTENSION, {}).get("votes", []) if isinstance(data.get(EXTENSION), dict) else []
    for vote in votes:
        day = int(vote["day"])
        if day in record.voters:
            continue
        if "lift" in vote:
            record.lifts[day] = int(vote["lift"])
        else:
            counts = {int(seat): int(n) for seat, n in vote["counts"].items()}
            record.tallies.setdefault(day, []).append(counts)


# ---------------------------------------------------------------- Polemica


POLEMICA_NIGHT_STAGES = ("shooting", "donCheck", "sheriffCheck")


def _polemica_stage(stage: dict[str, Any]) -> Stage:
    if stage.get("type") in POLEMICA_NIGHT_STAGES:
        # Polemica's night k is our night k+1.
        return int(stage.get("day", 0)) + 1, "night", None
    kind = str(stage.get("type", "?"))
    kind = {"speech": "speech", "reSpeech": "tie", "shooted": "killed", "voted": "voted",
            "voting": "voting", "toVoting": "voting"}.get(kind, kind)
    player = stage.get("player")
    return int(stage.get("day", 0)), kind, None if player is None else int(player)


def _polemica_shots(data: dict[str, Any]) -> dict[int, dict[int, int | None]]:
    by_night: dict[int, dict[int, int | None]] = defaultdict(dict)
    for shot in data.get("shots", []):
        by_night[int(shot["night"]) + 1][int(shot["shooter"])] = int(shot["victim"])
    return dict(by_night)


def from_polemica(data: dict[str, Any], source: str) -> Record:
    game = data.get("data", data)
    roles = {int(p["position"]): POLEMICA_ROLES[int(p["role"])] for p in game["players"]}
    config = game.get("config", {})
    zero = game.get("zeroVoting", config.get("zeroVoting"))
    result = game.get("result", data.get("winnerCode"))
    stage = game.get("stage", {})
    record = Record(
        source=source,
        id=str(data.get("id", game.get("id", "?"))),
        roles=roles,
        options={"first_day_vote": ZERO_VOTING.get(zero, "normal")},
        winner={0: "red", 1: "black"}.get(result) if result is not None else None,
        complete=stage.get("type") == "gameOver" and result is not None,
    )
    night_stage = {"shooting": Phase.HUNT, "donCheck": Phase.DON_CHECK,
                   "sheriffCheck": Phase.SHERIFF_CHECK}.get(stage.get("type"))
    if not record.complete and night_stage is not None:
        record.stop_at = (int(stage.get("day", 0)) + 1, night_stage)
    rounds: dict[int, dict[int, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    for vote in game.get("votes", []):
        day, voter, candidate = int(vote["day"]), int(vote["voter"]), int(vote["candidate"])
        if "num" not in vote:
            record.lifts[day] = record.lifts.get(day, 0) + (candidate == 1)
        elif vote["num"] == 0:
            record.nominations.setdefault(day, {})[voter] = candidate
        else:
            rounds[day][int(vote["num"])].append((voter, candidate))
    for day, by_round in rounds.items():
        record.tallies[day] = [dict(Counter(c for _, c in by_round[n])) for n in sorted(by_round)]
        record.voters[day] = [{v for v, _ in by_round[n]} for n in sorted(by_round)]
    record.shots = _polemica_shots(game)
    for check in game.get("checks", []):
        target = record.don_checks if int(check["role"]) == 0 else record.sheriff_checks
        target[int(check["night"]) + 1] = int(check["player"])
    for player in game["players"]:
        for foul in player.get("fouls", []):
            record.fouls.append((_polemica_stage(foul.get("stage", {})), int(player["position"])))
        if player.get("disqual"):
            record.removed.add(int(player["position"]))
    _extension_votes(record, game)
    return record


# ------------------------------------------------------------ mafiaratings

RATINGS_WINNERS = {"civ": "red", "maf": "black", "tie": "draw"}
RATINGS_NIGHT = ("start", "arrangement", "shooting", "don", "sheriff")
RATINGS_STAGES = {"speaking": "speech", "voting": "voting", "night kill speaking": "killed",
                  "day kill speaking": "voted", "shooting": "night"}


def _ratings_stage(when: dict[str, Any]) -> Stage:
    time = str(when.get("time", "?"))
    kind = RATINGS_STAGES.get(time, time)
    speaker = when.get("speaker") if kind == "speech" else None
    # Day r and night r of mafiaratings are our day r+1 and night r+1.
    return int(when.get("round", 0)) + 1, kind, None if speaker is None else int(speaker)


def from_mafiaratings(data: dict[str, Any], source: str) -> Record:
    players = data["players"]
    roles = {i + 1: RATINGS_ROLES[p.get("role", "civ")] for i, p in enumerate(players)}
    record = Record(
        source=source,
        id=str(data.get("id", "?")),
        roles=roles,
        options={"first_day_vote": "normal"},
        winner=RATINGS_WINNERS.get(data.get("winner", "")),
        complete=data.get("winner") in RATINGS_WINNERS,
    )
    deaths: list[tuple[int, str, int]] = []
    record.deaths = deaths
    votes: dict[int, dict[int, list[int]]] = defaultdict(dict)
    shooting: dict[int, dict[int, int | None]] = defaultdict(dict)
    for seat, player in enumerate(players, start=1):
        for round_, target in enumerate(player.get("nominating", [])):
            if target is not None:
                record.nominations.setdefault(round_ + 1, {})[seat] = int(target)
        for round_, vote in enumerate(player.get("voting", [])):
            if vote is not None:
                choice = vote if isinstance(vote, list) else [vote]
                votes[round_ + 1][seat] = [v for v in choice if not isinstance(v, bool)]
        for night, target in enumerate(player.get("shooting", [])):
            shooting[night + 2][seat] = target
        if "don" in player:
            record.don_checks[int(player["don"]) + 1] = seat
        if "sheriff" in player:
            record.sheriff_checks[int(player["sheriff"]) + 1] = seat
        if player.get("legacy"):
            record.best_move = tuple(int(s) for s in player["legacy"])
        for warning in player.get("warnings", []):
            record.fouls.append((_ratings_stage(warning), seat))
        death = player.get("death")
        if death:
            at_night = death["type"] == "night" or death.get("time", {}).get("time") in RATINGS_NIGHT
            deaths.append((seat, "night" if at_night else "day", int(death["round"]) + 1))
            if death["type"] in ("warnings", "kickOut", "teamKickOut"):
                record.removed.add(seat)
    for day, by_voter in votes.items():
        rounds = max(len(v) for v in by_voter.values())
        record.tallies[day] = [
            dict(Counter(v[n] for v in by_voter.values() if len(v) > n)) for n in range(rounds)
        ]
        record.voters[day] = [{s for s, v in by_voter.items() if len(v) > n} for n in range(rounds)]
    record.shots = dict(shooting)
    record.fouls.sort(key=lambda f: f[0][0])
    _extension_votes(record, data)
    return record


def load_records(path: Path) -> list[Record]:
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read records from {path}: {exc}") from None
    records = []
    for item in items if isinstance(items, list) else [items]:
        if isinstance(item.get("winner"), str) and "players" in item:
            records.append(from_mafiaratings(item, path.name))
        else:
            records.append(from_polemica(item, path.name))
    return records


# ----------------------------------------------------------- to a script


@dataclass
class Conversion:
    record: Record
    script: list[dict[str, Any]]
    game: Moderator
    problems: list[str]


class _Builder:
    """Walks the game, answering each input it needs from the record."""

    def __init__(self, record: Record, rules: RuleOptions) -> None:
        self.record = record
        self.game = Moderator.for_rules(rules)
        self.sim = Simulation(self.game, Table(self.game))
        self.script: list[dict[str, Any]] = []
        self.fouls = list(record.fouls)
        self.lines_at_floor: set[int] = set()
        self.alive_at_vote: dict[int, set[int]] = {}
        self.checks_asked: set[tuple[Phase, int]] = set()

    def emit(self, line: dict[str, Any]) -> None:
        event: Event = parse_event(line)
        self.sim.step(event)
        self.script.append(line)

    def fouls_at(self, day: int, kind: str, seat: int | None) -> None:
        due = [f for f in self.fouls if f[0][0] == day and f[0][1] == kind
               and (seat is None or f[0][2] in (None, seat))]
        for foul in due:
            self.fouls.remove(foul)
            if self.game.phase is Phase.GAME_OVER:
                return
            target = foul[1]
            if target in self.game.alive or self._own_last_word(target):
                self.emit({"type": "foul", "seat": target})

    def _own_last_word(self, seat: int) -> bool:
        floor = self.game.floor
        return floor is not None and floor.seat == seat and floor.kind is FloorKind.LAST_WORD

    def run(self) -> None:
        self.emit({"type": "setup", "roles": {str(s): r for s, r in sorted(self.record.roles.items())}})
        guard = 0
        while self.game.phase is not Phase.GAME_OVER and guard < 500:
            guard += 1
            if self.at_end_of_record():
                return
            if not self.answer():
                deadline = self.game.next_deadline()
                if deadline is None:
                    return
                self.sim.outputs += self.sim.table.advance(deadline)

    def at_end_of_record(self) -> bool:
        return self.record.stop_at == (self.game.night, self.game.phase)

    def answer(self) -> bool:
        game, phase = self.game, self.game.phase
        if game.floor is not None and game.floor.id not in self.lines_at_floor:
            self.lines_at_floor.add(game.floor.id)
            self.floor(game.floor.seat, game.floor.kind)
            return True
        if phase is Phase.TALLY:
            self.tally()
            return True
        if phase is Phase.LIFT_VOTE:
            self.emit({"type": "lift_votes", "count": self.lift_count()})
            return True
        if phase is Phase.HUNT and not game.shot_entered:
            self.fouls_at(game.night, "night", None)
            self.emit({"type": "shot", "seat": self.shot()})
            return True
        checks = {Phase.DON_CHECK: ("don_check", self.record.don_checks),
                  Phase.SHERIFF_CHECK: ("sheriff_check", self.record.sheriff_checks)}
        if phase in checks and (phase, game.night) not in self.checks_asked:
            kind, table = checks[phase]
            self.checks_asked.add((phase, game.night))
            if game.night in table:
                self.emit({"type": kind, "seat": table[game.night]})
                return True
        return False

    def floor(self, seat: int, kind: FloorKind) -> None:
        day = self.game.day
        words: list[dict[str, Any]] = []
        target = self.record.nominations.get(day, {}).get(seat)
        if kind is FloorKind.SPEECH and target is not None:
            words = [{"word": "выставляю", "start": 1.0, "end": 1.6},
                     {"word": NUMBER_WORDS[target - 1], "start": 1.7, "end": 2.1}]
        self.emit({"type": "speech", "seat": seat, "words": words})
        if kind is FloorKind.LAST_WORD and self.game.first_killed == seat and day == 2 \
                and self.record.best_move:
            self.emit({"type": "best_move", "seats": list(self.record.best_move)})
        stage = {FloorKind.SPEECH: "speech", FloorKind.TIE: "tie"}.get(kind)
        if stage is None:
            stage = "killed" if self.game.vote_round == 0 and not self.game.vote_resolved else "voted"
        self.fouls_at(day, stage, seat)

    def tally(self) -> None:
        game = self.game
        day, round_ = game.day, game.vote_round
        if round_ == 1:
            self.alive_at_vote[day] = set(game.alive)
        self.fouls_at(day, "voting", None)
        if game.phase is not Phase.TALLY:
            return
        rounds = self.record.tallies.get(day, [])
        index = min(round_, len(rounds)) - 1
        if index < 0:
            raise RecordError(f"day {day}: the game holds a vote the record does not have")
        counts = rounds[index]
        strangers = set(counts) - set(game.candidates)
        if strangers:
            raise RecordError(
                f"day {day} round {round_}: votes for {sorted(strangers)}, but the candidates "
                f"are {game.candidates}")
        given = {str(s): counts.get(s, 0) for s in game.candidates[:-1]}
        self.emit({"type": "votes", "counts": given})

    def lift_count(self) -> int:
        day = self.game.day
        if day in self.record.lifts:
            return self.record.lifts[day]
        if self.record.deaths is not None:
            tied = set(self.game.tied or [])
            left = {s for s, kind, n in self.record.deaths if kind == "day" and n == day}
            return len(self.game.alive) if tied and tied <= left else 0
        return 0

    def _dies_this_night(self, seat: int) -> bool:
        """mafiaratings keeps no shot for a black player killed that very night."""
        deaths = self.record.deaths or []
        return (seat, "night", self.game.night) in deaths

    def shot(self) -> int | None:
        """2.4.4–2.4.5: a kill only when every black player alive aims at one seat."""
        game = self.game
        targets = self.record.shots.get(game.night, {})
        shooters = [s for s in game.alive if game.roles[s].team.value == "black"
                    and not self._dies_this_night(s)]
        aimed = {targets.get(s) for s in shooters}
        target = aimed.pop() if len(aimed) == 1 else None
        return target if target in game.alive else None


def convert(record: Record, rules: RuleOptions | None = None) -> Conversion:
    rules = rules or rules_for("fiim", record.options)
    builder = _Builder(record, rules)
    problems: list[str] = []
    try:
        builder.run()
    except VoicehostError as exc:
        problems.append(str(exc))
    return Conversion(record, builder.script, builder.game, problems + _compare(record, builder))


def _compare(record: Record, builder: _Builder) -> list[str]:
    game = builder.game
    problems = []
    if record.complete and game.winner != record.winner:
        problems.append(f"winner: the record says {record.winner}, the game came to {game.winner}")
    held = {v.day: v for v in reversed(game.votes)}
    for day, voters in voters_by_day(record).items():
        alive = builder.alive_at_vote.get(day)
        if alive is not None and voters != alive:
            problems.append(f"day {day}: the record's voters {sorted(voters)} are not the players "
                            f"alive in the game {sorted(alive)}")
        elif alive is None and day in held and held[day].counts is not None:
            given = sum((held[day].counts or {}).values())
            if given != len(voters):
                problems.append(f"day {day}: {len(voters)} voted in the record, {given} in the game")
        elif alive is None and game.day > day:
            problems.append(f"day {day}: the record has a vote the game did not hold")
    removed = {e.seat for e in game.eliminated if e.cause.value in ("fouls", "disqualified")}
    if record.removed - removed:
        problems.append(f"removals: the record removes {sorted(record.removed)}, "
                        f"the game removed {sorted(removed)}")
    if record.complete and builder.fouls:
        problems.append(f"fouls never reached: {builder.fouls}")
    if record.deaths is not None:
        came = sorted((e.seat, "night" if e.night is not None else "day", e.night or e.day or 0)
                      for e in game.eliminated)
        if came != sorted(record.deaths):
            problems.append(f"eliminations: the record says {sorted(record.deaths)}, "
                            f"the game came to {came}")
    return problems


def voters_by_day(record: Record) -> dict[int, set[int]]:
    """Who voted in each day's first round: the players alive at that vote."""
    return {day: rounds[0] for day, rounds in record.voters.items() if rounds}


__all__ = ["Conversion", "Record", "RecordError", "convert", "load_records", "voters_by_day"]
