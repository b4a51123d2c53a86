"""Reading and checking what a client posts, before the moderator sees it.

Every way a body can be wrong (charset, encoding, JSON syntax, depth, huge
numbers, wrong types) becomes a Refusal: a 4xx and a phrasebook key."""
from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from voicehost.game.events import NAME_LENGTH, SEAT_EVENTS
from voicehost.game.events import NULLABLE as NULLABLE_EVENTS
from voicehost.jsonio import loads_strict

MAX_DEPTH = 8
MAX_ITEMS = 64
MAX_TEXT = 64
MAX_VOTES = 1000
INPUT_FIELDS = {"type", "seat", "seats", "counts", "count", "roles", "suggestion", "names"}
SEAT_FIELD = SEAT_EVENTS   # the one registry's lists (game.events), not copies of them
NULLABLE = NULLABLE_EVENTS
ROLE_NAMES = {"citizen", "sheriff", "mafia", "don", "commissar", "doctor", "lover", "maniac"}


class Refusal(Exception):
    """A request refused: its HTTP status, a [web] phrasebook key and the values."""

    def __init__(self, status: int, key: str, **values: Any) -> None:
        super().__init__(key)
        self.status, self.key, self.values = status, key, values


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 12 else text[:12] + "…"


async def read_json(request: web.Request, *, allow_empty: bool = False) -> Any:
    """The body as JSON, UTF-8 only, bounded in depth and number size."""
    charset = request.charset
    if charset is not None and charset.lower().replace("_", "-") not in ("utf-8", "utf8", "us-ascii", "ascii"):
        raise Refusal(415, "bad_charset", what=_shown(charset))
    body = await request.read()
    if allow_empty and not body.strip():
        return {}
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal(400, "bad_utf8") from None
    if _depth(text) > MAX_DEPTH:
        raise Refusal(400, "too_deep")
    try:
        return loads_strict(text, parse_int=_small_int)
    except RecursionError:
        raise Refusal(400, "too_deep") from None
    except _TooLong:
        raise Refusal(400, "number_too_long") from None
    except (ValueError, TypeError):
        raise Refusal(400, "not_json") from None


class _TooLong(ValueError):
    pass


def _small_int(digits: str) -> int:
    if len(digits.lstrip("-")) > 9:
        raise _TooLong(digits[:12])
    return int(digits)


def _depth(text: str) -> int:
    """How deep brackets nest (strings skipped), without building anything."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _seat(value: Any, size: int, *, nullable: bool = False) -> None:
    if value is None and nullable:
        return
    if isinstance(value, str) and value.isascii() and value.strip().isdigit() and len(value) <= 3:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= size:
        raise Refusal(400, "bad_seat", count=size, what=_shown(value))


def _count(value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_VOTES:
        raise Refusal(400, "bad_count", count=MAX_VOTES, what=_shown(value))


def _seat_list(data: dict[str, Any], field: str, size: int) -> None:
    chosen = data.get(field)
    if not isinstance(chosen, list) or len(chosen) > MAX_ITEMS:
        raise Refusal(400, "bad_list", what=field)
    for seat in chosen:
        _seat(seat, size)


def check_input(data: Any, allowed: set[str] | frozenset[str], size: int) -> None:
    """A host input's shape, checked field by field with the page's own words."""
    if not isinstance(data, dict):
        raise Refusal(400, "not_object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in allowed:
        raise Refusal(400, "not_host_input", what=_shown(kind))
    for field in data:
        if field not in INPUT_FIELDS:
            raise Refusal(400, "bad_field", what=_shown(field))
    suggestion = data.get("suggestion")
    if suggestion is not None and (isinstance(suggestion, bool) or not isinstance(suggestion, int)):
        raise Refusal(400, "bad_field", what="suggestion")
    if kind in SEAT_FIELD:
        if "seat" not in data:
            raise Refusal(400, "bad_seat", count=size, what="—")
        _seat(data["seat"], size, nullable=kind in NULLABLE)
    elif kind in ("best_move", "candidates"):
        _seat_list(data, "seats", size)
    elif kind == "votes":
        counts = data.get("counts")
        if not isinstance(counts, dict) or not counts or len(counts) > MAX_ITEMS:
            raise Refusal(400, "bad_counts")
        for seat, count in counts.items():
            _seat(seat, size)
            _count(count)
    elif kind == "lift_votes":
        _count(data.get("count"))
    elif kind == "setup":
        roles = data.get("roles")
        if not isinstance(roles, dict) or len(roles) > MAX_ITEMS:
            raise Refusal(400, "bad_roles")
        for seat, role in roles.items():
            _seat(seat, size)
            if not isinstance(role, str) or role not in ROLE_NAMES:
                raise Refusal(400, "bad_role", what=_shown(role))
    elif kind == "names":
        names = data.get("names")
        if not isinstance(names, dict) or not names or len(names) > MAX_ITEMS:
            raise Refusal(400, "bad_names")
        for seat, name in names.items():
            _seat(seat, size)
            if not isinstance(name, str) or len(name.strip()) > NAME_LENGTH or not name.isprintable():
                raise Refusal(400, "bad_name", count=NAME_LENGTH, what=_shown(name))
