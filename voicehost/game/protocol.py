"""The game protocol (SPEC §4 `--protocol`) and a full state snapshot."""
from __future__ import annotations

import dataclasses
import json
from collections import deque
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator
    from voicehost.jsontypes import JSONObject, JSONValue


def protocol(game: Moderator) -> JSONObject:
    """The SPEC §4 protocol: the records serialized here, at the edge."""
    record = game.state.record
    out: JSONObject = {
        "ruleset": game.rules.name,
        "winner": None if record.winner is None else str(record.winner),
        "eliminated": [e.to_json() for e in record.eliminated],
        "nominations": [n.to_json() for n in record.nominations],
        "votes": [v.to_json() for v in record.votes],
        "checks": [c.to_json() for c in record.checks],
        "fouls": {str(seat): n for seat, n in sorted(record.fouls.items()) if n},
        "best_move": record.best_move.to_json() if record.best_move else None,
        "best_player": record.best_player,
        "worst_player": record.worst_player,
        "points": {str(seat): p for seat, p in game.points().items()},
        "roles": {str(seat): role.value for seat, role in sorted(game.state.seats.roles.items())},
        "players": {str(seat): record.names.get(seat, str(seat)) for seat in game.seats()},
    }
    if record.protest is not None:
        out["protest"] = record.protest.to_json()
    return out


def protocol_text(game: Moderator) -> str:
    """The protocol as the file `--protocol` writes."""
    return json.dumps(protocol(game), ensure_ascii=False, indent=2) + "\n"


def snapshot(game: Moderator) -> JSONObject:
    """Everything that decides what the game does next: equal snapshots, equal
    games. Every field of the state is in it (the open floor's listener too),
    so a part added to the state can never be left out of the comparison."""
    state = game.state
    # never change: not part of a game's state
    shared: tuple[object, ...] = (game, game.grammar, game.rules, game.book)
    out: JSONObject = {"protocol": protocol(game), "outputs": len(game.outputs)}
    out.update({f.name: _plain(getattr(state, f.name), shared) for f in dataclasses.fields(state)})
    return out


def _plain(value: object, shared: tuple[object, ...]) -> JSONValue:
    """A state value as plain, comparable JSON-like data."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Enum):
        return _plain(value.value, shared)
    if any(value is s for s in shared):
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), shared) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v, shared) for k, v in sorted(value.items(), key=lambda item: str(item[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v, shared) for v in value), key=repr)
    if isinstance(value, (list, tuple, deque)):
        return [_plain(v, shared) for v in value]
    if hasattr(value, "__dict__"):   # the listener: its own state, not the grammar it reads
        return {k: _plain(v, shared) for k, v in sorted(vars(value).items())}
    raise TypeError(f"no snapshot for a {type(value).__name__}")
