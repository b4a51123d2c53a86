"""The exported records hold only each platform's documented fields, say when
things happened the way the platform counts rounds, carry the host's names,
and are refused (one line, exit 2) for what no platform takes."""
from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import GAMES, realgames_dir
from tools.records import convert, from_mafiaratings, from_polemica, load_records
from voicehost.cli import main
from voicehost.errors import InputError
from voicehost.export import (
    ExportError,
    export_record,
    host_text,
    load_table,
    write_exports,
)
from voicehost.export.common import EXTENSION
from voicehost.export.facts import Moment
from voicehost.export.mafiaratings import game_time
from voicehost.export.names import names_event
from voicehost.export.polemica import stage
from voicehost.game.events import parse_event
from voicehost.game.model import Phase
from voicehost.game.moderator import new_game
from voicehost.journal import Table
from voicehost.phrasebook import load_phrasebook
from voicehost.rules import parse_set, rules_for
from voicehost.simulate import Simulation

# ------------------------------------------------------------ documented fields

# mafiaratings: docs/game.js and the game API's field list (include/game.php,
# api_help) of szotin/mafiaratings.
MR_GAME = {"id", "clubId", "clubName", "eventId", "tournamentId", "rating", "startTime", "endTime",
           "timezone", "language", "rules", "winner", "moderator", "players", "features"}
MR_PLAYER = {"id", "email", "name", "role", "arranged", "death", "warnings", "don", "sheriff", "bonus",
             "legacy", "comment", "voting", "nominating", "shooting", "best_player"}
MR_DEATH_TYPES = {"day", "night", "warnings", "kickOut", "teamKickOut", "giveUp"}
MR_TIMES = {"start", "arrangement", "day start", "night kill speaking", "speaking", "voting",
            "day kill speaking", "shooting", "don", "sheriff", "end"}
MR_SPEAKING = {"speaking", "day kill speaking", "night kill speaking"}
MR_FEATURES = set("agsdutclhvknwroi")
# Polemica publishes no schema: its fields are those of the real version-4 records.
PL_STAGES_SEEN = {"speech", "reSpeech", "shooted", "voted", "voting", "gameOver", "donCheck", "shooting"}
# Stage types the real records do not show: the sheriff's check (records.py already
# knows it as a Polemica stage) and the first night's meetings, where no record has a foul.
PL_STAGES_INFERRED = {"sheriffCheck", "night"}
# What the exports add beside the documented fields, in both formats: the note of what
# the platform has no field for, and the same as data.
EXTRA = {"comment", EXTENSION}


def _polemica_fields() -> tuple[set[str], set[str], set[str], set[str], set[str]]:
    game, player, vote, check, shot = set(), set(), set(), set(), set()
    for path in realgames_dir().glob("polemica*.json"):
        for item in json.loads(path.read_text("utf-8")):
            data = item.get("data", item)
            game |= set(data)
            for p in data["players"]:
                player |= set(p)
            for key, into in (("votes", vote), ("checks", check), ("shots", shot)):
                for entry in data.get(key, []):
                    into |= set(entry)
    return game, player, vote, check, shot


PL_GAME, PL_PLAYER, PL_VOTE, PL_CHECK, PL_SHOT = _polemica_fields()


def _game_time_ok(when: dict) -> None:
    assert set(when) <= {"round", "time", "speaker", "votingRound", "nominee"}, when
    assert isinstance(when["round"], int) and when["round"] >= 0 and when["time"] in MR_TIMES, when
    if when["time"] in MR_SPEAKING:
        assert 1 <= when["speaker"] <= 10, when
    if "nominee" in when or "votingRound" in when:
        assert when["time"] == "voting", when


def validate_mafiaratings(record: dict) -> None:
    assert set(record) <= MR_GAME | EXTRA, set(record) - MR_GAME
    features = set(record["features"])
    assert features <= MR_FEATURES and {"startTime", "endTime", "winner", "players"} <= set(record)
    assert features & set("utc") <= features and ("d" in features or not features & set("utc"))
    assert "w" in features or "r" not in features
    assert record["winner"] in ("civ", "maf", "tie") and len(record["players"]) == 10
    needs = {"voting": "v", "nominating": "n", "shooting": "h", "don": "g", "sheriff": "s",
             "legacy": "l", "warnings": "w", "death": "d", "arranged": "a"}
    for player in record["players"]:
        assert set(player) <= MR_PLAYER, set(player) - MR_PLAYER
        assert player["role"] in ("civ", "maf", "don", "sheriff") and isinstance(player["name"], str)
        for key, letter in needs.items():
            assert key not in player or letter in features, (key, features)
        for row in ("nominating", "shooting"):
            assert all(s is None or 1 <= s <= 10 for s in player.get(row, [])), player
        if "shooting" in player:
            assert player["role"] in ("maf", "don")
        if "death" in player:
            death = player["death"]
            assert death["type"] in MR_DEATH_TYPES and death["round"] >= 0
            assert "time" not in death or death["type"] not in ("day", "night")
            if "time" in death:
                _game_time_ok(death["time"])
        for warning in player.get("warnings", []):
            _game_time_ok(warning)
        assert player.get("bonus", "bestPlayer") in ("bestPlayer", "bestMove", "worstMove")
        assert all(1 <= s <= 10 for s in player.get("legacy", []))


def validate_polemica(record: dict) -> None:
    assert set(record) <= PL_GAME | EXTRA, set(record) - PL_GAME
    assert record["version"] == 4 and record["stage"]["type"] == "gameOver"
    assert record["result"] in (0, 1, None) and record["zeroVoting"] in ("normal", "none", "liftOnly")
    stages = []
    for player in record["players"]:
        assert set(player) <= PL_PLAYER, set(player) - PL_PLAYER
        assert player["role"] in (0, 1, 2, 3) and 1 <= player["position"] <= 10
        stages += [f["stage"] for f in player["fouls"]] + ([player["disqual"]] if "disqual" in player else [])
    for entry in stages:
        assert entry["type"] in PL_STAGES_SEEN | PL_STAGES_INFERRED and entry["day"] >= 0, entry
    for key, fields in (("votes", PL_VOTE), ("checks", PL_CHECK), ("shots", PL_SHOT)):
        for entry in record[key]:
            assert set(entry) <= fields, (key, entry)
    assert all(v["num"] == 0 for v in record["votes"])  # nominations only: voters are unknown
    assert {c["role"] for c in record["checks"]} <= {0, 3}


VALIDATORS = {"mafiaratings": validate_mafiaratings, "polemica": validate_polemica}

# ---------------------------------------------------------------- helpers


def play(lines: list[dict], ruleset: str = "4mafia", sets: list[str] | None = None,
         fouls: dict[int, int] | None = None) -> tuple[Table, dict[int, Moment]]:
    """Play script lines through a table; after line i, foul seat fouls[i] and note where the game stood."""
    rules = rules_for(ruleset, parse_set(sets or []) or None)
    table = Table(new_game(rules))
    sim = Simulation(table.game, table)
    seen: dict[int, Moment] = {}
    for number, line in enumerate(lines, start=1):
        sim.step(parse_event(line, table.game.max_seat))
        if fouls and number in fouls:
            seen[number] = Moment.of(table.game)
            sim.step(parse_event({"type": "foul", "seat": fouls[number]}))
    sim.run_on()
    return table, seen


def script(name: str) -> tuple[list[dict], str, list[str]]:
    lines = [json.loads(line) for line in (GAMES / f"{name}.jsonl").read_text("utf-8").splitlines() if line.strip()]
    args = json.loads((GAMES / f"{name}.expect.json").read_text("utf-8"))["args"]
    ruleset = args[args.index("--ruleset") + 1] if "--ruleset" in args else "4mafia"
    return lines, ruleset, [args[i + 1] for i, a in enumerate(args) if a == "--set"]


FINISHED = ["black_wins_parity", "fiim_draw", "leave_table", "red_wins_by_votes", "three_quiet_nights"]
# ua_club.jsonl stops after day 1; five night kills of red players then end it (black wins).
UA_FINISH = [{"type": "shot", "seat": seat} for seat in (1, 3, 5, 6, 8)]


def ua_club() -> Table:
    lines, ruleset, sets = script("ua_club")
    return play(lines + UA_FINISH, ruleset, sets)[0]


def _sources() -> list[tuple[str, Table]]:
    tables = []
    for name in FINISHED:
        lines, ruleset, sets = script(name)
        tables.append((name, play(lines, ruleset, sets)[0]))
    tables.append(("ua_club", ua_club()))
    for path in sorted(realgames_dir().glob("*.json")):
        for record in load_records(path):
            if record.complete:
                lines = convert(record).script
                tables.append((record.name, play(lines, "fiim", [f"{k}={v}" for k, v in record.options.items()])[0]))
    return tables


SOURCES = _sources()


# ------------------------------------------------------------------ tests

@pytest.mark.parametrize("fmt", ["mafiaratings", "polemica"])
@pytest.mark.parametrize("name,table", SOURCES, ids=[name for name, _ in SOURCES])
def test_exports_hold_only_documented_fields(name, table, fmt):
    assert table.game.winner is not None, name
    VALIDATORS[fmt](export_record(table, fmt))


def test_the_validators_refuse_what_is_not_documented():
    _, table = SOURCES[3]
    record = export_record(table, "mafiaratings")
    record["players"][0]["voting"] = [None, 3]  # no "v" among the features
    with pytest.raises(AssertionError):
        validate_mafiaratings(record)
    record = export_record(table, "polemica")
    record["players"][0]["fouls"] = [{"stage": {"type": "lunch", "day": 1}}]
    with pytest.raises(AssertionError):
        validate_polemica(record)


# After these lines of red_wins_by_votes.jsonl the host gives a foul: the deal (the
# first night's meeting), seat 2's speech (seat 1 said "спасибо", ending his), the voted-out player's last word, the
# hunt, the night victim's last word, the last word of day 2.
FOULED = {1: 9, 2: 10, 4: 8, 6: 9, 9: 10, 12: 8}
MAFIARATINGS_TIMES = {
    1: {"round": 0, "time": "arrangement"},
    2: {"round": 0, "time": "speaking", "speaker": 2},
    4: {"round": 0, "time": "day kill speaking", "speaker": 7},
    6: {"round": 1, "time": "shooting"},
    9: {"round": 1, "time": "night kill speaking", "speaker": 5},
    12: {"round": 1, "time": "day kill speaking", "speaker": 4},
}
POLEMICA_STAGES = {
    1: {"type": "night", "day": 0},
    2: {"type": "speech", "day": 1, "player": 2},
    4: {"type": "voted", "day": 1, "player": 7, "voting": 1},
    6: {"type": "shooting", "day": 1},
    9: {"type": "shooted", "day": 2, "player": 5},
    12: {"type": "voted", "day": 2, "player": 4, "voting": 1},
}


def test_fouls_are_placed_where_the_platform_counts_them():
    lines, _, _ = script("red_wins_by_votes")
    table, seen = play(lines, fouls=FOULED)
    assert [m.phase for m in seen.values()] == [Phase.MAFIA_MEETING, Phase.SPEECH, Phase.LAST_WORD,
                                                Phase.HUNT, Phase.LAST_WORD, Phase.LAST_WORD]
    ratings, polemica = export_record(table, "mafiaratings"), export_record(table, "polemica")
    for number, seat in FOULED.items():
        assert MAFIARATINGS_TIMES[number] in ratings["players"][seat - 1]["warnings"], number
        assert {"stage": POLEMICA_STAGES[number]} in polemica["players"][seat - 1]["fouls"], number
    back = from_mafiaratings(ratings, "x")
    assert ((2, "night", None), 9) in back.fouls and ((2, "killed", None), 10) in back.fouls
    assert ((1, "speech", 2), 10) in back.fouls and ((1, "voted", None), 8) in back.fouls
    back = from_polemica(polemica, "x")
    assert ((2, "night", None), 9) in back.fouls and ((2, "killed", 5), 10) in back.fouls


@pytest.mark.parametrize("moment,ratings,polemica", [
    (Moment(Phase.TIE_SPEECH, 1, 1, seat=2, vote_round=1),
     {"round": 0, "time": "voting", "speaker": 2, "votingRound": 0},
     {"type": "reSpeech", "day": 1, "player": 2, "voting": 1}),
    (Moment(Phase.VOTING, 3, 3, vote_round=2, nominee=6),
     {"round": 2, "time": "voting", "votingRound": 1, "nominee": 6}, {"type": "voting", "day": 3, "voting": 2}),
    (Moment(Phase.TALLY, 2, 2, vote_round=1), {"round": 1, "time": "voting", "votingRound": 0},
     {"type": "voting", "day": 2, "voting": 1}),
    (Moment(Phase.SHERIFF_CHECK, 2, 3), {"round": 2, "time": "sheriff"}, {"type": "sheriffCheck", "day": 2}),
    (Moment(Phase.GAME_OVER, 4, 4), {"round": 3, "time": "end"}, {"type": "gameOver", "day": 4}),
], ids=["tie speech", "voting", "tally", "sheriff check", "game over"])
def test_moments_without_a_game_script(moment, ratings, polemica):
    assert game_time(moment) == ratings and stage(moment) == polemica


def test_removals_carry_their_time_and_kind():
    lines, ruleset, sets = script("leave_table")
    table, _ = play(lines, ruleset, sets)
    left = [e.seat for e in table.game.eliminated if e.cause.value == "left_table"]
    assert left
    ratings = export_record(table, "mafiaratings")
    death = ratings["players"][left[0] - 1]["death"]
    assert death["type"] == "giveUp" and death["time"]["time"] in MR_TIMES
    note = load_phrasebook("phrasebook.ru").text("export_left_table", seat=left[0])
    assert note not in ratings["comment"]  # "giveUp" says it on mafiaratings
    polemica = export_record(table, "polemica")
    assert "disqual" in polemica["players"][left[0] - 1] and note in polemica["comment"].splitlines()


def test_names_replace_seat_numbers_and_can_be_taken_back():
    lines, _, _ = script("red_wins_by_votes")
    named = [{"type": "names", "names": {"1": "Алиса", "3": "Боб"}}] + lines[:2] \
        + [{"type": "names", "names": {"3": "", "10": "Вера Павловна"}}] + lines[2:]
    table, _ = play(named)
    assert table.game.winner == "red"
    ratings, polemica = export_record(table, "mafiaratings"), export_record(table, "polemica")
    assert [p["name"] for p in ratings["players"]] == ["Алиса"] + [str(s) for s in range(2, 10)] + ["Вера Павловна"]
    assert [p["username"] for p in polemica["players"]] == [p["name"] for p in ratings["players"]]


@pytest.mark.parametrize("bad", [{"1": "a\nb"}, {"11": "x"}, {"1": "x" * 41}, {}, ["Алиса"]])
def test_bad_names_are_refused_before_anything_moves(bad):
    table, _ = play(script("red_wins_by_votes")[0][:2])
    before = (table.game.now, len(table.entries))
    with pytest.raises(InputError, match="^names"):
        Simulation(table.game, table).step(parse_event({"type": "names", "names": bad}))
    assert (table.game.now, len(table.entries)) == before


def test_a_draw_is_a_tie_on_mafiaratings_and_a_comment_on_polemica():
    lines, ruleset, sets = script("fiim_draw")
    table, _ = play(lines, ruleset, sets)
    book = load_phrasebook(table.game.rules.phrasebook)
    ratings, polemica = export_record(table, "mafiaratings"), export_record(table, "polemica")
    assert table.game.winner == "draw"
    assert ratings["winner"] == "tie" and polemica["result"] is None
    assert book.text("export_draw") in polemica["comment"].splitlines()
    back = from_mafiaratings(ratings, "x")
    assert back.winner == "draw" and back.complete


def test_comment_names_what_the_platform_has_no_field_for():
    table, _ = play(script("red_wins_by_votes")[0])
    book = load_phrasebook(table.game.rules.phrasebook)
    ratings, polemica = export_record(table, "mafiaratings"), export_record(table, "polemica")
    first = table.game.votes[0]
    counts = ", ".join(f"{s} — {n}" for s, n in (first.counts or {}).items())
    line = book.text("export_vote_round", day=first.day, count=first.round, word=counts)
    for record in (ratings, polemica):
        assert line in record["comment"] and record[EXTENSION]["votes"] == [v.to_json() for v in table.game.votes]
        assert all("voting" not in p for p in record.get("players", []))
    missed = [n for n, seat in _shots(table).items() if seat is None]
    assert missed
    for night in missed:
        assert book.text("export_missed", day=night - 1) in ratings["comment"].splitlines()


def _shots(table: Table) -> dict[int, int | None]:
    shots, game = {}, new_game(table.game.rules)
    for entry in table.entries:
        t, event = entry.t, entry.event
        game.advance(t)
        if event["type"] == "shot":
            shots[game.night] = event["seat"]
        if event["type"] != "tick":
            game.handle(parse_event(event), t)
    return shots


def test_the_ukrainian_table_gets_a_ukrainian_comment():
    table = ua_club()
    assert table.game.winner == "black"
    record = export_record(table, "mafiaratings")
    assert record["language"] == "uk"
    assert "Голосування записані" in record["comment"] and "Голосования" not in record["comment"]


def _journal(tmp_path: Path, capsys, name: str) -> Path:
    _, ruleset, sets = script(name)
    path = tmp_path / f"{name}.jsonl"
    args = ["simulate", str(GAMES / f"{name}.jsonl"), "--journal", str(path), "--protocol",
            str(tmp_path / "protocol.json"), "--ruleset", ruleset] + [f"--set={s}" for s in sets]
    assert main(args) == 0
    capsys.readouterr()
    return path


@pytest.mark.parametrize("name,says", [
    ("city_town_wins", "the city variant cannot be exported"),
    ("tie_then_lift", "the game is not over yet"),
])
def test_games_no_platform_takes_are_refused_in_one_line(name, says, tmp_path, capsys):
    journal = _journal(tmp_path, capsys, name)
    out = tmp_path / "out.json"
    assert main(["export", str(journal), "--format", "polemica", "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    assert captured.err.startswith(f"voicehost export: {says}") and captured.err.count("\n") == 1


def test_the_host_reads_the_refusal_in_the_table_language(tmp_path, capsys):
    table, _ = load_table(_journal(tmp_path, capsys, "city_town_wins"))
    with pytest.raises(ExportError) as caught:
        export_record(table, "mafiaratings")
    text = host_text(caught.value, table.game.rules.phrasebook)
    assert text == load_phrasebook("phrasebook.ru").text("export_city_refused") and "мафию" in text


@pytest.mark.parametrize("what,says", [
    ("protocol", "is a protocol, which keeps neither the deal"),
    ("missing", "no such file"),
    ("garbage", "not a voicehost journal"),
])
def test_inputs_that_are_no_journal_are_refused_in_one_line(what, says, tmp_path, capsys):
    journal = _journal(tmp_path, capsys, "red_wins_by_votes")
    path = {"protocol": tmp_path / "protocol.json", "missing": tmp_path / "nothing.jsonl",
            "garbage": tmp_path / "garbage.jsonl"}[what]
    if what == "garbage":
        path.write_text('{"hello": 1}\n', "utf-8")
    assert journal.exists()
    assert main(["export", str(path), "--format", "mafiaratings"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_export_prints_to_stdout_without_o(tmp_path, capsys):
    journal = _journal(tmp_path, capsys, "red_wins_by_votes")
    assert main(["export", str(journal), "--format", "mafiaratings"]) == 0
    record = json.loads(capsys.readouterr().out)
    validate_mafiaratings(record)
    assert from_mafiaratings(record, "x").winner == "red"


def test_write_exports_puts_both_files_next_to_the_protocol(tmp_path, capsys):
    table, _ = load_table(_journal(tmp_path, capsys, "black_wins_parity"))
    written = write_exports(table, tmp_path / "game-1.json")
    assert written == [tmp_path / "game-1.mafiaratings.json", tmp_path / "game-1.polemica.json"]
    kinds = Counter()
    for path in written:
        (record,) = load_records_from(path)
        kinds[record.source] += 1
        assert record.winner == "black" and record.complete
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def load_records_from(path: Path):
    """The file as a one-record array, read by tools/records.py's format detection."""
    array = path.with_suffix(".array.json")
    array.write_text(json.dumps([json.loads(path.read_text("utf-8"))], ensure_ascii=False), "utf-8")
    records = load_records(array)
    array.unlink()
    return records


@pytest.mark.parametrize("text,names", [
    ("1=Алиса 10=Вера Павловна", {"1": "Алиса", "10": "Вера Павловна"}),
    ("3= 4 = Боб", {"3": "", "4": "Боб"}),
])
def test_typed_names_become_a_names_event(text, names):
    event = names_event(text)
    assert event == {"type": "names", "names": names}
    assert parse_event(event).names == {int(s): n for s, n in names.items()}


@pytest.mark.parametrize("text", ["", "Алиса", "Алиса 1=Боб", "11=Вера"])
def test_typed_names_that_name_no_seat_are_refused(text):
    with pytest.raises(InputError, match="names"):
        parse_event(names_event(text))


def test_a_journal_with_an_undo_exports_as_the_live_table_does(tmp_path):
    """The runtime exports its in-memory table; the CLI the journal it wrote: same records."""
    from voicehost.journal import Journal

    lines, _, _ = script("red_wins_by_votes")
    rules = rules_for("4mafia")
    path = tmp_path / "game.jsonl"
    table = Table(new_game(rules), Journal(path, rules))
    sim = Simulation(table.game, table)
    for number, line in enumerate(lines, start=1):
        sim.step(parse_event(line))
        if number == 3:  # a foul given by mistake, then undone by the host
            sim.step(parse_event({"type": "foul", "seat": 9}))
            table.undo(table.game.now)
            sim = Simulation(table.game, table)
    sim.run_on()
    table.journal.close()
    assert table.game.winner == "red" and not table.game.fouls
    from_journal, _ = load_table(path)
    ended = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    for fmt in ("mafiaratings", "polemica"):
        assert export_record(from_journal, fmt, ended) == export_record(table, fmt, ended)


def test_an_output_in_a_missing_folder_is_refused_before_reading(tmp_path, capsys):
    journal = _journal(tmp_path, capsys, "red_wins_by_votes")
    out = tmp_path / "nowhere" / "game.json"
    assert main(["export", str(journal), "--format", "polemica", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "-o" in err and "does not exist" in err and err.count("\n") == 1


def test_an_unfinished_ukrainian_game_is_refused_in_ukrainian():
    lines, ruleset, sets = script("ua_club")
    table, _ = play(lines, ruleset, sets)
    assert table.game.winner is None
    with pytest.raises(ExportError) as caught:
        export_record(table, "polemica")
    text = host_text(caught.value, table.game.rules.phrasebook)
    assert text == load_phrasebook("phrasebook.uk").text("export_not_over") and "Гру ще не" in text


def test_best_and_worst_player_go_where_each_platform_can_hold_them():
    lines, _, _ = script("red_wins_by_votes")
    table, _ = play(lines + [{"type": "best_player", "seat": 6}, {"type": "worst_player", "seat": 2}])
    book = load_phrasebook("phrasebook.ru")
    ratings, polemica = export_record(table, "mafiaratings"), export_record(table, "polemica")
    assert ratings["players"][5]["bonus"] == "bestPlayer"
    assert ratings["players"][1]["comment"] == book.text("export_worst_player", seat=2)
    validate_mafiaratings(ratings)
    for key, seat in (("export_best_player", 6), ("export_worst_player", 2)):
        assert book.text(key, seat=seat) in polemica["comment"].splitlines()


@pytest.mark.parametrize("protocol_name", ["red_wins_by_votes.protocol.json", "red_wins_by_votes.json"])
def test_a_protocol_exports_through_the_journal_beside_it(protocol_name, tmp_path, capsys):
    journal = _journal(tmp_path, capsys, "red_wins_by_votes")
    protocol = tmp_path / protocol_name
    (tmp_path / "protocol.json").rename(protocol)
    from_journal, from_protocol = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["export", str(journal), "--format", "polemica", "-o", str(from_journal)]) == 0
    assert main(["export", str(protocol), "--format", "polemica", "-o", str(from_protocol)]) == 0
    assert json.loads(from_protocol.read_text("utf-8")) == json.loads(from_journal.read_text("utf-8"))


def test_a_journal_torn_inside_a_cyrillic_character_still_exports(tmp_path, capsys):
    journal = _journal(tmp_path, capsys, "red_wins_by_votes")
    whole = tmp_path / "whole.json"
    assert main(["export", str(journal), "--format", "mafiaratings", "-o", str(whole)]) == 0
    with journal.open("ab") as handle:
        handle.write('{"w":["выст'.encode()[:-1])  # a crash mid-write, inside "т"
    torn = tmp_path / "torn.json"
    assert main(["export", str(journal), "--format", "mafiaratings", "-o", str(torn)]) == 0
    drop = ("startTime", "endTime")  # from the file's time, which the tear changed
    assert {k: v for k, v in json.loads(torn.read_text("utf-8")).items() if k not in drop} == \
        {k: v for k, v in json.loads(whole.read_text("utf-8")).items() if k not in drop}


def test_a_foul_during_the_vote_names_the_candidate_voted_on():
    """Moment.of read a `vote_index` the moderator did not have: a foul given
    while the table voted made the export fail with an AttributeError."""
    from tests.conftest import Play

    play = Play().nominate(1, 7).nominate(2, 3)
    play.until(Phase.VOTING)
    assert Moment.of(play.game).nominee == 7
    play.game.advance(play.game.next_deadline())
    assert Moment.of(play.game).nominee == 3
