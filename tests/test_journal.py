"""Journal: every input with its time; replaying rebuilds the identical game."""
from __future__ import annotations

import json

import pytest

from tests.conftest import GAMES
from tools.records import load_records
from voicehost.cli import main
from voicehost.errors import InputError
from voicehost.game.protocol import protocol, snapshot
from voicehost.journal import VERSION, replay, scan_file


@pytest.mark.parametrize("name", ["red_wins_by_votes", "fouls_and_removals", "tie_then_lift"])
def test_simulate_journal_replays_to_the_same_protocol(name, tmp_path, capsys):
    journal, proto = tmp_path / "j.jsonl", tmp_path / "p.json"
    assert main(["simulate", str(GAMES / f"{name}.jsonl"), "--journal", str(journal),
                 "--protocol", str(proto)]) == 0
    capsys.readouterr()
    header = json.loads(journal.read_text("utf-8").splitlines()[0])
    assert header["journal"] == VERSION and header["ruleset"] == "4mafia"
    game, _ = replay(journal)
    assert protocol(game) == json.loads(proto.read_text("utf-8"))
    assert main(["replay", str(journal)]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(proto.read_text("utf-8"))


def test_every_entry_has_a_time_and_an_input(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    main(["simulate", str(GAMES / "speech_rules.jsonl"), "--journal", str(journal)])
    lines = [json.loads(line) for line in journal.read_text("utf-8").splitlines()[1:]]
    assert lines and all(set(e) in ({"t", "event", "h"}, {"k", "h"}) for e in lines)  # "k": a clock mark
    entries = [e for _, e in scan_file(journal).entries]
    assert len(entries) == len(lines) and all(set(e) == {"t", "event"} for e in entries)
    times = [e["t"] for e in entries]
    assert times == sorted(times)


def test_torn_last_line_is_dropped(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    main(["simulate", str(GAMES / "red_wins_by_votes.jsonl"), "--journal", str(journal)])
    lines = journal.read_text("utf-8").splitlines()
    journal.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2], "utf-8")
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join(lines[:-1]) + "\n", "utf-8")
    assert snapshot(replay(journal)[0]) == snapshot(replay(partial)[0])


def test_replay_of_a_non_journal_is_refused(tmp_path):
    bogus = tmp_path / "x.jsonl"
    bogus.write_text('{"type": "setup"}\n', "utf-8")
    with pytest.raises(InputError, match="not a voicehost journal"):
        replay(bogus)


def test_journal_keeps_the_tables_own_rules(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    main(["simulate", str(GAMES / "fiim_lift_only.jsonl"), "--journal", str(journal),
          "--ruleset", "fiim", "--set", "first_day_vote=lift_only"])
    game, _ = replay(journal)
    assert game.rules.name == "fiim" and game.rules.first_day_vote == "lift_only"
    assert protocol(game)["eliminated"][0] == {"seat": 7, "cause": "lift", "day": 1}


def test_real_game_journal_replays(tmp_path, capsys):
    from tests.conftest import realgames_dir
    from tools.records import convert

    record = load_records(realgames_dir() / "polemica-library_games.json")[0]
    script = tmp_path / "game.jsonl"
    script.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in convert(record).script))
    journal = tmp_path / "j.jsonl"
    assert main(["simulate", str(script), "--journal", str(journal), "--ruleset", "fiim",
                 "--set", "first_day_vote=lift_only"]) == 0
    assert protocol(replay(journal)[0])["winner"] == "red"


def test_undo_takes_back_the_last_host_input_and_replays(tmp_path):
    from tests.conftest import ROLES
    from voicehost.game.events import parse_event
    from voicehost.game.moderator import Moderator
    from voicehost.journal import Journal, Table
    from voicehost.rules import rules_for

    rules = rules_for("4mafia")
    path = tmp_path / "j.jsonl"
    table = Table(Moderator.for_rules(rules), Journal(path, rules))
    table.apply(parse_event({"type": "setup", "roles": ROLES}), 0.0)
    table.advance(90.0)
    table.apply(parse_event({"type": "foul", "seat": 3}), 90.0)
    table.apply(parse_event({"type": "foul", "seat": 5}), 91.0)
    undone = table.undo(92.0)
    assert undone == {"type": "foul", "seat": 5}
    assert dict(table.game.fouls) == {3: 1} and table.game.now == 92.0
    assert table.game.floor.seat == 1
    table.advance(95.0)
    table.journal.close()
    replayed, _ = replay(path)
    assert snapshot(replayed)["protocol"] == snapshot(table.game)["protocol"]
    assert dict(replayed.fouls) == {3: 1}


def test_unfoul_takes_back_a_foul_and_its_silence():
    from tests.conftest import Play

    play = Play().speech(1)
    for _ in range(3):
        play.seat_event("foul", 4)
    assert 4 in play.game.silenced
    play.seat_event("unfoul", 4)
    assert play.game.fouls[4] == 2 and 4 not in play.game.silenced
    with pytest.raises(Exception, match="no foul"):
        play.seat_event("unfoul", 9)
