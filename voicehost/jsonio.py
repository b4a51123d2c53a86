"""JSON at the edges, one way for every reader: text parsed strictly (no NaN
or Infinity, which are not JSON though Python's json takes them), and a file
read with any problem as one line naming it, in the error family."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from voicehost.errors import InputError, VoicehostError
from voicehost.refusals import RefuseKey

MAX_FILE = 16 * 1024 * 1024   # no file voicehost writes is near this; a larger one is not ours


class NotANumber(ValueError):
    """NaN, Infinity or -Infinity in JSON text: `name` is the word met."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"{name} is not a number")


def _no_constant(name: str) -> Any:
    raise NotANumber(name)


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def loads_strict(text: str | bytes, **hooks: Any) -> Any:
    """`json.loads`, refusing NaN and Infinity with `NotANumber` (a ValueError);
    `hooks` go to json.loads as they are (e.g. parse_int)."""
    if hooks or not isinstance(text, str):
        return json.loads(text, parse_constant=_no_constant, **hooks)
    return _DECODER.decode(text)   # one decoder: json.loads would build one per call


def read_json_file(path: Path, what: str, *, error: type[VoicehostError] = InputError,
                   max_bytes: int = MAX_FILE) -> Any:
    """A JSON file's value; a missing, unreadable, oversized, non-UTF-8 or
    malformed file is one `error` naming the file and `what` it should be
    (its phrasebook key `file_missing` or `file_damaged`, with the path)."""
    values: dict[str, object] = {"word": str(path)}
    try:
        if path.stat().st_size > max_bytes:
            raise _error(error, f"{path}: larger than {max_bytes // 1024 // 1024} MB, not a {what}",
                         RefuseKey.FILE_DAMAGED, values)
        return loads_strict(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _error(error, f"{path}: no such file", RefuseKey.FILE_MISSING, values) from None
    except NotANumber as exc:   # NaN or Infinity where a number belongs: say which
        raise _error(error, f"{path}: {exc.name} is not a number", RefuseKey.FILE_NOT_A_NUMBER,
                     {**values, "detail": exc.name}) from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not JSON"
        raise _error(error, f"{path}: cannot read the {what} ({why})", RefuseKey.FILE_DAMAGED, values) from None


def _error(error: type[VoicehostError], message: str, key: RefuseKey, values: dict[str, object]) -> VoicehostError:
    if issubclass(error, InputError):
        return error(message, key=key, values=values)
    return error(message)


__all__ = ["MAX_FILE", "NotANumber", "loads_strict", "read_json_file"]
