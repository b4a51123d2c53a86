"""A finished game as a Polemica game record (its game JSON, "version": 4, as
in ../shared/realgames/polemica-*.json).

Polemica numbers days as we do (day 1 is the first day) and nights from the
first shooting night: our night n (n >= 2) is its night n-1. Roles: 0 don,
1 mafia, 2 civilian, 3 sheriff; result 0 red, 1 black. A vote entry with
"num" 0 is a nomination; rounds 1, 2.. hold each voter's choice, which the
game does not know (it keeps counts), so only nominations are written there
and the counts go to the `comment` and, as data, under "voicehost"."""
from __future__ import annotations

from datetime import datetime

from voicehost.export.common import EXTENSION, Notes, common_notes, extension, times
from voicehost.export.facts import Facts, Moment, removal_of
from voicehost.game.model import Cause, Phase
from voicehost.jsontypes import JSONOutObject

ROLES = {"don": 0, "mafia": 1, "citizen": 2, "sheriff": 3}
CHECKERS = {"don": 0, "sheriff": 3}
RESULTS = {"red": 0, "black": 1}
ZERO_VOTING = {"normal": "normal", "none": "none", "lift_only": "liftOnly"}
NIGHT_STAGES = {Phase.HUNT: "shooting", Phase.DON_CHECK: "donCheck", Phase.SHERIFF_CHECK: "sheriffCheck"}
FIRST_NIGHT = (Phase.SETUP, Phase.MAFIA_MEETING, Phase.DON_MEETING, Phase.SHERIFF_MEETING)


def stage(moment: Moment) -> JSONOutObject:
    """A moment as a Polemica stage {type, day[, player, voting]}."""
    if moment.phase in NIGHT_STAGES:
        return {"type": NIGHT_STAGES[moment.phase], "day": moment.night - 1}
    if moment.phase in FIRST_NIGHT:
        return {"type": "night", "day": 0}
    if moment.phase is Phase.GAME_OVER:
        return {"type": "gameOver", "day": moment.day}
    if moment.phase is Phase.SPEECH:
        return {"type": "speech", "day": moment.day, "player": moment.seat}
    if moment.phase is Phase.TIE_SPEECH:
        return {"type": "reSpeech", "day": moment.day, "player": moment.seat, "voting": moment.vote_round}
    if moment.phase is Phase.LAST_WORD and moment.after_night_kill:
        return {"type": "shooted", "day": moment.day, "player": moment.seat}
    if moment.phase is Phase.LAST_WORD:
        return {"type": "voted", "day": moment.day, "player": moment.seat, "voting": moment.vote_round}
    return {"type": "voting", "day": moment.day, "voting": max(moment.vote_round, 1)}


def _players(facts: Facts, notes: Notes) -> list[JSONOutObject]:
    fouls: dict[int, list[JSONOutObject]] = {seat: [] for seat in facts.seats}
    for seat, moment in facts.fouls:
        fouls[seat].append({"stage": stage(moment)})
    players: dict[int, JSONOutObject] = {
        seat: {"position": seat, "username": facts.name(seat), "role": ROLES[facts.roles[seat]],
               "techs": [], "fouls": fouls[seat]} for seat in facts.seats}
    for out in facts.record.eliminated:
        removal = removal_of(facts, out.seat)
        if removal is not None:
            players[out.seat]["disqual"] = stage(removal.moment)
        if out.cause == Cause.LEFT_TABLE:
            notes.add("export_left_table", seat=out.seat)
    best = facts.record.best_move
    if best:  # Polemica's "guess" holds what players guessed, not the rules' best move
        notes.add("best_move", seat=best.seat, seats=list(best.named))
    return [players[seat] for seat in facts.seats]


def record(facts: Facts, phrasebook: str, ended: datetime | None = None) -> JSONOutObject:
    notes = Notes(phrasebook)
    players = _players(facts, notes)
    if facts.winner == "draw":
        notes.add("export_draw")
    for key, seat in (("best_player", facts.record.best_player), ("worst_player", facts.record.worst_player)):
        if seat is not None:
            notes.add(f"export_{key}", seat=seat)
    common_notes(notes, facts)
    start, _ = times(facts, ended)
    return {
        "version": 4,
        "started": start,
        "zeroVoting": ZERO_VOTING.get(facts.first_day_vote, "normal"),
        "stage": {"type": "gameOver", "day": max(facts.day, 1)},
        "result": RESULTS.get(facts.winner or ""),
        "players": players,
        "votes": [{"day": n.day, "num": 0, "voter": n.by, "candidate": n.target}
                  for n in facts.record.nominations],
        "checks": [{"night": c.night - 1, "role": CHECKERS[c.role], "player": c.seat}
                   for c in facts.record.checks],
        "shots": [{"night": night - 1, "shooter": shooter, "victim": target}
                  for night, target in sorted(facts.shots.items()) if target is not None
                  for shooter in facts.shooters.get(night, [])],
        "bonuses": [],
        "comment": notes.text(),
        EXTENSION: extension(facts),
    }
