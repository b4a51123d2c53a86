"""What the pages show. The table view is public: it never carries a role, a
check answer or anything said only to the host."""
from __future__ import annotations

import csv
import io
from typing import Any

from voicehost.game.model import Output, Phase
from voicehost.game.protocol import protocol
from voicehost.live import LiveTable


def _floor(live: LiveTable) -> dict[str, Any] | None:
    game, floor = live.game, live.game.floor
    if floor is None:
        return None
    now = game.paused_at if game.paused_at is not None else live.game_now()
    return {"seat": floor.seat, "kind": game.book.floor[floor.kind.value], "limit": round(floor.end - floor.start),
            "remaining": max(0, round(floor.end - now, 1))}


def _public_day(live: LiveTable) -> dict[str, Any]:
    """What anyone at the table may see: shared by both views."""
    game = live.game
    night = game.phase.is_night
    return {
        "day": game.day,
        "night": game.night,
        "is_night": night,
        "floor": None if night else _floor(live),
        "paused": game.paused_at is not None,
        "nominations": [] if night else list(game.today),
        "candidates": list(game.candidates) if game.phase in (Phase.VOTING, Phase.TALLY) else [],
        "votes": [v for v in game.votes if v["day"] == game.day],
        "alive": sorted(game.alive),
        "out": [e.seat for e in game.eliminated],
        "over": game.phase is Phase.GAME_OVER,
    }


def table_state(live: LiveTable) -> dict[str, Any]:
    game = live.game
    label = game.book.phase_label("night" if game.phase.is_night else game.phase.value)
    if game.phase is Phase.GAME_OVER:
        label = game.book.phase_label("stopped")
    return {"phase": label, **_public_day(live)}


def host_state(live: LiveTable, *, reveal_roles: bool, csrf: str, log: list[Output],
               suggestions: list[dict[str, Any]]) -> dict[str, Any]:
    game = live.game
    seats = []
    for seat in game.seats():
        item: dict[str, Any] = {"seat": seat, "alive": seat in game.alive, "fouls": game.fouls[seat],
                                "silenced": seat in game.silenced}
        if reveal_roles and game.roles:
            item["role"] = game.roles[seat].value
        seats.append(item)
    return {
        **_public_day(live),
        "phase": game.book.phase_label(game.phase.value),
        "phase_id": game.phase.value,
        "where": game.where(),
        "waiting_for": game.waiting_for(),
        "floor": _floor(live),
        "seats": seats,
        "voters": len(game.alive),
        "tied": list(game.tied or []) if game.phase is Phase.LIFT_VOTE else [],
        "best_move_open": game._best_move_floor() and game.best_move is None,
        "shot_entered": game.shot_entered,
        "game_kind": game.rules.game,
        "window_action": _window_action(game),
        "best_move": game.best_move,
        "checks": [c for c in game.checks if c["night"] == game.night] if game.phase.is_night else [],
        "don_alive": _alive_role(game, "don"),
        "sheriff_alive": _alive_role(game, "sheriff"),
        "winner": game.result_text(),
        "best_player": game.best_player,
        "worst_player": game.worst_player,
        "points": {str(k): v for k, v in game.points().items()} if game.phase is Phase.GAME_OVER else {},
        "log": [{"t": round(o.t), "text": game.book.render(o), "private": o.private} for o in log[-40:]],
        "suggestions": suggestions,
        "reveal_roles": reveal_roles,
        "csrf": csrf,
    }


def _window_action(game) -> dict[str, Any] | None:
    """The city night's open window: whose turn, and whether that role can act."""
    if game.phase is not Phase.NIGHT_ACTION:
        return None
    from voicehost.game.city import ACTION_ROLE

    action = game.windows[game.window]
    actor = game._seat_of_role(ACTION_ROLE[action])
    return {"type": action, "label": ACTION_LABEL[action], "can_act": actor in game.alive}


ACTION_LABEL = {"heal": "Доктор лечит", "visit": "Любовница навещает", "commissar_check": "Комиссар проверяет",
                "maniac_kill": "Маньяк убивает"}


def _alive_role(game, role: str) -> bool:
    return any(r.value == role and s in game.alive for s, r in game.roles.items())


def protocol_csv(live: LiveTable) -> str:
    data = protocol(live.game)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["seat", "role", "points", "fouls", "eliminated", "cause", "when"])
    gone = {e["seat"]: e for e in data["eliminated"]}
    for seat in live.game.seats():
        role = live.game.roles[seat].value if live.game.roles else ""
        left = gone.get(seat)
        when = "" if left is None else (f"night {left['night']}" if "night" in left else f"day {left['day']}")
        writer.writerow([seat, role, data["points"][str(seat)], data["fouls"].get(str(seat), 0),
                         "yes" if left else "no", left["cause"] if left else "", when])
    writer.writerow([])
    writer.writerow(["ruleset", data["ruleset"], "winner", data["winner"] or ""])
    for n in data["nominations"]:
        writer.writerow(["nomination", f"day {n['day']}", n["by"], n["target"]])
    for v in data["votes"]:
        counts = " ".join(f"{s}:{c}" for s, c in v.get("counts", {}).items())
        writer.writerow(["vote", f"day {v['day']}", f"round {v['round']}", counts or f"lift {v['lift']}"])
    return out.getvalue()
