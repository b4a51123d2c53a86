"""The game protocol (SPEC §4 `--protocol`) and a full state snapshot."""
from __future__ import annotations

import json
from typing import Any

from voicehost.game.moderator import Moderator


def protocol(game: Moderator) -> dict[str, Any]:
    return {
        "ruleset": game.rules.name,
        "winner": game.winner,
        "eliminated": [e.to_json() for e in game.eliminated],
        "nominations": [dict(n) for n in game.nominations],
        "votes": [dict(v) for v in game.votes],
        "checks": [dict(c) for c in game.checks],
        "fouls": {str(seat): n for seat, n in sorted(game.fouls.items()) if n},
        "best_move": dict(game.best_move) if game.best_move else None,
        "best_player": game.best_player,
        "worst_player": game.worst_player,
        "points": {str(seat): p for seat, p in game.points().items()},
    }


def protocol_text(game: Moderator) -> str:
    """The protocol as the file `--protocol` writes."""
    return json.dumps(protocol(game), ensure_ascii=False, indent=2) + "\n"


def snapshot(game: Moderator) -> dict[str, Any]:
    """Everything that decides what the game does next: equal snapshots, equal games."""
    floor = game.floor
    return {
        "protocol": protocol(game),
        "now": game.now,
        "phase": game.phase.value,
        "day": game.day,
        "night": game.night,
        "alive": sorted(game.alive),
        "roles": {str(s): r.value for s, r in game.roles.items()},
        "opener": game.opener,
        "timers": dict(sorted(game.timers.items())),
        "paused_at": game.paused_at,
        "floor": None if floor is None else {
            "id": floor.id, "seat": floor.seat, "kind": floor.kind.value,
            "start": floor.start, "end": floor.end, "heard": floor.heard,
        },
        "speakers": list(game.speakers),
        "floor_queue": [(s, k.value) for s, k in game.floor_queue],
        "then": game.then,
        "today": list(game.today),
        "candidates": list(game.candidates),
        "tied": game.tied,
        "vote_round": game.vote_round,
        "vote_index": game.vote_index,
        "vote_resolved": game.vote_resolved,
        "cancel_day": game.cancel_day,
        "shot": [game.shot, game.shot_entered, game.hunt_index],
        "silenced": sorted(game.silenced),
        "misses": game.misses,
        "quiet_rounds": game.quiet_rounds,
        "outputs": len(game.outputs),
    }
