"""Finished games as the rating platforms' records: mafiaratings and Polemica.

    export_text(table, "mafiaratings")          the record as JSON text
    write_exports(table, protocol_path)         both files next to the protocol
    load_table(path)                            a journal, ready to export

`table` is a journal.Table: the game and its accepted inputs (the inputs say
when each foul, removal and shot happened, which the game's results do not)."""
from __future__ import annotations

import errno
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from voicehost.errors import InputError, VoicehostError
from voicehost.export import mafiaratings, polemica
from voicehost.export.common import ExportError, check_exportable, host_text
from voicehost.export.facts import Facts, collect
from voicehost.export.names import names_event
from voicehost.files import input_file, kept_record, output_file, write_atomic
from voicehost.journal import Table, replay_scan, scan_file
from voicehost.jsonio import read_json_file
from voicehost.jsontypes import JSONOutObject

FORMATS = {"mafiaratings": mafiaratings.record, "polemica": polemica.record}


def _facts(table: Table) -> Facts:
    """What the records are made of (one replay of the game), for a finished game."""
    check_exportable(table.game)
    try:
        return collect(table.game, table.entries)
    except ExportError:
        raise
    except VoicehostError as exc:
        raise ExportError(str(exc)) from None


def export_record(table: Table, fmt: str, ended: datetime | None = None, facts: Facts | None = None) -> JSONOutObject:
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
    return FORMATS[fmt](facts or _facts(table), table.game.rules.phrasebook, ended)


def export_text(table: Table, fmt: str, ended: datetime | None = None, facts: Facts | None = None) -> str:
    return json.dumps(export_record(table, fmt, ended, facts), ensure_ascii=False, indent=2) + "\n"


def export_path(protocol_path: Path, fmt: str) -> Path:
    """Where a format's file goes beside the protocol: game.json -> game.mafiaratings.json."""
    return protocol_path.with_name(f"{protocol_path.stem}.{fmt}.json")


def write_exports(table: Table, protocol_path: Path, ended: datetime | None = None) -> list[Path]:
    """Both records next to the protocol, each written atomically; the game must be over."""
    written = []
    facts = _facts(table)   # one replay for both formats
    for fmt in FORMATS:
        path = export_path(protocol_path, fmt)
        what = kept_record(path)
        if what is not None:   # never over a journal or its key: said as a write that failed
            raise OSError(errno.EEXIST, f"{path} is {what}")
        write_atomic(path, export_text(table, fmt, ended, facts))
        written.append(path)
    return written


def export_command(path: Path, fmt: str, output: Path | None = None, *, trust_unkeyed: bool = False) -> str:
    """The `export` command: the record written to `output` (then nothing is
    returned), or returned for standard output."""
    input_file(path, "")
    output_file(output, "-o")
    notes: list[str] = []
    table, ended = load_table(path, notes, trust_unkeyed=trust_unkeyed)
    for note in notes:   # a torn tail left out: said, in one line
        sys.stderr.write(note + "\n")
    text = export_text(table, fmt, ended)
    if output:
        write_atomic(output, text)
        return ""
    return text


def load_table(path: Path, notes: list[str] | None = None, *,
               trust_unkeyed: bool = False) -> tuple[Table, datetime]:
    """The game a journal records, with the time its last input was written;
    a torn tail left out is added to `notes`.

    A protocol keeps neither the deal nor the nights' shots, so for one the
    journal beside it is read: `game-X.protocol.json` (or `game-X.json`) ->
    `game-X.jsonl`, as `voicehost run` names them."""
    if _is_protocol(path):
        journal = _journal_beside(path)
        if journal is None:
            raise InputError(f"{path} is a protocol, which keeps neither the deal nor the nights' "
                             f"shots, and no journal is beside it ({_journal_names(path)[0].name}): "
                             "export the game's journal instead")
        path = journal
    try:
        ended = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except FileNotFoundError:
        raise InputError(f"no journal at {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    scan = scan_file(path, trust_unkeyed=trust_unkeyed)
    game, _, entries = replay_scan(scan)
    note = scan.torn_note("export")
    if note and notes is not None:
        notes.append(note)
    return Table(game, None, entries), ended


def _journal_names(protocol: Path) -> list[Path]:
    stem = protocol.name.removesuffix(".json").removesuffix(".protocol")
    return [protocol.with_name(f"{stem}.jsonl")]


def _journal_beside(protocol: Path) -> Path | None:
    return next((p for p in _journal_names(protocol) if p.is_file()), None)


def _is_protocol(path: Path) -> bool:
    """A protocol is one JSON object over the whole file; a journal is one per line."""
    try:
        data = read_json_file(path, "protocol") if path.is_file() else None
    except VoicehostError:
        return False
    return isinstance(data, dict) and "eliminated" in data and "winner" in data


__all__ = [
    "FORMATS",
    "ExportError",
    "export_command",
    "export_path",
    "export_record",
    "export_text",
    "host_text",
    "load_table",
    "names_event",
    "write_exports",
]
