"""The key of a journal's checks (version 5 on): 32 random bytes of the game's
own, in `<journal>.key` beside it (mode 0600, written as the paired devices
file is), with the game's identity, so a key beside another game's journal is
named as such. Without the key nobody can recompute a check, so an edited
journal, or an export made from one, is refused."""
from __future__ import annotations

import json
import secrets
from pathlib import Path

from voicehost.errors import JournalError, JournalWriteError
from voicehost.files import write_atomic

KEY_BYTES = 32
KEYS_LOOKED_AT = 2000   # a folder of a club's evenings; never a walk without end


def key_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".key")


def new_key() -> tuple[str, bytes]:
    """A new game's identity (16 hex digits) and the key of its checks."""
    return secrets.token_hex(8), secrets.token_bytes(KEY_BYTES)


def write_key(journal: Path, game: str, key: bytes) -> None:
    """The key beside the journal, whole or not at all, readable by its owner alone."""
    try:
        write_atomic(key_path(journal), json.dumps({"game": game, "key": key.hex()}) + "\n")
    except OSError as exc:
        raise JournalWriteError(f"cannot write the journal's key {key_path(journal)}: "
                                f"{exc.strerror or exc}") from None


def _key_of_game(journal: Path, game: str) -> Path | None:
    """A copy of a journal in the same folder reads with its original's key."""
    try:
        keys = sorted(journal.parent.glob("*.key"))[:KEYS_LOOKED_AT]
    except OSError:
        return None
    for path in keys:
        try:
            if path.stat().st_size < 1024 and json.loads(path.read_bytes()).get("game") == game:
                return path
        except (OSError, ValueError, AttributeError):
            continue
    return None


def read_key(journal: Path, game: str) -> bytes:
    """The key of the game `game` journaled at `journal` (or at another name in
    its folder); refused naming what is wrong."""
    path = key_path(journal)
    if not path.exists():
        path = _key_of_game(journal, game) or path
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise JournalError(f"{journal}: its checks are keyed and its key {path.name} is not beside it; "
                           f"copy the key with the journal") from None
    except OSError as exc:
        raise JournalError(f"cannot read the journal's key {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError):
        raise JournalError(f"{path}: not a journal key (damaged)") from None
    key = data.get("key") if isinstance(data, dict) else None
    if not isinstance(key, str) or len(key) != 2 * KEY_BYTES or not isinstance(data.get("game"), str):
        raise JournalError(f"{path}: not a journal key (damaged)")
    if data["game"] != game:
        raise JournalError(f"{journal}: the key beside it ({path.name}) is another game's; "
                           f"the journal or its key was swapped")
    try:
        return bytes.fromhex(key)
    except ValueError:
        raise JournalError(f"{path}: not a journal key (damaged)") from None


def has_key(journal: Path) -> bool:
    return key_path(journal).exists()
