"""The game protocol (SPEC §4 `--protocol`) and a full state snapshot."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator


def protocol(game: Moderator) -> dict[str, Any]:
    record = game.state.record
    return {
        "ruleset": game.rules.name,
        "winner": None if record.winner is None else str(record.winner),
        "eliminated": [e.to_json() for e in record.eliminated],
        "nominations": [dict(n) for n in record.nominations],
        "votes": [dict(v) for v in record.votes],
        "checks": [dict(c) for c in record.checks],
        "fouls": {str(seat): n for seat, n in sorted(record.fouls.items()) if n},
        "best_move": dict(record.best_move) if record.best_move else None,
        "best_player": record.best_player,
        "worst_player": record.worst_player,
        "points": {str(seat): p for seat, p in game.points().items()},
    }


def protocol_text(game: Moderator) -> str:
    """The protocol as the file `--protocol` writes."""
    return json.dumps(protocol(game), ensure_ascii=False, indent=2) + "\n"


def snapshot(game: Moderator) -> dict[str, Any]:
    """Everything that decides what the game does next: equal snapshots, equal games."""
    state = game.state
    clock, seats, day, night, floors, record = (state.clock, state.seats, state.day, state.night,
                                                state.floors, state.record)
    floor = floors.floor
    return {
        "protocol": protocol(game),
        "now": clock.now,
        "phase": seats.phase.value,
        "day": seats.day,
        "night": seats.night,
        "alive": sorted(seats.alive),
        "roles": {str(s): r.value for s, r in seats.roles.items()},
        "opener": day.opener,
        "timers": dict(sorted(clock.timers.items())),
        "paused_at": clock.paused_at,
        "floor": None if floor is None else {
            "id": floor.id, "seat": floor.seat, "kind": floor.kind.value,
            "start": floor.start, "end": floor.end, "heard": floor.heard,
        },
        "speakers": list(day.speakers),
        "floor_queue": [(s, k.value) for s, k in floors.queue],
        "then": floors.then,
        "today": list(day.today),
        "candidates": list(day.candidates),
        "tied": day.tied,
        "vote_round": day.vote_round,
        "vote_index": day.vote_index,
        "vote_resolved": day.vote_resolved,
        "cancel_day": day.cancel_day,
        "shot": [night.shot, night.shot_entered, night.hunt_index],
        "silenced": sorted(record.silenced),
        "misses": record.misses,
        "quiet_rounds": record.quiet_rounds,
        "outputs": len(game.outputs),
    }
