"""What the pages show. The table view is public: it never carries a role, a
check answer or anything said only to the host."""
from __future__ import annotations

from voicehost.game import floors
from voicehost.game.keys import Key
from voicehost.game.model import FloorKind, Output, Phase
from voicehost.game.moderator import Moderator
from voicehost.journal import last_host_input
from voicehost.jsontypes import JSONOutObject
from voicehost.live import LiveTable
from voicehost.phrases.grammar import as_said
from voicehost.web.texts import Texts


def seat_names(live: LiveTable) -> dict[int, str]:
    """The players' names as the game keeps them: a series' seating and the
    host's `names` inputs alike (the seating's names never reached a tile)."""
    return {seat: name for seat, name in sorted(live.game.state.record.names.items()) if name}


def _floor(live: LiveTable, texts: Texts) -> JSONOutObject | None:
    game, floor = live.game, live.game.floor
    if floor is None:
        return None
    now = game.paused_at if game.paused_at is not None else live.game_now()
    return {"seat": floor.seat, "kind": texts(f"floor_{floor.kind.value}"), "kind_id": floor.kind.value,
            "limit": round(floor.end - floor.start),
            "remaining": max(0, round(floor.end - now, 1))}


def _public_day(live: LiveTable, texts: Texts) -> JSONOutObject:
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
        # whose vote is running now (the table asks for each candidate in turn)
        "voting_for": game.state.day.candidates[game.state.day.vote_index] if game.phase is Phase.VOTING else None,
        "votes": [v.to_json() for v in game.votes if v.day == game.day],
        "alive": sorted(game.alive),
        "out": [e.seat for e in game.eliminated],
        "over": game.phase is Phase.GAME_OVER,
        "winner": game.result_text() if game.phase is Phase.GAME_OVER else None,
    }


def table_state(live: LiveTable, texts: Texts, log: list[tuple[int, Output]] | None = None,
                seats: list[JSONOutObject] | None = None) -> JSONOutObject:
    """The room's board: public, and at night nothing but "Ночь" (the night's
    shot and checks change nothing here until the morning announces them).
    `seats`: the seats as `public_seats` gives them, if the caller added to them."""
    game = live.game
    night = game.phase.is_night
    label = texts("table_night") if night else texts(f"phase_{game.phase.value}")
    if game.phase is Phase.GAME_OVER:
        label = texts("table_over")
    names = seat_names(live)
    day = _public_day(live, texts)
    if night:
        day.update(votes=[], candidates=[], nominations=[])
    return {"phase": label, **day,
            "names": {str(seat): name for seat, name in names.items()},  # names are public
            "seats": public_seats(live, texts, names) if seats is None else seats,
            "nominees": [] if night else nominee_list(live, texts, names),
            "rounds": [] if night else vote_rounds(game, texts),
            "captions": None if night else captions(live, texts, log or []),
            "lines": public_lines(game, log or []),
            "game_kind": game.variant.kind}


def _seat_label(texts: Texts, seat: int, names: dict[int, str]) -> str:
    name = names.get(seat)
    return texts("player_named", seat=seat, name=name) if name else texts("player_n", seat=seat)


def public_seats(live: LiveTable, texts: Texts, names: dict[int, str]) -> list[JSONOutObject]:
    """Every seat as the room may see it: name, in or out (how and when), fouls."""
    game = live.game
    gone = {e.seat: e for e in game.eliminated}
    speaker = game.floor.seat if game.floor is not None and not game.phase.is_night else None
    seats = []
    for seat in game.seats():
        item: JSONOutObject = {"seat": seat, "name": names.get(seat, ""), "alive": seat in game.alive,
                                "fouls": game.fouls[seat], "silenced": seat in game.silenced,
                                "speaking": seat == speaker, "voice": seat in live.speaking}
        left = gone.get(seat)
        if left is not None:
            when = texts("when_night", night=left.night) if left.night is not None else \
                texts("when_day", day=left.day)
            item["out"] = {"cause": left.cause.value, "how": texts(f"cause_{left.cause.value}"), "when": when}
        seats.append(item)
    return seats


def nominee_list(live: LiveTable, texts: Texts, names: dict[int, str]) -> list[JSONOutObject]:
    """Today's nominees in order, each with who put them up."""
    game = live.game
    by = {n.target: n.by for n in game.nominations if n.day == game.day}
    return [{"seat": seat, "label": _seat_label(texts, seat, names), "by": by.get(seat)} for seat in game.today]


def vote_rounds(game: Moderator, texts: Texts) -> list[JSONOutObject]:
    """Today's vote rounds, each labelled, counts in the candidates' order:
    "Голосование: 7 — 4, 3 — 4, 9 — 2"."""
    rounds: list[JSONOutObject] = []
    for vote in (v for v in game.votes if v.day == game.day):
        if vote.lift is not None:
            rounds.append({"round": vote.round, "lift": vote.lift,
                           "text": texts("round_lift", count=vote.lift)})
            continue
        counts = [[seat, count] for seat, count in (vote.counts or {}).items()]
        text = ", ".join(texts("round_count", seat=seat, count=count) for seat, count in counts)
        key = "round_first" if vote.round == 1 else "round_again"
        rounds.append({"round": vote.round, "counts": counts, "text": texts(key, text=text)})
    return rounds


# Said, never written: the mafia's count is heard at the table; on a page it was a column of bare numbers.
UNWRITTEN = frozenset({Key.NUMBER})


def public_lines(game: Moderator, log: list[tuple[int, Output]], keep: int = 30) -> list[JSONOutObject]:
    """What the table heard (never a private answer), numbered, for the board's live region."""
    lines: list[JSONOutObject] = [{"n": n, "text": spoken(game, o)} for n, o in log
                                  if not o.private and o.key not in UNWRITTEN]
    return lines[-keep:]


CAPTION_ITEMS = 40


def _time(value: object) -> float:
    """A time in a journal entry (checked when the entry was read: a number)."""
    if isinstance(value, (int, float)):
        return float(value)
    raise TypeError(f"a journal time is a number, got {value!r}")


def captions(live: LiveTable, texts: Texts, log: list[tuple[int, Output]]) -> JSONOutObject | None:
    """The current speaker's words as the table hears them, with the accepted
    nominations marked where they were accepted. `source` says whose words they
    are: "rules" (the words the rules listen for, as the journal keeps them) or
    "open" (every word, from an open recognizer beside the grammar one); the
    items are the same either way: {"t", "text"} for a word, plus "nominated"
    (a seat) for an accepted nomination. "open" when the table runs the
    captions recognizer (`LiveTable.open_captions`), else "rules"; a speech
    the host typed is shown either way."""
    game = live.game
    floor = game.floor
    if floor is None:
        return None
    items: list[tuple[float, JSONOutObject]] = []   # (its time, the caption)

    def heard(text: object) -> bool:  # a word, not the recognizer's [unk] nor a typed <silence>
        return isinstance(text, str) and bool(text) and text[0] not in "[<"

    opened = live.open_captions() if live.open_captions is not None else None
    speaker = live.speaker
    for caption in opened or []:  # the table's own voice is no caption, as it is no word to the rules
        if caption.start >= floor.start and heard(caption.word) and (
                speaker is None or not speaker.is_echo(caption.start, caption.end)):
            start = round(caption.start, 2)
            items.append((start, {"t": start, "text": as_said(caption.word)}))
    for entry in live.entries:
        t, event = entry.t, entry.event
        kind = event.get("type")
        if kind == "word" and opened is None and t >= floor.start and heard(event.get("word")):
            start = round(_time(event.get("start", t)), 2)
            items.append((start, {"t": start, "text": event["word"]}))
        elif kind == "speech" and event.get("seat") == floor.seat and t >= floor.start:
            words = event.get("words")
            for word in words if isinstance(words, list) else []:
                if isinstance(word, dict) and heard(word.get("word")):
                    start = round(t + _time(word.get("start", 0)), 2)
                    items.append((start, {"t": start, "text": word["word"]}))
    marked = set()
    for _, output in log:
        seat = output.values.get("seat")
        if output.key == "accepted" and output.t >= floor.start and isinstance(seat, int):
            marked.add(seat)
            items.append((round(output.t, 2), {"t": round(output.t, 2), "text": texts("caption_nominated", seat=seat),
                                               "nominated": seat}))
    for nomination in game.nominations:  # accepted without a spoken answer (confirm_nominations off)
        if nomination.day == game.day and nomination.by == floor.seat and floor.kind is FloorKind.SPEECH \
                and nomination.target not in marked:
            target = nomination.target
            items.append((round(game.now, 2), {"t": round(game.now, 2), "text": texts("caption_nominated", seat=target),
                                               "nominated": target}))
    items.sort(key=lambda i: i[0])
    return {"seat": floor.seat, "source": "rules" if opened is None else "open",
            "items": [item for _, item in items[-CAPTION_ITEMS:]]}


# The roles mode's colours: the dark side, the checking stars, the town.
SIDES = {"mafia": "dark", "don": "dark", "maniac": "dark", "sheriff": "star", "commissar": "star"}
FOUND = {"sheriff", "black", "mafia", "maniac"}  # a check that found what it looks for


def roles_overlay_state(live: LiveTable, texts: Texts, log: list[tuple[int, Output]]) -> JSONOutObject:
    """The stream's roles mode: the board with every seat's role, the night
    checks and the best move. Secret: served only delayed, behind its own link."""
    game = live.game
    seats = public_seats(live, texts, seat_names(live))
    if game.roles:
        for seat, item in zip(game.seats(), seats, strict=True):
            role = game.roles[seat].value
            item["role"], item["role_name"] = role, texts(f"role_{role}")
            item["side"] = SIDES.get(role, "town")
    state = table_state(live, texts, log, seats)
    state["phase"] = texts(f"phase_{game.phase.value}")
    state["checks"] = [{"night": c.night, "by": c.role, "seat": c.seat, "result": c.result,
                        "found": c.result in FOUND, "text": texts.answer(c)} for c in game.checks]
    best = game.best_move
    state["best_move"] = None if best is None else {
        "seat": best.seat, "named": list(best.named),
        "text": texts("overlay_best_move", seat=best.seat, seats=list(best.named))}
    state["roles_mode"] = True
    return state


def host_state(live: LiveTable, texts: Texts, *, reveal_roles: bool, csrf: str,
               log: list[tuple[int, Output]], suggestions: list[JSONOutObject],
               answers_dismissed: int = 0) -> JSONOutObject:
    game = live.game
    names = seat_names(live)
    seats = public_seats(live, texts, names)
    for seat, item in zip(game.seats(), seats, strict=True):
        if reveal_roles and game.roles:
            item["role"] = game.roles[seat].value
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
        "best_move_open": game.best_move_open() and game.best_move is None,
        "shot_entered": game.shot_entered,
        "can_nominate": floors.nominated_by_hand(game) is not None,
        "game_kind": game.variant.kind,
        "window_action": _window_action(game, texts),
        "best_move": game.best_move.to_json() if game.best_move else None,
        "answers": night_answers(game, texts, answers_dismissed),
        "last_input": _last_input(live, texts),
        "checked": sorted({c.role for c in game.state.record.checks if c.night == game.state.seats.night}),
        "don_alive": _alive_role(game, "don"),
        "sheriff_alive": _alive_role(game, "sheriff"),
        "winner": game.result_text(),
        "best_player": game.best_player,
        "worst_player": game.worst_player,
        "points": {str(k): v for k, v in game.points().items()} if game.phase is Phase.GAME_OVER else {},
        "log": [{"n": n, "t": round(o.t), "text": spoken(game, o), "private": o.private} for n, o in log[-60:]
                if o.key not in UNWRITTEN],
        "suggestions": suggestions,
        "captions": captions(live, texts, log),
        "reveal_roles": reveal_roles,
        "csrf": csrf,
        "failure": live.failure,  # the journal is not written: the page says so loudly
        "journal_notice": live.journal_notice,  # deleted or moved away, written anew
        "channels_notice": live.channels_notice,   # a microphone per seat: mapped channels that heard nothing
    }


def spoken(game: Moderator, output: Output) -> str:
    """An output's words in the table's language: the core emits keys with
    values, the table's phrasebook renders them."""
    return game.book.render(output)


def night_answers(game: Moderator, texts: Texts, dismissed: int) -> JSONOutObject:
    """The private answers of the last night that had any, until the host dismisses them."""
    nights = [c.night for c in game.checks]
    night = max(nights, default=0)
    if night == 0 or night <= dismissed:
        return {"night": night, "items": []}
    return {"night": night, "items": [texts.answer(c) for c in game.checks if c.night == night]}


def _last_input(live: LiveTable, texts: Texts) -> JSONOutObject | None:
    """The host input an undo would take back, so a tab undoes only what it saw."""
    entries = live.entries
    index = last_host_input(entries)
    if index is None:
        return None
    return {"n": index, "text": texts.input(entries[index].event)}


def _window_action(game: Moderator, texts: Texts) -> JSONOutObject | None:
    """The city night's open window: whose turn, and whether that role can act."""
    if game.phase is not Phase.NIGHT_ACTION:
        return None
    from voicehost.game.variants.city import ACTION_ROLE

    action = game.windows[game.window]
    actor = game.role_seat(ACTION_ROLE[action])
    return {"type": action, "label": texts(f"action_{action}"), "can_act": actor in game.alive}


def _alive_role(game: Moderator, role: str) -> bool:
    return any(r.value == role and s in game.alive for s, r in game.roles.items())
