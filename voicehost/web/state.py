"""What the pages show. The table view is public: it never carries a role, a
check answer or anything said only to the host."""
from __future__ import annotations

from typing import Any

from voicehost.game.model import Output, Phase
from voicehost.game.moderator import Moderator
from voicehost.journal import last_host_input
from voicehost.live import LiveTable
from voicehost.web.texts import Texts


def seat_names(live: LiveTable) -> dict[int, str]:
    """The players' names the host entered (the journal's `names` inputs; "" takes one back)."""
    names: dict[int, str] = {}
    for _, event in live.entries:
        if event.get("type") == "names" and isinstance(event.get("names"), dict):
            for seat, name in event["names"].items():
                names[int(seat)] = str(name).strip()
    return {seat: name for seat, name in sorted(names.items()) if name}


def _floor(live: LiveTable, texts: Texts) -> dict[str, Any] | None:
    game, floor = live.game, live.game.floor
    if floor is None:
        return None
    now = game.paused_at if game.paused_at is not None else live.game_now()
    return {"seat": floor.seat, "kind": texts(f"floor_{floor.kind.value}"), "kind_id": floor.kind.value,
            "limit": round(floor.end - floor.start),
            "remaining": max(0, round(floor.end - now, 1))}


def _public_day(live: LiveTable, texts: Texts) -> dict[str, Any]:
    """What anyone at the table may see: shared by both views."""
    game = live.game
    night = game.phase.is_night
    return {
        "day": game.day,
        "night": game.night,
        "is_night": night,
        "floor": None if night else _floor(live, texts),
        "paused": game.paused_at is not None,
        "nominations": [] if night else list(game.today),
        "candidates": list(game.candidates) if game.phase in (Phase.VOTING, Phase.TALLY) else [],
        "votes": [v for v in game.votes if v["day"] == game.day],
        "alive": sorted(game.alive),
        "out": [e.seat for e in game.eliminated],
        "over": game.phase is Phase.GAME_OVER,
        "winner": game.result_text() if game.phase is Phase.GAME_OVER else None,
    }


def table_state(live: LiveTable, texts: Texts) -> dict[str, Any]:
    game = live.game
    label = texts("table_night") if game.phase.is_night else texts(f"phase_{game.phase.value}")
    if game.phase is Phase.GAME_OVER:
        label = texts("table_over")
    return {"phase": label, **_public_day(live, texts),
            "names": {str(seat): name for seat, name in seat_names(live).items()}}  # names are public


def host_state(live: LiveTable, texts: Texts, *, reveal_roles: bool, csrf: str,
               log: list[tuple[int, Output]], suggestions: list[dict[str, Any]],
               answers_dismissed: int = 0) -> dict[str, Any]:
    game = live.game
    names = seat_names(live)
    seats = []
    for seat in game.seats():
        item: dict[str, Any] = {"seat": seat, "alive": seat in game.alive, "fouls": game.fouls[seat],
                                "silenced": seat in game.silenced}
        if seat in names:
            item["name"] = names[seat]
        if reveal_roles and game.roles:
            item["role"] = game.roles[seat].value
        seats.append(item)
    return {
        **_public_day(live, texts),
        "phase": texts(f"phase_{game.phase.value}"),
        "phase_id": game.phase.value,
        "where": game.where(),
        "waiting_for": game.waiting_for(),
        "floor": _floor(live, texts),
        "seats": seats,
        "voters": len(game.alive),
        "tied": list(game.tied or []) if game.phase is Phase.LIFT_VOTE else [],
        "best_move_open": game._best_move_floor() and game.best_move is None,
        "shot_entered": game.shot_entered,
        "game_kind": game.rules.game,
        "window_action": _window_action(game, texts),
        "best_move": game.best_move,
        "answers": night_answers(game, texts, answers_dismissed),
        "last_input": _last_input(live, texts),
        "don_alive": _alive_role(game, "don"),
        "sheriff_alive": _alive_role(game, "sheriff"),
        "winner": game.result_text(),
        "best_player": game.best_player,
        "worst_player": game.worst_player,
        "points": {str(k): v for k, v in game.points().items()} if game.phase is Phase.GAME_OVER else {},
        "log": [{"n": n, "t": round(o.t), "text": spoken(game, o), "private": o.private} for n, o in log[-40:]],
        "suggestions": suggestions,
        "reveal_roles": reveal_roles,
        "csrf": csrf,
        "failure": live.failure,  # the journal is not written: the page says so loudly
        "journal_notice": live.journal_notice,  # deleted or moved away, written anew
    }


def spoken(game: Moderator, output: Output) -> str:
    """An output's words in the table's language: the core emits keys with
    values, the table's phrasebook renders them."""
    return game.book.render(output)


def night_answers(game: Moderator, texts: Texts, dismissed: int) -> dict[str, Any]:
    """The private answers of the last night that had any, until the host dismisses them."""
    nights = [c["night"] for c in game.checks]
    night = max(nights, default=0)
    if night == 0 or night <= dismissed:
        return {"night": night, "items": []}
    return {"night": night, "items": [texts.answer(c) for c in game.checks if c["night"] == night]}


def _last_input(live: LiveTable, texts: Texts) -> dict[str, Any] | None:
    """The host input an undo would take back, so a tab undoes only what it saw."""
    entries = live.entries
    index = last_host_input(entries)
    if index is None:
        return None
    return {"n": index, "text": texts.input(entries[index][1])}


def _window_action(game: Moderator, texts: Texts) -> dict[str, Any] | None:
    """The city night's open window: whose turn, and whether that role can act."""
    if game.phase is not Phase.NIGHT_ACTION:
        return None
    from voicehost.game.city import ACTION_ROLE

    action = game.windows[game.window]
    actor = game._seat_of_role(ACTION_ROLE[action])
    return {"type": action, "label": texts(f"action_{action}"), "can_act": actor in game.alive}


def _alive_role(game: Moderator, role: str) -> bool:
    return any(r.value == role and s in game.alive for s, r in game.roles.items())
