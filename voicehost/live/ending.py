"""The game's end: its protocol, as JSON and as CSV, written whole or not at
all (a temp file renamed into place), beside the journal by default."""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost import files
from voicehost.errors import VoicehostError
from voicehost.game.protocol import protocol_text
from voicehost.live.texts import live_texts

if TYPE_CHECKING:
    from voicehost.live.table import LiveTable


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


def protocol_csv(live: LiveTable) -> str:
    """The protocol as a table for a spreadsheet, in the table's language
    (column names, roles, "да", "ночь 2", causes), each seat with its
    player's name (the seat number when none was given, as in the JSON's
    `players`). The page's download and the file beside the journal."""
    game = live.game
    texts = live_texts(game.rules.phrasebook)
    record, points = game.state.record, game.points()
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([column.strip() for column in texts.value("columns").split(",")])
    gone = {e.seat: e for e in record.eliminated}
    for seat in game.seats():
        role = texts.role(game.roles[seat].value) if game.roles else ""
        left = gone.get(seat)
        when = "" if left is None else (texts.value("night", count=left.night) if left.night is not None
                                        else texts.value("day", count=left.day))
        writer.writerow([seat, record.names.get(seat, str(seat)), role, points[seat], record.fouls.get(seat, 0),
                         texts.value("yes" if left else "no"),
                         texts.value(f"cause_{left.cause.value}") if left else "", when])
    writer.writerow([])
    winner = texts.value(str(record.winner)) if record.winner else ""
    writer.writerow([texts.value("ruleset"), game.rules.name, texts.value("winner"), winner])
    for n in record.nominations:
        writer.writerow([texts.value("nomination"), texts.value("day", count=n.day), n.by, n.target])
    for v in record.votes:
        counts = " ".join(f"{s}:{c}" for s, c in (v.counts or {}).items())
        writer.writerow([texts.value("vote"), texts.value("day", count=v.day),
                         texts.value("round", count=v.round), counts or texts.value("lift", count=v.lift)])
    return out.getvalue()


def write_protocol(live: LiveTable, target: Path) -> tuple[Path, Path]:
    """The protocol of `live.game` to `target` (JSON) and the same name with .csv."""
    csv_path = target.with_suffix(".csv")
    _write(target, protocol_text(live.game))
    _write(csv_path, protocol_csv(live))
    return target, csv_path
