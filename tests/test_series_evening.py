"""A club's evening in one run (`voicehost run --text --series NAME`, SPEC §6):
three typed games, the standings shown after each, a SIGKILL in the middle of
the second game and `run --series` again going on with it; the series keeps
every game once."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROSTER = ["Алиса", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Зоя", "Илья", "Кира", "Лёва"]
GAME = ["/roles d4 m2 m7 s6", "<80>", "выставляю седьмого спасибо", "выставляю третьего спасибо",
        *["/next"] * 8, "<3>", "/votes 7=7", "спасибо", "/shot 5", "<11>", "/don 6", "<10>", "/sheriff 2", "<10>",
        "/best 2 4 7", "спасибо", "выставляю четвёртого спасибо", *["/next"] * 7, "спасибо",
        "/shot 2", "<11>", "<25>", "3", "-"]   # red wins; the best player is seat 3, no worst
CRASH_AFTER = GAME.index("/votes 7=7")


def seating(names: list[str]) -> str:
    return "/seating " + ", ".join(names)


def start(club: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--series", "vecher",
                             "--config", str(club / "config.toml")], cwd=club, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def until_journaled(path: Path, needle: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and needle in path.read_text("utf-8", "replace"):
            return
        time.sleep(0.05)
    raise AssertionError(f"{needle!r} never reached {path}")


def test_three_games_in_one_evening_with_a_crash_in_the_middle(tmp_path):
    club = tmp_path
    (club / "config.toml").write_text(f'series_dir = "{club / "series"}"\n', "utf-8")
    made = subprocess.run([sys.executable, "-m", "voicehost", "series", "new", "vecher", "--players", ", ".join(ROSTER),
                           "--config", str(club / "config.toml")], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    first = start(club)
    lines = [seating(ROSTER[:10]), *GAME, "/new", seating(ROSTER[1:]), *GAME[:CRASH_AFTER + 1]]
    first.stdin.write("".join(line + "\n" for line in lines))
    first.stdin.flush()
    until_journaled(club / "series" / "vecher" / "journals" / "game-002.jsonl", '"votes"')
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    games = club / "series" / "vecher" / "games"
    assert sorted(p.name for p in games.iterdir()) == ["game-001.json"]

    second = start(club)
    rest = ["/resume", *GAME[CRASH_AFTER + 1:], "/new", seating(ROSTER[:9] + ["лёва"]), *GAME, "/quit"]
    out, err = second.communicate("".join(line + "\n" for line in rest), timeout=120)
    assert second.returncode == 0, err
    assert "Игра продолжена по журналу" in out and "--series vecher" not in out  # resumed, not stopped
    assert out.count("Таблица серии «vecher»") == 2                      # after the resumed game, and the third
    assert "Таблица серии «vecher», игр: 3" in out
    assert sorted(p.name for p in games.iterdir()) == ["game-001.json", "game-002.json", "game-003.json"]
    protocols = [json.loads((games / f"game-00{n}.json").read_text("utf-8")) for n in (1, 2, 3)]
    assert [p["winner"] for p in protocols] == ["red"] * 3
    assert sorted(protocols[1]["players"].values()) == sorted(ROSTER[1:])  # the draw survived the crash
    assert "Лёва" in protocols[2]["players"].values()                      # the roster's spelling
    standings = subprocess.run([sys.executable, "-m", "voicehost", "standings", "vecher", "--format", "json",
                                "--config", str(club / "config.toml")], capture_output=True, text=True, timeout=60)
    rows = json.loads(standings.stdout)
    assert sum(r["games"] for r in rows) == 30 and sum(r["bests"] for r in rows) == 3


def test_quitting_mid_game_names_the_command_that_goes_on_with_the_evening(tmp_path):
    club = tmp_path
    (club / "config.toml").write_text(f'series_dir = "{club / "series"}"\n', "utf-8")
    subprocess.run([sys.executable, "-m", "voicehost", "series", "new", "vecher", "--players", ", ".join(ROSTER),
                    "--config", str(club / "config.toml")], capture_output=True, text=True, timeout=60, check=True)
    table = start(club)
    out, err = table.communicate(f"{seating(ROSTER[:10])}\n/roles d4 m2 m7 s6\n/new\n/quit\n", timeout=60)
    assert table.returncode == 0, err
    assert "! Следующая игра — только после конца этой" in out
    assert "Рассадка: место 1 — " in out                       # the draw is announced
    assert "run --series vecher --text --mute" in out
    journals = club / "series" / "vecher" / "journals"
    assert not list(journals.glob("*.protocol.*"))             # an unfinished game has no protocol
    again = start(club)
    out, err = again.communicate("/quit\n", timeout=60)
    assert again.returncode == 0, err
    assert "Игра продолжается с того места, где её остановили; она на паузе" in out
    assert "после сбоя" not in out                                # a /quit is no crash
    assert not list(journals.glob("*.protocol.*"))


def test_an_undo_in_the_game_never_takes_back_the_seating_and_the_names_reach_the_standings(tmp_path):
    """Issue 32's reproducer: /foul 3, /undo, /undo in day 1 took the seating
    back ("Отмена: рассадка"), so the protocol and the standings ranked "3", "6"…"""
    club = tmp_path
    (club / "config.toml").write_text(f'series_dir = "{club / "series"}"\n', "utf-8")
    subprocess.run([sys.executable, "-m", "voicehost", "series", "new", "vecher", "--players", ", ".join(ROSTER[:10]),
                    "--config", str(club / "config.toml")], capture_output=True, text=True, timeout=60, check=True)
    table = start(club)
    lines = [seating(ROSTER[:10]), "/roles d4 m2 m7 s6", "<5>", "/foul 3", "/undo", "/undo",
             "/dq 2", "/dq 7", "/dq 4", "3", "5", "/quit"]
    out, err = table.communicate("".join(line + "\n" for line in lines), timeout=120)
    assert table.returncode == 0, err
    assert "Отмена: фол игроку 3" in out
    assert "Отмена: рассадка" not in out
    assert "! Отменять нечего: рассадка и раздача ролей остаются до конца игры" in out
    assert "Новые игроки" not in out                       # the roster is not joined by seat numbers
    assert out.count("Следующая игра — /new") == 1 and "Дальше: /quit — выйти" not in out   # one next step
    protocol = json.loads((club / "series" / "vecher" / "games" / "game-001.json").read_text("utf-8"))
    assert sorted(protocol["players"].values()) == sorted(ROSTER[:10])
    # Every file that holds the deal or the night's answers is the owner's alone (issue 30: the live journal was 0644).
    written = sorted((club / "series" / "vecher" / "journals").iterdir())
    assert any(p.suffix == ".jsonl" for p in written)
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in written} == {p.name: "0o600" for p in written}
    standings = subprocess.run([sys.executable, "-m", "voicehost", "standings", "vecher", "--format", "json",
                                "--config", str(club / "config.toml")], capture_output=True, text=True, timeout=60)
    assert sorted(row["name"] for row in json.loads(standings.stdout)) == sorted(ROSTER[:10])


def test_a_protest_undone_in_a_typed_evening_leaves_the_series(tmp_path):
    """Issue 30: typed-only, /protest then /undo kept the protest in the series'
    copy of the game (only the page's server filed the game again)."""
    club = tmp_path
    (club / "config.toml").write_text(f'series_dir = "{club / "series"}"\n', "utf-8")
    subprocess.run([sys.executable, "-m", "voicehost", "series", "new", "vecher", "--players", ", ".join(ROSTER[:10]),
                    "--config", str(club / "config.toml")], capture_output=True, text=True, timeout=60, check=True)
    table = start(club)
    lines = [seating(ROSTER[:10]), "/roles d4 m2 m7 s6", *(f"/dq {seat}" for seat in (1, 3, 5, 6)), "-", "-",
             "/protest red 8 annulled", "/undo", "/quit"]
    out, err = table.communicate("".join(line + "\n" for line in lines), timeout=120)
    assert table.returncode == 0, err
    assert "Отменено: /protest" in out
    filed = json.loads((club / "series" / "vecher" / "games" / "game-001.json").read_text("utf-8"))
    assert filed.get("protest") is None and filed["winner"] == "black"


def test_names_typed_in_an_evening_are_the_rosters_or_a_marked_newcomer(tmp_path):
    """`/names` in a series goes by the roster as the seating does: a slip is
    refused with the nearest roster name and changes nothing; a roster name takes
    the roster's spelling; a newcomer is marked with «+»."""
    club = tmp_path
    (club / "config.toml").write_text(f'series_dir = "{club / "series"}"\n', "utf-8")
    subprocess.run([sys.executable, "-m", "voicehost", "series", "new", "vecher", "--players", ", ".join(ROSTER),
                    "--config", str(club / "config.toml")], capture_output=True, text=True, timeout=60, check=True)
    table = start(club)
    out, err = table.communicate(f"{seating(ROSTER[:10])}\n/names 3=Алса\n/names 3=лёва\n/names 4=+Мирон\n/quit\n",
                                 timeout=60)
    assert table.returncode == 0, err
    assert "Нет в составе: Алса. Может быть, Алиса?" in out
    assert "3 — Лёва" in out and "4 — Мирон" in out
    journal = next((club / "series" / "vecher" / "journals").glob("game-*.jsonl")).read_text("utf-8")
    named = [json.loads(line)["event"]["names"] for line in journal.splitlines()
             if '"type":"names"' in line.replace(" ", "")]
    assert named == [{"3": "Лёва"}, {"4": "Мирон"}] and "Алса" not in journal
