"""Players' names in a series (SPEC §6.1): 1–40 characters — letters of any
script, digits, spaces, '-', ''' and '.' — compared case-insensitively with
'ё' taken for 'е'."""
from __future__ import annotations

from voicehost.errors import InputError
from voicehost.refusals import RefuseKey

NAME_LENGTH = 40
_MARKS = frozenset(" -'.")


def name_key(name: str) -> str:
    """The form two names are compared in: 'Алёна' and 'алена' are one player."""
    return " ".join(name.split()).casefold().replace("ё", "е")


def check_name(name: object) -> str:
    """The name as kept (outer spaces trimmed, inner runs of spaces made one);
    an InputError naming it when it does not fit §6.1."""
    if not isinstance(name, str):
        raise InputError(f"a player's name must be text, got {name!r}", key=RefuseKey.NAME_NOT_TEXT)
    kept = " ".join(name.split())
    if not 1 <= len(kept) <= NAME_LENGTH:
        raise InputError(f"a player's name has 1-{NAME_LENGTH} characters: {name!r}",
                         key=RefuseKey.NAME_LENGTH, values={"word": name, "count": NAME_LENGTH})
    bad = next((c for c in kept if not (c.isalpha() or c.isdigit() or c in _MARKS)), None)
    if bad is not None:
        raise InputError(f"a player's name holds letters, digits, spaces, - ' and . only: {name!r}",
                         key=RefuseKey.NAME_CHARS, values={"word": name, "detail": bad})
    return kept
