"""The standings as the host reads them: a text table, CSV or JSON (SPEC §6.4).
Labels come from the phrasebook's [live] block; the JSON keeps SPEC's keys."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from voicehost.livetexts import LiveTexts
from voicehost.series.standings import ROLES, Row

COLUMNS = ("place", "name", "games", "wins", "points", "coefficient", "bests", "worsts", "best_moves")


def standings_json(rows: Sequence[Row]) -> str:
    return json.dumps([row.to_json() for row in rows], ensure_ascii=False) + "\n"


def _cells(row: Row, texts: LiveTexts) -> list[str]:
    data = row.to_json()
    cells = [_number(data[c]) for c in COLUMNS]
    decided = data["decided_by"]
    return cells + [texts.text(f"standings_by_{decided}") if decided else ""]


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.0f}"
    return str(value)


def _header(texts: LiveTexts) -> list[str]:
    return [texts.text(f"standings_{c}") for c in COLUMNS] + [texts.text("standings_decided_by")]


def standings_csv(rows: Sequence[Row], texts: LiveTexts) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_header(texts) + [texts.text("standings_wins_as", role=texts.role(r)) for r in ROLES])
    for row in rows:
        writer.writerow(_cells(row, texts) + [str(row.wins_by_role[r]) for r in ROLES])
    return out.getvalue()


def standings_text(rows: Sequence[Row], texts: LiveTexts, title: str = "") -> str:
    """A plain table with aligned columns, for the terminal and a braille display."""
    if not rows:
        return (title + "\n" if title else "") + texts.text("standings_empty") + "\n"
    table = [_header(texts)] + [_cells(row, texts) for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
             for line in table]
    return "\n".join(([title] if title else []) + lines) + "\n"
