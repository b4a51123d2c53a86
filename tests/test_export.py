"""`voicehost export`: a finished game as a mafiaratings and a Polemica record.

The round trip: every complete recorded game in ../shared/realgames/ is
replayed with voicehost (`simulate --journal`), exported from its journal with
the CLI, and read back with tools/records.py; the record read back must hold
the same game facts as the game voicehost played and as the original record:

  winner; deaths (seat, day|night, number; mafiaratings keeps them); nominations
  (day -> nominator -> nominee); votes (each round's counts, zero counts
  dropped as per-voter records have none, and lift votes); don and sheriff
  checks (night -> seat); fouls (how many each seat got); removals; night
  kills (every black player alive shooting the victim).

For a mafiaratings original, the export must also carry the same JSON fields
wherever the original has them: winner, and per player role, death.round,
death.type, nominating, don, sheriff, legacy, shooting on the nights with a
kill, and the number of warnings. Not compared: voting (the game keeps counts,
not who voted for whom: those go to `comment` and "voicehost"), shooting on
missed nights (unknown per shooter), id/name/arranged/bonus/times (not game
facts voicehost has)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import realgames_dir
from tools.records import (
    Record,
    convert,
    from_mafiaratings,
    from_polemica,
    load_records,
)
from voicehost.cli import main

RECORDS = [r for path in sorted(realgames_dir().glob("*.json")) for r in load_records(path) if r.complete]
READERS = {"mafiaratings": from_mafiaratings, "polemica": from_polemica}


def test_every_complete_recorded_game_is_exported():
    assert len(RECORDS) == 18


def _play(record: Record, tmp_path: Path, capsys) -> tuple[Path, dict]:
    conversion = convert(record)
    assert conversion.problems == []
    script = tmp_path / "game.jsonl"
    script.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in conversion.script),
                      "utf-8")
    journal, proto = tmp_path / "game.journal.jsonl", tmp_path / "protocol.json"
    args = ["simulate", str(script), "--journal", str(journal), "--protocol", str(proto), "--ruleset", "fiim"]
    assert main(args + [f"--set={k}={v}" for k, v in record.options.items()]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return journal, json.loads(proto.read_text("utf-8"))


def _export(journal: Path, fmt: str, tmp_path: Path, capsys) -> dict:
    out = tmp_path / f"game.{fmt}.json"
    assert main(["export", str(journal), "--format", fmt, "-o", str(out)]) == 0, capsys.readouterr().err
    return json.loads(out.read_text("utf-8"))


def _tallies(record: Record) -> dict[int, list[dict[int, int]]]:
    return {day: [{s: n for s, n in counts.items() if n} for counts in rounds]
            for day, rounds in record.tallies.items()}


def _kills(record: Record) -> dict[int, int]:
    """Nights whose every listed shooter aimed at one seat: the night's victim."""
    kills = {}
    for night, shots in record.shots.items():
        aimed = set(shots.values())
        if len(aimed) == 1 and None not in aimed:
            kills[night] = aimed.pop()
    return kills


def _protocol_deaths(protocol: dict) -> list[tuple[int, str, int]]:
    return sorted((e["seat"], "night" if "night" in e else "day", e.get("night") or e["day"])
                  for e in protocol["eliminated"])


@pytest.mark.parametrize("fmt", ["mafiaratings", "polemica"])
@pytest.mark.parametrize("record", RECORDS, ids=[r.name for r in RECORDS])
def test_round_trip_keeps_the_game_facts(record, fmt, tmp_path, capsys):
    journal, protocol = _play(record, tmp_path, capsys)
    back = READERS[fmt](_export(journal, fmt, tmp_path, capsys), "export")
    assert back.complete and back.winner == record.winner == protocol["winner"]
    assert back.roles == record.roles
    assert back.nominations == record.nominations
    by_day: dict[int, dict[int, int]] = {}
    for n in protocol["nominations"]:
        by_day.setdefault(n["day"], {})[n["by"]] = n["target"]
    assert back.nominations == by_day
    assert _tallies(back) == _tallies(record)
    counts: dict[int, list[dict[int, int]]] = {}
    for vote in protocol["votes"]:
        if "counts" in vote:
            counts.setdefault(vote["day"], []).append({int(s): n for s, n in vote["counts"].items() if n})
    assert _tallies(back) == counts
    lifts = {v["day"]: v["lift"] for v in protocol["votes"] if "lift" in v}
    assert back.lifts == lifts
    if record.lifts:  # Polemica keeps each lift vote; mafiaratings only who left
        assert {d: n for d, n in back.lifts.items() if n} == {d: n for d, n in record.lifts.items() if n}
    assert back.don_checks == record.don_checks and back.sheriff_checks == record.sheriff_checks
    fouls = Counter({int(seat): n for seat, n in protocol["fouls"].items()})
    assert Counter(seat for _, seat in back.fouls) == fouls
    assert Counter(seat for _, seat in record.fouls) == fouls
    assert back.removed == record.removed
    shot = {e["night"]: e["seat"] for e in protocol["eliminated"] if e["cause"] == "shot"}
    assert _kills(back) == shot
    if fmt == "mafiaratings":
        assert sorted(back.deaths or []) == _protocol_deaths(protocol)
        assert back.best_move == record.best_move
    if record.deaths is not None:
        assert _protocol_deaths(protocol) == sorted(record.deaths)


MAFIARATINGS = [r for r in RECORDS if r.source.startswith("mafiaratings")]


def _original(record: Record) -> dict:
    items = json.loads((realgames_dir() / record.source).read_text("utf-8"))
    return next(item for item in items if str(item["id"]) == record.id)


def _trimmed(row: list | None) -> list:
    row = list(row or [])
    while row and row[-1] is None:
        row.pop()
    return row


@pytest.mark.parametrize("record", MAFIARATINGS, ids=[r.name for r in MAFIARATINGS])
def test_mafiaratings_fields_match_the_original(record, tmp_path, capsys):
    original = _original(record)
    journal, protocol = _play(record, tmp_path, capsys)
    exported = _export(journal, "mafiaratings", tmp_path, capsys)
    assert exported["winner"] == original["winner"]
    kill_nights = {e["night"] - 2 for e in protocol["eliminated"] if e["cause"] == "shot"}
    for seat, (mine, theirs) in enumerate(zip(exported["players"], original["players"], strict=True), 1):
        assert mine["role"] == theirs.get("role", "civ"), seat
        if "death" in theirs:
            assert {k: mine["death"][k] for k in ("round", "type")} == \
                {k: theirs["death"][k] for k in ("round", "type")}, seat
        else:
            assert "death" not in mine, seat
        assert _trimmed(mine.get("nominating")) == _trimmed(theirs.get("nominating")), seat
        for key in ("don", "sheriff", "legacy"):
            assert mine.get(key) == theirs.get(key), (seat, key)
        assert len(mine.get("warnings", [])) == len(theirs.get("warnings", [])), seat
        for night, target in enumerate(theirs.get("shooting", [])):
            if night in kill_nights and target is not None:
                assert mine["shooting"][night] == target, (seat, night)
