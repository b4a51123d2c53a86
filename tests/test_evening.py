"""The evening bugs of typed play (issue 17, item 5), each reproduced as a
host met it at the table: the pause, the undo said aloud, a resumed game,
the awards' prompts, the trainer's verdicts and English reaching the host.
Every wait has a timeout."""
from __future__ import annotations

import asyncio
import csv
import importlib.util
import io
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_async
from tests.fakes import FakeMicrophone, FakeRecognizer, FakeSpeaker
from tests.liveparts import GAME, Process, play_typed
from voicehost import cli
from voicehost.cli import build_parser
from voicehost.config import load_settings
from voicehost.errors import VoicehostError
from voicehost.game.moderator import new_game
from voicehost.journal import replay
from voicehost.live import AudioClock, LiveTable, open_table
from voicehost.live.ending import protocol_csv
from voicehost.live.terminal import Terminal, status
from voicehost.live.texts import live_texts
from voicehost.live.training import Trainer
from voicehost.phrases.words import Word, words_from_text
from voicehost.rules import rules_for
from voicehost.session import run

ROOT = Path(__file__).resolve().parent.parent
ASK_BEST = "Кто лучший игрок? Введите номер (или «-», если никто)"
ASK_WORST = "Кто худший игрок? Введите номер (или «-», если никто)"


def typed(ruleset: str = "4mafia") -> tuple[LiveTable, Terminal]:
    live = LiveTable(new_game(rules_for(ruleset)), AudioClock())
    return live, Terminal(live, io.StringIO())


def said(terminal: Terminal) -> list[str]:
    """What the terminal printed of the moderator's lines, without the times."""
    return [line.split("] ", 1)[1] for line in terminal.out.getvalue().splitlines() if line.startswith("[")]


# ------------------------------------------------------------------ the pause


def test_a_floor_opened_during_a_pause_gets_its_whole_time_after_the_resume():
    live, terminal = typed()
    for line in ("/roles d4 m2 m7 s6", "<80>", "<5>", "/pause"):
        terminal.handle(line)
    assert "осталось 55 с · пауза" in status(live)
    terminal.handle("<9>")
    assert "игрок 1, осталось 55 с · пауза" in status(live)   # no countdown while paused
    terminal.handle("/next")
    assert "игрок 2, осталось 60 с · пауза" in status(live)
    terminal.handle("/resume")
    assert "игрок 2, осталось 60 с" in status(live)           # no jump on the resume
    terminal.handle("<49>")
    assert said(terminal)[-1] == "Продолжаем"
    terminal.handle("<1>")
    assert said(terminal)[-1] == "Десять секунд"                # 50 s after the resume, not 59
    terminal.handle("<10>")
    assert live.game.floor.seat == 3


def test_a_pause_mid_floor_keeps_the_floors_time():
    live, terminal = typed()
    for line in ("/roles d4 m2 m7 s6", "<80>", "<20>", "/pause", "<30>", "/resume"):
        terminal.handle(line)
    assert "игрок 1, осталось 40 с" in status(live)
    terminal.handle("<40>")
    assert live.game.floor.seat == 2


# ------------------------------------------------------------------ the undo, said


def undo(live: LiveTable, terminal: Terminal) -> None:
    async def run() -> None:
        live.bind(asyncio.get_running_loop())
        await terminal.undo()
    run_async(run(), 10)


def test_an_undo_is_said_to_the_table():
    live, terminal = typed()
    live.speaker = speaker = FakeSpeaker()
    for line in ("/roles d4 m2 m7 s6", "<80>", *["/foul 3"] * 4):
        terminal.handle(line)
    assert speaker.lines[-1] == ("Игрок номер 3 получает четвёртое замечание и покидает игру", False)
    undo(live, terminal)
    assert 3 in live.game.alive
    assert speaker.lines[-1] == ("Отмена: фол игроку 3", False)
    assert said(terminal)[-1] == "Отмена: фол игроку 3"


def test_an_undone_night_input_is_said_to_the_host_only():
    live, terminal = typed()
    live.speaker = speaker = FakeSpeaker()
    for line in ("/roles d4 m2 m7 s6", "<80>", *["/next"] * 10, "/votes", "<70>", "/shot 5"):
        try:
            terminal.handle(line)
        except VoicehostError:
            pass
    assert live.game.phase.is_night
    undo(live, terminal)
    assert speaker.lines[-1] == ("Отмена: выстрел в игрока 5", True)


def test_a_ukrainian_table_hears_its_undo_in_ukrainian():
    live, terminal = typed("ua-club")
    live.speaker = speaker = FakeSpeaker()
    for line in ("/roles d4 m2 m7 s6", "<80>", "/foul 3"):
        terminal.handle(line)
    undo(live, terminal)
    assert speaker.lines[-1] == ("Скасовано: фол гравцю 3", False)


# ------------------------------------------------------------------ the trainer


def trainer(ruleset: str = "4mafia") -> Trainer:
    config, rules = load_settings(None, ruleset)
    return Trainer(config, rules, io.StringIO(), mute=True)


@pytest.mark.parametrize("phrase,verdicts", [
    pytest.param("выставляю игрока номер семь выставляю восьмого",
                 ["Принят номер 7", "Не принято: вы уже выставили кандидатуру сегодня"], id="2.3-one-per-phrase"),
    pytest.param("выставляю седьмого честно",
                 ["Принят номер 7", "Запрещённое слово «честно» (правило 3.6.10): ведущий может дать за него фол"],
                 id="3.6.10-honestly"),
    pytest.param("клянусь выставляю седьмого",
                 ["Запрещённое слово «клянусь» (правило 3.7.3): за него ведущий может дисквалифицировать",
                  "Принят номер 7"], id="3.7.3-oath"),
    pytest.param("господин ведущий выставленные игроки",
                 ["Вопрос ведущему: ведущий назовёт выставленных игроков",
                  "Номинации не было: скажите «выставляю» и номер игрока"], id="2.2.4-host-question"),
    pytest.param("выставляю двадцать семь", ["Не принято: нет такого игрока — «двадцать семь»"],
                 id="past-table-tens"),
    pytest.param("выставляю ноль", ["Не принято: нет такого игрока — «ноль»"], id="past-table-zero"),
    pytest.param("выставляю одиннадцатого", ["Не принято: нет такого игрока — «одиннадцатого»"],
                 id="past-table-eleven"),
    pytest.param("выставляю 27", ["Не принято: нет такого игрока — номер 27"], id="past-table-digits"),
    pytest.param("выставляю седьмого спасибо выставляю восьмого",
                 ["Принят номер 7", "Речь окончена на «спасибо»: слова после него не оцениваются"],
                 id="2.2.5-thanks-ends"),
    pytest.param("спасибо", ["Номинации не было: скажите «выставляю» и номер игрока",
                             "Речь окончена на «спасибо»: слова после него не оцениваются"], id="2.2.5-thanks-only"),
    pytest.param("выставляю седьмого пас",
                 ["Принят номер 7", "Речь окончена на «пас»: слова после него не оцениваются"], id="2.2.5-pass"),
    pytest.param("выставляю пожалуй седьмого", ["Не принято: лишнее слово «пожалуй» между «выставляю» и номером"],
                 id="2.3.2-extra-word"),
])
def test_the_trainer_says_everything_the_game_hears(phrase, verdicts):
    assert trainer().judge(words_from_text(phrase)) == verdicts


def test_a_ukrainian_trainer_flags_zero_and_the_end_in_ukrainian():
    coach = trainer("ua-club")
    assert coach.judge(words_from_text("виставляю нуль")) == ["Не прийнято: немає такого гравця — «нуль»"]
    assert coach.judge(words_from_text("виставляю сьомого дякую"))[-1].startswith("Промову закінчено на «дякую»")


def test_a_typed_nomination_past_the_table_is_named_whole_in_play():
    live, terminal = typed()
    for line in ("/roles d4 m2 m7 s6", "<80>", "выставляю двадцать семь"):
        terminal.handle(line)
    assert "Не принято: нет такого игрока — «двадцать семь»" in terminal.out.getvalue().splitlines()
    assert live.game.today == []


# ------------------------------------------------------------------ the awards


def to_the_end(terminal: Terminal) -> None:
    for line in GAME:
        terminal.handle(line)
    assert terminal.live.over


def test_undoing_the_end_and_ending_again_asks_for_the_awards_again():
    live, terminal = typed()
    to_the_end(terminal)
    assert terminal.out.getvalue().splitlines()[-1] == "> " + ASK_BEST
    undo(live, terminal)
    assert not live.over
    terminal.handle("<5>")   # the game's words again, not an answer to a question no longer asked
    terminal.handle("/shot 2")
    terminal.handle("<11>")
    terminal.handle("<25>")
    assert live.over and terminal.out.getvalue().splitlines()[-1] == "> " + ASK_BEST
    terminal.handle("3")
    terminal.handle("5")
    assert (live.game.best_player, live.game.worst_player) == (3, 5)


def test_an_award_named_on_the_page_moves_the_terminal_to_the_next_question():
    live, terminal = typed()
    to_the_end(terminal)
    live.apply_json({"type": "best_player", "seat": 4})   # the host's page, while the terminal asks
    assert terminal.out.getvalue().splitlines()[-1] == "> " + ASK_WORST
    terminal.handle("5")
    assert (live.game.best_player, live.game.worst_player) == (4, 5)
    assert not terminal.asking


def test_an_undone_award_is_asked_again():
    live, terminal = typed()
    to_the_end(terminal)
    terminal.handle("3")
    terminal.handle("-")
    undo(live, terminal)
    assert live.game.best_player is None
    assert terminal.out.getvalue().splitlines()[-1] == "> " + ASK_BEST
    terminal.handle("6")
    assert live.game.best_player == 6


def test_after_the_protocol_the_host_is_told_what_now(tmp_path):
    code, out, journal = play_typed(tmp_path, [*GAME, "3", "-"])
    lines = out.splitlines()
    protocol = next(i for i, line in enumerate(lines) if line.startswith("Протокол: "))
    assert "Игра окончена, протокол записан. Дальше: /quit — выйти, /undo — отменить последний ввод" in \
        lines[protocol:protocol + 3]


# ------------------------------------------------------------------ a crashed game, resumed

TO_THE_HUNT = ["/roles d4 m2 m7 s6", "<80>", "выставляю седьмого спасибо", "выставляю третьего спасибо",
               *["/next"] * 8, "<3>", "/votes 7=7", "спасибо"]


def test_a_resumed_game_is_told_to_the_table_waits_paused_and_counts_again(tmp_path):
    code, out, journal = play_typed(tmp_path, [*TO_THE_HUNT, "<4.5>", "/quit"])
    assert [line[8:] for line in out.splitlines() if line.startswith("[")][-5:] == ["1", "2", "3", "4", "Пауза"]
    args = build_parser().parse_args(["run", "--text", "--mute", "--resume", str(journal)])
    again = io.StringIO()
    assert run(args, again, io.StringIO("<5>\n/resume\n<3>\n/quit\n")) == 0
    lines = again.getvalue().splitlines()
    heard = [line[8:] for line in lines if line.startswith("[")]
    # A /quit left it paused in its journal: no crash to speak of (issue 32)
    assert heard[:1] == ["Игра продолжается с того места, где её остановили; она на паузе"]
    assert "после сбоя" not in again.getvalue()
    assert "> Игра на паузе: продолжить — /resume" in lines
    # nothing moved while it stood paused; the broken-off count starts again from one
    assert heard[1:] == ["Продолжаем", "Счёт начинается заново", "1", "2", "3", "Пауза"]


def test_the_restored_line_is_spoken_and_the_pause_journaled(tmp_path):
    code, out, journal = play_typed(tmp_path, ["/roles d4 m2 m7 s6", "<85>"])   # broken off: no /quit
    game, writer, entries, _ = open_table(rules_for("4mafia"), journal, resume=True)
    live = LiveTable(game, AudioClock(start_at=game.now), journal=writer, entries=entries)
    live.speaker = speaker = FakeSpeaker()
    live.restore()
    live.close()
    assert speaker.lines == [("Игра восстановлена после сбоя", False), ("Пауза", False)]
    assert replay(journal)[0].paused_at is not None
    assert "осталось 55 с · пауза" in status(live)


def test_a_pause_mid_count_starts_the_count_again_but_not_after_the_shot():
    live, terminal = typed()
    for line in (*TO_THE_HUNT, "<3.5>", "/pause", "<10>", "/resume", "<1>"):
        terminal.handle(line)
    assert said(terminal)[-3:] == ["Продолжаем", "Счёт начинается заново", "1"]
    for line in ("/shot 5", "<2>", "/pause", "/resume", "<1>"):
        terminal.handle(line)
    assert said(terminal)[-5:] == ["2", "3", "Пауза", "Продолжаем", "4"]   # the shot is in: the count goes on


def test_ctrl_c_prints_the_command_that_resumes_the_game(tmp_path):
    table = Process("--journal", str(tmp_path / "j.jsonl"), cwd=tmp_path)
    table.wait_for("· ждём раздачу")
    table.send("/roles d4 m2 m7 s6")
    table.wait_for("· ночь 1")
    table.proc.send_signal(signal.SIGINT)
    code, out, err = table.end()
    assert code == 130
    (hint,) = [line for line in out.splitlines() if line.startswith("Продолжить эту игру: ")]
    assert hint.endswith(f"voicehost run --resume {tmp_path / 'j.jsonl'} --text --mute")   # the program as typed


# ------------------------------------------------------------------ English reaching the host


def without_the_live_extra(monkeypatch) -> None:
    """An install without the live extra (`pip install '.[web]'`): vosk and PyAudio are not found."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name in ("vosk", "pyaudio") else real(name, *rest))


def test_run_without_the_live_extra_falls_back_to_typed_play(tmp_path, monkeypatch, capsys):
    without_the_live_extra(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.StringIO("/roles d4 m2 m7 s6\n/quit\n"))
    assert cli.main(["run", "--mute", "--journal", str(tmp_path / "j.jsonl")]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith("Игры голосом в этой установке нет (pip install 'voicehost[live]'")
    assert "· ночь 1" in out and err == ""


def test_train_without_the_live_extra_names_pip_not_scripts(monkeypatch, capsys):
    without_the_live_extra(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.StringIO("выставляю седьмого\n\n"))
    assert cli.main(["train", "--mute"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == ("Распознавания речи в этой установке нет (pip install 'voicehost[live]'): "
                                   "наберите фразы на клавиатуре")
    assert "Принят номер 7" in out and "scripts/setup" not in out + err


def test_models_verify_with_no_model_says_so_and_fails(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "voicehost", "models", "verify"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "VOICEHOST_ROOT": str(tmp_path)})
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert f"no downloaded model in {tmp_path / 'models'}" in line and "voicehost models download" in line


def test_models_download_offline_leaves_no_empty_models_folder(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "voicehost", "models", "download", "--only", "voice"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "VOICEHOST_ROOT": str(tmp_path)})
    assert proc.returncode == 2 and "cannot reach" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_csv_protocol_speaks_the_tables_language():
    live, terminal = typed()
    terminal.handle("/names 1=Алиса")
    to_the_end(terminal)
    rows = list(csv.reader(io.StringIO(protocol_csv(live))))
    assert rows[0] == ["место", "игрок", "роль", "баллы", "фолы", "выбыл", "причина", "когда"]
    assert rows[1][:3] == ["1", "Алиса", "мирный"] and rows[1][5:] == ["нет", "", ""]
    assert rows[2][:2] == ["2", "2"]                      # a seat with no name: its number, as in the JSON
    assert rows[5][2] == "мирный" and rows[5][5:] == ["да", "выстрел", "ночь 2"]
    assert rows[7][2:3] == ["мафия"] and rows[7][5:] == ["да", "голосование", "день 1"]
    assert ["правила", "4mafia", "победа", "красные"] in rows
    assert ["голосование", "день 2", "круг 1", "4:8"] in rows
    english = {"citizen", "mafia", "yes", "no", "shot", "vote", "red", "ruleset", "winner", "nomination",
               "seat", "role", "points", "when"}
    assert not english & {cell.split()[0] for row in rows for cell in row if cell}


def test_a_ukrainian_csv_protocol_is_ukrainian():
    live, terminal = typed("ua-club")
    for line in ("/roles d4 m2 m7 s6", *["/foul 3"] * 4):
        terminal.handle(line)
    rows = list(csv.reader(io.StringIO(protocol_csv(live))))
    assert rows[0][:3] == ["місце", "гравець", "роль"]
    assert rows[3][2] == "мирний" and rows[3][5:] == ["так", "фоли", "ніч 1"]


def fake_checkout(tmp_path: Path, setup_code: int = 0) -> Path:
    """scripts/run in a copy of the checkout whose setup and voicehost are fakes
    (named so): each prints what the real one prints offline."""
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    (root / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "run", root / "scripts" / "run")
    fakes = {
        root / "scripts" / "setup":
            f'echo "setup: installing espeak-ng"; echo "setup: ready (.venv)"; exit {setup_code}',
        root / ".venv" / "bin" / "voicehost": 'if [ "$1" = models ]; then echo "asr small-ru: Vosk small Russian '
        'model"; echo "voicehost models: cannot reach alphacephei.com" >&2; exit 2; fi; echo "игра: $*"',
    }
    for path, body in fakes.items():
        path.write_text("#!/usr/bin/env bash\n" + body + "\n", "utf-8")
        path.chmod(0o755)
    return root


def test_scripts_run_offline_shows_the_host_no_english(tmp_path):
    root = fake_checkout(tmp_path)
    proc = subprocess.run([str(root / "scripts" / "run"), "--text"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "игра: run --text\n" and proc.stderr == ""
    log = (root / "journals" / "setup.log").read_text("utf-8")
    assert "setup: ready" in log and "cannot reach alphacephei.com" in log


def test_scripts_run_shows_why_setup_failed(tmp_path):
    root = fake_checkout(tmp_path, setup_code=1)
    proc = subprocess.run([str(root / "scripts" / "run")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "setup: installing espeak-ng" in proc.stderr and proc.stdout == ""


def test_train_without_a_voice_or_model_prints_no_english(tmp_path):
    """No Piper voice, no speech model (and here no speaker): the host reads why in
    Russian; the English reasons stay in the log."""
    proc = subprocess.run([sys.executable, "-m", "voicehost", "train"], input="выставляю седьмого\n\n",
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "VOICEHOST_ROOT": str(tmp_path)})
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.splitlines()[-1] == "Принят номер 7"
    assert not re.search("[A-Za-z]{4,}", re.sub(r"\S*voicehost models download", "", proc.stdout))


def test_spoken_training_judges_phrases_as_typed_ones():
    coach = trainer()
    said_words = [Word("выставляю", 0.0, 0.5), Word("седьмого", 0.6, 1.0), Word("выставляю", 1.2, 1.6),
                  Word("восьмого", 1.7, 2.0),                       # the same breath: a second nomination
                  Word("выставляю", 5.0, 5.4), Word("девятого", 5.5, 5.9),   # after a silence: a new phrase
                  Word("честно", 6.0, 6.3)]
    coach.microphone(FakeRecognizer(), FakeMicrophone(said_words))
    assert coach.out.getvalue().splitlines()[1:] == [
        "Принят номер 7", "Не принято: вы уже выставили кандидатуру сегодня", "Принят номер 9",
        "Запрещённое слово «честно» (правило 3.6.10): ведущий может дать за него фол"]


def test_the_resume_command_is_the_one_the_host_started(tmp_path, monkeypatch):
    from voicehost.session import RunOptions, resume_command

    monkeypatch.setattr(sys, "argv", [".venv/bin/voicehost", "run"])
    journal = Path("journals/game 1.jsonl")
    assert resume_command(journal, RunOptions(lan=True)) == \
        ".venv/bin/voicehost run --resume 'journals/game 1.jsonl' --lan"
    monkeypatch.setattr(sys, "argv", ["/usr/lib/python3/voicehost/__main__.py"])
    monkeypatch.setattr("voicehost.paths.shutil.which", lambda name: "/usr/bin/voicehost")
    assert resume_command(journal, RunOptions(text=True)) == "voicehost run --resume 'journals/game 1.jsonl' --text"
    # Issue 32: every option that matters comes back (the hint dropped --port)
    everything = RunOptions(lan=True, port=9000, show_private=True, protocol=Path("out.json"), mute=True,
                            settings=("--config", "club/config.toml", "--set", "speech_seconds=45"))
    assert resume_command(journal, everything) == ("voicehost run --resume 'journals/game 1.jsonl' --mute --lan "
                                                   "--port 9000 --show-private --protocol out.json "
                                                   "--config club/config.toml --set speech_seconds=45")
    parsed = build_parser().parse_args(["run", "--text", "--port", "9001", "--config", "c.toml", "--set", "a=1"])
    from voicehost.session import options_from

    assert resume_command(journal, options_from(parsed, io.StringIO())).endswith(
        "--text --port 9001 --config c.toml --set a=1")


def test_an_award_undone_on_the_page_is_asked_again_in_the_terminal():
    live, terminal = typed()
    to_the_end(terminal)
    terminal.handle("3")
    terminal.handle("5")
    live.undo()   # the page's «Отменить»: the worst player named in the terminal
    assert live.game.worst_player is None
    assert terminal.out.getvalue().splitlines()[-1] == "> " + ASK_WORST
    terminal.handle("6")
    assert (live.game.best_player, live.game.worst_player) == (3, 6)


def test_names_confirms_only_what_the_line_changed():
    """Issue 32: `/names 2=Лев` confirmed all ten names while the screens showed only Лев."""
    live, terminal = typed()
    terminal.handle("/names 1=Алиса 3=Вера Павловна")
    terminal.handle("/names 2=Лев")
    terminal.handle("/names 3=")
    lines = terminal.out.getvalue().splitlines()
    assert [line for line in lines if line.startswith("Имена")] == [
        "Имена: 1 — Алиса, 3 — Вера Павловна", "Имена: 2 — Лев", "Имена: 3 — без имени"]
    assert live.game.state.record.names == {1: "Алиса", 2: "Лев"}


def test_the_setup_hint_names_the_command_as_the_user_must_type_it(tmp_path, monkeypatch):
    """Issue 32: in a checkout the hint said `voicehost models download`, a
    command the shell does not know; it is `.venv/bin/voicehost` there."""
    from voicehost import paths

    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "voicehost").write_text("#!/bin/sh\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "voicehost" / "__main__.py")])   # python -m voicehost
    monkeypatch.setattr(paths.shutil, "which", lambda name: None)
    assert paths.program() == ".venv/bin/voicehost"
    texts = live_texts("phrasebook.ru")
    assert ".venv/bin/voicehost models download" in texts.text("no_model", path="models/x", program=paths.program())
    monkeypatch.setattr(paths.shutil, "which", lambda name: "/usr/local/bin/voicehost")   # installed: on the PATH
    assert paths.program() == "voicehost"
    monkeypatch.setattr(sys, "argv", ["/opt/club/.venv/bin/voicehost", "run"])           # as it was started
    assert paths.program() == "/opt/club/.venv/bin/voicehost"


def test_a_killed_sheriffs_best_move_is_refused_with_a_plain_reason():
    """Issue 32: the refusal read "У шерифа нет лучшего хода (4.3.3)": a rule number where a reason belongs."""
    live, terminal = typed()
    for line in [*TO_THE_HUNT, "/shot 6", "<11>", "/don 1", "<10>", "<10>"]:
        terminal.handle(line)
    with pytest.raises(VoicehostError) as refused:
        terminal.handle("/best 2 4 7")
    line = terminal.refusal(refused.value)
    assert line == "Шериф не называет лучший ход: он проверял игроков, и баллов за такой ход ему не положено"
    assert not re.search(r"\d\.\d", line) and live.game.best_move is None
