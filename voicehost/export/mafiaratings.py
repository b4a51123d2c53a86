"""A finished game as a mafiaratings.com game record.

The fields are the ones its repository documents (szotin/mafiaratings:
docs/game.js, and the field list of its game API in include/game.php):
players by seat, role, death {round, type[, time]}, warnings as game times,
nominating and shooting per round, the night the don and the sheriff checked
a player, legacy (the best move), bonus "bestPlayer". Rounds count from 0:
our day d is round d-1, our night n (n >= 2, a shooting night) is night n-1.

`features` says which of those the record holds. Voting is not among them:
the game keeps how many voted for each candidate, not who, so the counts go
to the `comment` (and, as data, under "voicehost") instead of a made-up
`voting` array."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from voicehost.export.common import EXTENSION, Notes, common_notes, extension, times
from voicehost.export.facts import Facts, Moment, removal_of
from voicehost.game.model import Elimination, Phase
from voicehost.jsontypes import JSONOutObject

ROLES = {"citizen": "civ", "mafia": "maf", "don": "don", "sheriff": "sheriff"}
WINNERS = {"red": "civ", "black": "maf", "draw": "tie"}
DEATHS = {"vote": "day", "lift": "day", "shot": "night", "fouls": "warnings",
          "disqualified": "kickOut", "left_table": "giveUp"}
NIGHT_TIMES = {Phase.SETUP: "start", Phase.MAFIA_MEETING: "arrangement", Phase.DON_MEETING: "don",
               Phase.SHERIFF_MEETING: "sheriff", Phase.HUNT: "shooting", Phase.DON_CHECK: "don",
               Phase.SHERIFF_CHECK: "sheriff"}
# g don checks, s sheriff checks, d u t c death with round, type and time, l legacy,
# h shooting, n nominating, w r warnings with their times.
FEATURES = "gsdutclhnwr"


def game_time(moment: Moment) -> JSONOutObject:
    """A moment as the platform's game time {round, time[, speaker, votingRound, nominee]}."""
    if moment.phase in NIGHT_TIMES:
        return {"round": max(moment.night - 1, 0), "time": NIGHT_TIMES[moment.phase]}
    out: JSONOutObject = {"round": max(moment.day - 1, 0)}
    if moment.phase is Phase.GAME_OVER:
        out["time"] = "end"
    elif moment.phase is Phase.SPEECH:
        out.update(time="speaking", speaker=moment.seat)
    elif moment.phase is Phase.LAST_WORD:
        out.update(time="night kill speaking" if moment.after_night_kill else "day kill speaking",
                   speaker=moment.seat)
    else:  # the vote, its tally, the tie speeches between rounds, the lift question
        out.update(time="voting", votingRound=max(moment.vote_round - 1, 0))
        if moment.phase is Phase.TIE_SPEECH:
            out["speaker"] = moment.seat
        elif moment.nominee is not None:
            out["nominee"] = moment.nominee
    return out


def _death(facts: Facts, out: Elimination) -> JSONOutObject:
    kind = DEATHS[out.cause.value]
    number = out.night - 1 if out.night is not None else (out.day or 0) - 1
    death: JSONOutObject = {"round": max(number, 0), "type": kind}
    removal = removal_of(facts, out.seat)
    if removal is not None:
        death["time"] = game_time(removal.moment)
    return death


@dataclass
class _Player:
    """One seat's record, filled in as the game's facts are read."""

    name: str
    role: str
    nominating: list[int | None] = field(default_factory=list)   # by round
    shooting: list[int | None] = field(default_factory=list)     # by night round
    checked: dict[str, int] = field(default_factory=dict)        # checker -> round
    death: JSONOutObject | None = None
    warnings: list[JSONOutObject] = field(default_factory=list)
    legacy: list[int] | None = None
    bonus: str | None = None
    comment: str | None = None

    def to_json(self) -> JSONOutObject:
        out: JSONOutObject = {"name": self.name, "role": self.role}
        for key, rounds in (("nominating", self.nominating), ("shooting", self.shooting)):
            while rounds and rounds[-1] is None:
                rounds.pop()
            if rounds:
                out[key] = rounds
        out.update(self.checked)
        extra = {"death": self.death, "warnings": self.warnings or None, "legacy": self.legacy,
                 "bonus": self.bonus, "comment": self.comment}
        out.update((key, value) for key, value in extra.items() if value is not None)
        return out


def _players(facts: Facts, notes: Notes) -> list[JSONOutObject]:
    players = {seat: _Player(facts.name(seat), ROLES[facts.roles[seat]]) for seat in facts.seats}
    rounds = max([1] + [n.day for n in facts.record.nominations])
    for nomination in facts.record.nominations:
        row = players[nomination.by].nominating or [None] * rounds
        row[nomination.day - 1] = nomination.target
        players[nomination.by].nominating = row
    nights = max([1] + [n - 1 for n in facts.shots])
    for night, target in sorted(facts.shots.items()):
        for shooter in facts.shooters.get(night, []):
            row = players[shooter].shooting or [None] * nights
            row[night - 2] = target
            players[shooter].shooting = row
    for check in facts.record.checks:
        player = players[check.seat]
        if check.role in player.checked:
            notes.add("export_rechecked", day=check.night - 1, seat=check.seat)
        else:
            player.checked[check.role] = check.night - 1
    for out in facts.record.eliminated:
        players[out.seat].death = _death(facts, out)
    for seat, moment in facts.fouls:
        players[seat].warnings.append(game_time(moment))
    best = facts.record.best_move
    if best:
        players[best.seat].legacy = list(best.named)
    if facts.record.best_player is not None:
        players[facts.record.best_player].bonus = "bestPlayer"
    worst = facts.record.worst_player
    if worst is not None:  # no such title on the platform: the moderator's note on the player
        players[worst].comment = notes.book.text("export_worst_player", seat=worst)
    return [players[seat].to_json() for seat in facts.seats]


def record(facts: Facts, phrasebook: str, ended: datetime | None = None) -> JSONOutObject:
    notes = Notes(phrasebook)
    players = _players(facts, notes)
    common_notes(notes, facts)
    start, end = times(facts, ended)
    return {
        "startTime": start,
        "endTime": end,
        "language": facts.language,
        "features": FEATURES,
        "winner": WINNERS[facts.winner or ""],
        "players": players,
        "comment": notes.text(),
        EXTENSION: extension(facts),
    }
