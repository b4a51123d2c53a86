"""The host's names for the seats, typed as `/names 1=Алиса 10=Вера Павловна 3=`:
a name runs to the next SEAT=, may hold spaces, and an empty one takes the name back."""
from __future__ import annotations

import re

from voicehost.errors import InputError
from voicehost.jsontypes import JSONOutObject

_SEAT = re.compile(r"(?:^|\s)(\d+)\s*=")


def names_event(text: str) -> JSONOutObject:
    """The `names` event for the text after `/names`; checked further by parse_event."""
    marks = list(_SEAT.finditer(text))
    if not marks or text[:marks[0].start()].strip():
        raise InputError("names: write SEAT=NAME, e.g. /names 1=Алиса 10=Вера Павловна")
    names: dict[str, str] = {}
    for mark, following in zip(marks, marks[1:] + [None], strict=True):
        end = following.start() if following is not None else len(text)
        names[mark.group(1)] = text[mark.end():end].strip()
    return {"type": "names", "names": names}
