"""The game's end: its protocol, as JSON and as CSV, written whole or not at
all (a temp file renamed into place), beside the journal by default."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from voicehost import files
from voicehost.errors import VoicehostError
from voicehost.game.protocol import protocol_text


class ProtocolWriteError(VoicehostError):
    """The protocol could not be written where it was asked for."""

    def __init__(self, path: Path, why: str) -> None:
        self.path, self.why = path, why
        super().__init__(f"cannot write {path}: {why}")


def protocol_paths(journal: Path) -> tuple[Path, Path]:
    """`game-….jsonl` -> `game-….protocol.json`, `game-….protocol.csv`."""
    stem = journal.name[:-len(journal.suffix)] if journal.suffix else journal.name
    return journal.with_name(f"{stem}.protocol.json"), journal.with_name(f"{stem}.protocol.csv")


def _write(path: Path, text: str) -> None:
    """The one atomic writer (voicehost.files), its failure named as the protocol's."""
    what = files.kept_record(path)   # a game started there since: never written over
    if what is not None:
        raise ProtocolWriteError(path, f"it is {what}")
    try:
        files.write_atomic(path, text)
    except OSError as exc:
        raise ProtocolWriteError(path, exc.strerror or str(exc)) from None


def write_protocol(live: Any, target: Path) -> tuple[Path, Path]:
    """The protocol of `live.game` to `target` (JSON) and the same name with .csv."""
    from voicehost.web.state import protocol_csv  # the page's CSV: one writer for both

    csv_path = target.with_suffix(".csv")
    _write(target, protocol_text(live.game))
    _write(csv_path, protocol_csv(live))
    return target, csv_path
