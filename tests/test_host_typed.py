"""SPEC §7.2 in typed play: a line starting with ">" is the host speaking,
read by the same parser as the host's microphone; a whole game played with
">" lines ends with the same protocol as with "/" commands, and the journal
keeps the host's words with the inputs they made (replay and --resume exact)."""
from __future__ import annotations

import io
import json

from tests.liveparts import play_typed
from voicehost.journal import replay_entries

TYPED = ["/roles d4 m2 m7 s6", "<80>", "/foul 9", "/pause", "/resume", "выставляю седьмого спасибо",
         "/foul 4", "/undo", "выставляю третьего спасибо", *["/next"] * 8, "<3>", "/votes 7=7", "спасибо",
         "/shot 5", "<11>", "/don 6", "<10>", "/sheriff 2", "<10>", "/best 2 4 7", "спасибо",
         "выставляю четвёртого спасибо", "/foul 3", *["/next"] * 7, "спасибо", "/shot 2", "<11>", "<25>",
         "/bestplayer 3", "/worst 8", "/quit"]
SPOKEN = {"/foul 9": "> фол девятому", "/pause": "> пауза", "/resume": "> продолжаем", "/foul 4": ">четвёртому фол",
          "/undo": "> отмена", "/next": "> дальше", "/votes 7=7": "> за седьмого семь голосов",
          "/foul 3": "> фол игроку номер 3", "/bestplayer 3": "> лучший игрок 3",
          "/worst 8": "> худший игрок номер восемь"}


def protocol(tmp_path, lines):
    code, out, journal = play_typed(tmp_path, lines)
    assert code == 0, out
    assert not [line for line in out.splitlines() if line.startswith("! ")], out
    return json.loads((tmp_path / "game.protocol.json").read_text("utf-8")), out, journal


def test_a_game_the_host_speaks_in_typed_play_ends_as_the_typed_one(tmp_path):
    (tmp_path / "typed").mkdir()
    (tmp_path / "spoken").mkdir()
    typed, _, _ = protocol(tmp_path / "typed", TYPED)
    spoken, out, journal = protocol(tmp_path / "spoken", [SPOKEN.get(line, line) for line in TYPED])
    assert typed["winner"] == "red" and typed["fouls"] == {"3": 1, "9": 1} and typed["best_player"] == 3
    assert spoken == typed
    lines = out.splitlines()
    assert "Ведущий: фол игроку 9" in lines and "Ведущий: голоса (7 — 7)" in lines
    assert "Отменено: /foul 4" in lines
    # the journal keeps the words with the inputs they made, and replays the very game
    text = journal.read_text("utf-8")
    assert '"heard":["фол девятому"]' in text and '"heard":["отмена"]' in text
    game, _, entries = replay_entries(journal)
    heard = [e.event for e in entries if "heard" in e.event]
    assert {"type": "foul", "seat": 9, "heard": ["фол девятому"]} in heard
    assert {"type": "votes", "counts": {"7": 7}, "heard": ["за седьмого семь голосов"]} in heard
    assert {"type": "best_player", "seat": 3, "heard": ["лучший игрок 3"]} in heard
    assert game.best_player == 3 and game.worst_player == 8 and game.fouls[3] == game.fouls[9] == 1
    assert game.fouls[4] == 0


def test_a_refused_spoken_command_is_one_line_in_the_tables_language(tmp_path):
    code, out, _ = play_typed(tmp_path, ["/roles d4 m2 m7 s6", "> выстрел пятому", "> фол", "> подтверждаю",
                                         "> дисквалификация 6", "/quit"])
    lines = out.splitlines()
    assert code == 0
    assert "! Ночные действия голосом не принимаются: их услышал бы стол" in lines
    assert "! «фол»: не расслышан номер игрока" in lines
    assert "! Подтверждать нечего" in lines
    assert "Ведущий: дисквалификация игрока 6? Скажите «подтверждаю» в течение 10 секунд" in lines


def test_a_spoken_game_resumed_after_a_crash_stands_where_it_stood(tmp_path):
    from voicehost.cli import build_parser
    from voicehost.session import run

    spoken = [SPOKEN.get(line, line) for line in TYPED]
    cut = spoken.index("> за седьмого семь голосов") + 1
    (tmp_path / "typed").mkdir()
    typed, _, _ = protocol(tmp_path / "typed", TYPED)
    code, _, journal = play_typed(tmp_path, spoken[:cut] + ["/quit"])
    assert code == 0
    before, _, _ = replay_entries(journal)
    args = build_parser().parse_args(["run", "--text", "--mute", "--resume", str(journal)])
    out = io.StringIO()
    code = run(args, out, io.StringIO("".join(line + "\n" for line in ["> продолжаем", *spoken[cut:]])))
    assert code == 0, out.getvalue()
    resumed = json.loads((tmp_path / "game.protocol.json").read_text("utf-8"))
    assert resumed == typed
    assert before.fouls[9] == 1 and len(before.votes) == 1
