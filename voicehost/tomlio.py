"""TOML at the edges, one way for every file: reading a file with errors that
name it, and coercing a value to its declared type. (The phrase files'
`inherit` and a club's files over the shipped ones: voicehost.phrasedata.)"""
from __future__ import annotations

import math
import stat
import tomllib
from pathlib import Path
from typing import Any

from voicehost.errors import ConfigError, VoicehostError

MAX_BYTES = 1_000_000


# A TOML table as tomllib hands it over: its values are checked (coerce) where they are used.
TomlTable = dict[str, Any]


def read_toml(path: Path, what: str = "settings file", error: type[VoicehostError] = ConfigError) -> TomlTable:
    """A TOML file as a dict; any problem is one line naming the file. A pipe
    is refused (reading it would wait for ever), and no more than `MAX_BYTES`
    are read (a device such as /dev/zero never ends; /dev/null is empty)."""
    try:
        mode = Path(path).stat().st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            raise error(f"{path}: the {what} is a pipe, not a file")
        with open(path, "rb") as stream:
            data = stream.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise error(f"{path}: the {what} is over {MAX_BYTES // 1_000_000} MB; no settings file is that large")
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise error(f"no {what} at {path}") from None
    except IsADirectoryError:
        raise error(f"{path}: the {what} is a folder, not a file") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: the {what} is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise error(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({' '.join(str(exc).split())})") from None
    except RecursionError:
        raise error(f"{path}: not valid TOML (nested too deep)") from None


def type_name(hint: Any) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(
        hint, "a list of words")


def coerce(value: Any, hint: Any, what: str) -> Any:
    """`value` as the type `hint` (bool, int, float, str, tuple[str, ...]);
    `what` names the setting and its file in the error."""
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok:
            value = float(value)
            if not math.isfinite(value):
                raise ConfigError(f"{what} must be a finite number, got {value}")
    elif hint is str:
        ok = isinstance(value, str)
    else:  # tuple[str, ...]
        ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    if not ok:
        raise ConfigError(f"{what} must be {type_name(hint)}, got {value!r}")
    return value
