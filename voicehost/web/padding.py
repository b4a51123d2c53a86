"""Message sizes that tell nothing: every message to a host device that can carry
a private line (its live channel's frames, its API's answers) is padded to a
fixed-size bucket, and what a night's answer changes in a message is balanced
first, so that the answer never changes a length (TLS hides the bytes, not how
many there are: "не Шериф" is three bytes longer than "Шериф")."""
from __future__ import annotations

import json
from collections.abc import Mapping

from aiohttp import web

from voicehost.jsontypes import JSONOut, JSONOutObject

BUCKET = 16 * 1024  # every padded message is a multiple of this many bytes
HEADER_BUCKET = 1024  # a download that is not JSON (a CSV): body and its X-Pad header together
PRIVATE_WIDTH = 256  # bytes a private line (an answer) takes, its balance included
FLAG_WIDTH = 5  # bytes of "false": a secret true/false/null takes as many
JSON_TYPES = ("application/json",)


def _width(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


def _slack(value: object, width: int) -> int:
    return max(0, width - _width(value))


def balance(state: JSONOutObject) -> None:
    """Add `pad` (spaces) to a host device's state so that its private parts (the
    night's answers, private log lines, whether the Don or the Sheriff lives, whether
    the window's role can act) always take the same bytes, whatever they say."""
    slack = 0
    answers = state.get("answers")
    if isinstance(answers, Mapping):
        slack += sum(_slack(item, PRIVATE_WIDTH) for item in _list(answers.get("items")))
    for line in _list(state.get("log")):
        if isinstance(line, Mapping) and line.get("private"):
            slack += _slack(line.get("text"), PRIVATE_WIDTH)
    for key in ("don_alive", "sheriff_alive"):
        slack += _slack(state.get(key), FLAG_WIDTH)
    window = state.get("window_action")
    if isinstance(window, Mapping):
        slack += _slack(window.get("can_act"), FLAG_WIDTH)
    state["pad"] = " " * slack


def _list(value: JSONOut) -> list[JSONOut]:
    return list(value) if isinstance(value, list | tuple) else []


def bucket(size: int) -> int:
    """The padded size: the next multiple of BUCKET (at least one bucket)."""
    return max(1, -(-size // BUCKET)) * BUCKET


def padded(text: str) -> str:
    """A JSON text padded with trailing spaces (JSON's own whitespace) to its bucket."""
    size = len(text.encode())
    return text + " " * (bucket(size) - size)


def pad_response(response: web.StreamResponse) -> None:
    """An API answer to a host device, padded to its bucket: a JSON body with
    trailing spaces, any other body (a CSV) with an `X-Pad` header (a smaller
    bucket: a header has no room for kilobytes)."""
    if not isinstance(response, web.Response) or response.prepared or not isinstance(response.body, bytes):
        return
    body = response.body
    if response.content_type in JSON_TYPES:
        response.body = body + b" " * (bucket(len(body)) - len(body))
    else:
        response.headers["X-Pad"] = "-" * (-len(body) % HEADER_BUCKET)
