"""A club's series on disk and its commands (SPEC §6.1, §6.4): the roster,
games from two tables, the standings command's formats, and bad input as one
line in the table's language with nothing lost."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import series_protocol as protocol
from voicehost.cli import main

ROSTER = ["Алиса", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Зоя", "Илья", "Кира", "Лёва"]
DEAL = ["citizen", "mafia", "citizen", "don", "citizen", "citizen", "mafia", "citizen", "citizen", "sheriff"]


@pytest.fixture
def club(tmp_path, monkeypatch):
    """A club folder with its own config.toml naming where its series live."""
    config = tmp_path / "config.toml"
    config.write_text(f'series_dir = "{tmp_path / "series"}"\n', "utf-8")
    monkeypatch.chdir(tmp_path)
    return config


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def game_file(folder: Path, name: str, winner: str, players: list[str], **kw) -> Path:
    path = folder / f"{name}.protocol.json"
    path.write_text(json.dumps(protocol(winner, dict(zip(players, DEAL, strict=True)), **kw), ensure_ascii=False),
                    "utf-8")
    return path


def test_a_series_from_two_tables_ranks_everyone_in_one_table(club, tmp_path, capsys):
    assert run(capsys, "series", "new", "turnir", "--players", ", ".join(ROSTER), "--config", str(club))[0] == 0
    table1 = game_file(tmp_path, "table1-game1", "red", ROSTER[:10], best="Алиса")
    table2 = game_file(tmp_path, "table2-game1", "black", ROSTER[1:], best="Лёва")
    for path in (table1, table2):
        code, out, err = run(capsys, "series", "add", "turnir", str(path), "--config", str(club))
        assert code == 0, err
        assert "добавлена в серию «turnir»" in out
    code, out, _ = run(capsys, "standings", "turnir", "--format", "json", "--config", str(club))
    rows = json.loads(out)
    assert code == 0 and len(rows) == 11 and [r["place"] for r in rows] == list(range(1, 12))
    assert {r["name"]: r["games"] for r in rows}["Борис"] == 2
    assert sum(r["games"] for r in rows) == 20


def test_the_series_name_and_files_may_come_after_the_options(club, tmp_path, capsys):
    code, out, err = run(capsys, "series", "new", "--config", str(club), "--players", ", ".join(ROSTER), "vecher")
    assert code == 0, err
    assert "«vecher» создана" in out
    path = game_file(tmp_path, "g1", "red", ROSTER[:10])
    code, out, err = run(capsys, "series", "add", "--config", str(club), "vecher", str(path))
    assert code == 0 and "добавлена в серию «vecher»" in out, err
    with pytest.raises(SystemExit):   # an unknown option is still argparse's usage error
        main(["series", "show", "vecher", "--config", str(club), "--nope"])


def test_the_lot_is_drawn_once_and_kept_with_the_series(club, tmp_path, capsys):
    run(capsys, "series", "new", "lot", "--players", ", ".join(ROSTER), "--config", str(club))
    run(capsys, "series", "add", "lot", str(game_file(tmp_path, "g1", "red", ROSTER[:10])), "--config", str(club))
    first = run(capsys, "standings", "lot", "--format", "json", "--config", str(club))[1]
    kept = json.loads((tmp_path / "series" / "lot" / "series.json").read_text("utf-8"))["lot"]
    assert kept and any(r["decided_by"] == "lot" for r in json.loads(first))
    for _ in range(3):
        assert run(capsys, "standings", "lot", "--format", "json", "--config", str(club))[1] == first
    assert json.loads((tmp_path / "series" / "lot" / "series.json").read_text("utf-8"))["lot"] == kept


def test_standings_reads_protocol_files_with_a_protest(tmp_path, capsys):
    changed = game_file(tmp_path, "p", "red", ROSTER[:10],
                        protest={"team": "black", "votes": 4, "outcome": "changed"})
    code, out, _ = run(capsys, "standings", str(changed), "--format", "json", "--seed", "3")
    rows = {r["name"]: r for r in json.loads(out)}
    assert code == 0 and rows["Борис"]["wins"] == 1 and rows["Алиса"]["wins"] == 0


def test_text_and_csv_are_in_the_tables_language(tmp_path, capsys):
    path = game_file(tmp_path, "p", "red", ROSTER[:10])
    text = run(capsys, "standings", str(path), "--seed", "1")[1]
    assert text.splitlines()[0].split()[:3] == ["Место", "Игрок", "Игр"]
    csv_text = run(capsys, "standings", str(path), "--format", "csv", "--seed", "1")[1]
    assert csv_text.splitlines()[0].startswith("Место,Игрок,Игр,Побед,Баллы")
    assert "Побед: шериф" in csv_text.splitlines()[0]


@pytest.mark.parametrize(("argv", "needle"), [
    (["standings", "nosuch"], "Серии «nosuch» нет"),
    (["series", "show", "nosuch"], "Серии «nosuch» нет"),
    (["series", "new", "x", "--players", "Алиса, АЛИСА"], "названо дважды"),
    (["series", "new", "x", "--players", "Алиса, Бо<b>рис"], "только буквы"),
    (["series", "new", "../evil", "--players", "Алиса"], "Название серии"),
])
def test_bad_input_is_one_line_in_russian(club, capsys, argv, needle):
    code, out, err = run(capsys, *argv, "--config", str(club))
    assert code == 2 and needle in err and len(err.splitlines()) == 1 and out == ""


def test_a_damaged_or_foreign_protocol_is_refused_and_the_series_kept(club, tmp_path, capsys):
    run(capsys, "series", "new", "s", "--players", ", ".join(ROSTER), "--config", str(club))
    good = game_file(tmp_path, "good", "red", ROSTER[:10])
    assert run(capsys, "series", "add", "s", str(good), "--config", str(club))[0] == 0
    before = sorted(p.name for p in (tmp_path / "series" / "s" / "games").iterdir())
    damaged = tmp_path / "damaged.protocol.json"
    damaged.write_text(good.read_text("utf-8")[:-20], "utf-8")
    foreign = tmp_path / "fiim.protocol.json"
    foreign.write_text(json.dumps({**json.loads(good.read_text("utf-8")), "ruleset": "fiim"}), "utf-8")
    no_roles = tmp_path / "old.protocol.json"
    no_roles.write_text(json.dumps({k: v for k, v in json.loads(good.read_text("utf-8")).items() if k != "roles"}),
                        "utf-8")
    for path, needle in ((damaged, "повреждён"), (foreign, "по правилам fiim"), (no_roles, "нет поля «roles»"),
                         (good, "уже есть в серии")):
        code, _, err = run(capsys, "series", "add", "s", str(path), "--config", str(club))
        assert code == 2 and needle in err and len(err.splitlines()) == 1, err
    assert sorted(p.name for p in (tmp_path / "series" / "s" / "games").iterdir()) == before
    code, _, err = run(capsys, "standings", str(damaged))
    assert code == 2 and str(damaged) in err


def test_a_newcomer_from_another_table_joins_the_roster(club, tmp_path, capsys):
    run(capsys, "series", "new", "s", "--players", ", ".join(ROSTER[:10]), "--config", str(club))
    other = game_file(tmp_path, "t2", "red", [*ROSTER[:9], "Мирон"])
    code, out, _ = run(capsys, "series", "add", "s", str(other), "--config", str(club))
    assert code == 0 and "Мирон" in out
    assert "Мирон" in run(capsys, "series", "show", "s", "--config", str(club))[1]


def test_a_seated_game_exports_its_players_names(tmp_path, capsys):
    roles = {str(s): r for s, r in enumerate(DEAL, start=1)}
    seated = {"type": "seating", "names": {str(s): n for s, n in enumerate(ROSTER[:10], start=1)}}
    script = tmp_path / "g.jsonl"
    script.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in (
        seated, {"type": "setup", "roles": roles}, {"type": "leave_table", "seat": 2})) + "\n", "utf-8")
    journal = tmp_path / "g.journal.jsonl"
    assert main(["simulate", str(script), "--journal", str(journal)]) == 0
    capsys.readouterr()
    assert main(["export", str(journal), "--format", "polemica"]) == 0
    record = capsys.readouterr().out
    assert "Алиса" in record and "Кира" in record
