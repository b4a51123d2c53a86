"""Games recorded by real clubs (../shared/realgames/): each complete game is
turned into a simulate script with its table's own options, played through
`voicehost simulate` under the `fiim` preset, and must come out as recorded:
the winner, who left and when (mafiaratings keeps deaths), and who was alive
at every vote (Polemica keeps each day's voters)."""
from __future__ import annotations

import json

import pytest

from tests.conftest import realgames_dir
from tools.records import convert, load_records, voters_by_day
from voicehost.cli import main

FILES = sorted(realgames_dir().glob("*.json"))
RECORDS = [record for path in FILES for record in load_records(path)]

# Records that contradict themselves, with the reason. None so far: every
# complete game replays as recorded. A record listed here must still fail in
# exactly this way, so the list cannot go stale.
CONTRADICTIONS: dict[str, str] = {}


def test_all_records_are_read():
    assert len(RECORDS) == 20
    assert sum(r.complete for r in RECORDS) == 18


@pytest.mark.parametrize("record", RECORDS, ids=[r.name for r in RECORDS])
def test_record_replays_as_recorded(record, tmp_path, capsys):
    conversion = convert(record)
    if record.name in CONTRADICTIONS:
        assert CONTRADICTIONS[record.name] in " ".join(conversion.problems)
        return
    assert conversion.problems == []
    script = tmp_path / "game.jsonl"
    script.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in conversion.script),
                      "utf-8")
    proto = tmp_path / "protocol.json"
    args = ["simulate", str(script), "--protocol", str(proto), "--ruleset", "fiim"]
    args += [f"--set={k}={v}" for k, v in record.options.items()]
    assert main(args) == 0, capsys.readouterr().err
    capsys.readouterr()
    protocol = json.loads(proto.read_text("utf-8"))
    assert protocol["winner"] == record.winner
    if record.deaths is not None:
        came = sorted((e["seat"], "night" if "night" in e else "day", e.get("night") or e.get("day"))
                      for e in protocol["eliminated"])
        assert came == sorted(record.deaths)
    out = {e["seat"] for e in protocol["eliminated"]}
    for day, voters in voters_by_day(record).items():
        assert not voters & {e["seat"] for e in protocol["eliminated"]
                             if (e.get("day") or 99) < day or (e.get("night") or 99) <= day}, day
    if record.complete:
        assert protocol["winner"] in ("red", "black")
        left = set(range(1, 11)) - out
        blacks = {s for s, r in record.roles.items() if r in ("mafia", "don")}
        if record.winner == "red":
            assert not left & blacks
        else:
            assert len(left & blacks) * 2 >= len(left)


def test_polemica_table_options_are_used():
    options = {r.id: r.options["first_day_vote"] for r in RECORDS if r.source.startswith("polemica")}
    assert options["334187"] == "lift_only" and options["328635"] == "none"
    assert options["270561"] == "normal"
