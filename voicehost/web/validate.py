"""Reading and checking what a client posts, before the moderator sees it.

Every way a body can be wrong (charset, encoding, JSON syntax, depth, huge
numbers, wrong types) becomes a Refusal: a 4xx and a phrasebook key."""
from __future__ import annotations

import json

from aiohttp import web

from voicehost.errors import InputError
from voicehost.game.events import MAX_COUNT, NAME_LENGTH, Event, parse_event
from voicehost.jsonio import loads_strict
from voicehost.jsontypes import JSONValue
from voicehost.phrasebook import Phrasebook

MAX_DEPTH = 8
# The fields a page's input may carry: an input's own (game.events) and the page's `suggestion`.
INPUT_FIELDS = {"type", "seat", "seats", "counts", "count", "roles", "suggestion", "names"}


class Refusal(Exception):
    """A request refused: its HTTP status, a [web] phrasebook key and the values."""

    def __init__(self, status: int, key: str, **values: object) -> None:
        super().__init__(key)
        self.status, self.key, self.values = status, key, values


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 12 else text[:12] + "…"


async def read_json(request: web.Request, *, allow_empty: bool = False) -> JSONValue:
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
        value: JSONValue = loads_strict(text, parse_int=_small_int)
        return value
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


# parse_event's refusals in the page's own words ([web]): key -> (page key, its values).
_PAGE_WORDS = {
    "event_not_object": "not_object",
    "event_unknown": "not_host_input",
    "bad_seat": "bad_seat",
    "not_at_table": "bad_seat",
    "needs_seat": "bad_seat",
    "bad_count": "bad_count",
    "votes_not_a_map": "bad_counts",
    "candidates_not_a_list": "bad_list",
    "best_move_not_a_list": "bad_list",
    "deal_not_a_map": "bad_roles",
    "deal_role_not_a_name": "bad_role",
    "names_not_a_map": "bad_names",
    "name_bad": "bad_name",
}


def parse_input(data: JSONValue, allowed: set[str] | frozenset[str], size: int,
                book: Phrasebook) -> tuple[Event, int | None]:
    """A host input read by the one parser (game.events.parse_event, its limits),
    and the page's `suggestion` it closes. What the page may post is checked
    here (which types, which fields); what an input says, only by parse_event,
    its refusal in the page's words, else the phrasebook's [refuse] line."""
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
    try:
        return parse_event({k: v for k, v in data.items() if k != "suggestion"}, size), suggestion
    except InputError as exc:
        raise _refused(exc, kind, size, book) from None
    except (ValueError, TypeError):   # never expected of parse_event: still a refusal, not a 500
        raise Refusal(400, "bad_input") from None


def _refused(exc: InputError, kind: str, size: int, book: Phrasebook) -> Refusal:
    key = _PAGE_WORDS.get(exc.key)
    given = exc.values.get("value", "—")
    if key == "bad_seat":
        return Refusal(400, key, count=size, what=_shown(given))
    if key == "bad_count":
        return Refusal(400, key, count=MAX_COUNT, what=_shown(given))
    if key in ("bad_role", "bad_name"):
        return Refusal(400, key, count=NAME_LENGTH, what=_shown(given))
    if key == "bad_list":
        return Refusal(400, key, what="seats")
    if key == "not_host_input":
        return Refusal(400, key, what=_shown(kind))
    if key is not None:
        return Refusal(400, key)
    if exc.key in book.refuse:
        return Refusal(400, "raw", text=book.refusal(exc))
    return Refusal(400, "bad_input")
