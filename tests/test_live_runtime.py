"""The live runtime: the table's owner loop, the journal that fails loudly,
the supervised speaker, the echo guard on one clock, Ctrl-C, and typed play
from the deal to the protocol beside the journal. Every wait has a timeout."""
from __future__ import annotations

import asyncio
import errno
import io
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROLES, async_wait_for, run_async, until
from tests.fakes import FakeRecognizer, FakeSink, FakeVoice
from tests.liveparts import GAME, Process, play_typed
from voicehost.audio import AudioError
from voicehost.cli import build_parser
from voicehost.errors import GameError, InputError
from voicehost.game.model import Phase
from voicehost.game.moderator import new_game
from voicehost.journal import Journal, rebuild, replay
from voicehost.live import AudioClock, GameClock, JournalWriter, LiveTable, TableStopped
from voicehost.live.commands import parse_roles
from voicehost.live.listening import listen
from voicehost.live.playback import Speaker
from voicehost.live.speaking import supervised_speaker
from voicehost.live.terminal import Terminal, status
from voicehost.phrases.words import Word
from voicehost.rules import rules_for
from voicehost.session import run

ROOT = Path(__file__).resolve().parent.parent


def typed_table(ruleset: str = "4mafia", out: io.StringIO | None = None, **terminal) -> tuple[LiveTable, Terminal]:
    live = LiveTable(new_game(rules_for(ruleset)), AudioClock())
    return live, Terminal(live, out or io.StringIO(), **terminal)


# ------------------------------------------------------------------ the echo guard


def test_own_voice_is_an_echo_with_the_default_listen_lag():
    """Words carry game time (wall clock less the 1 s listening lag); the
    speaker times its playback on the same clock, so the moderator's own
    "спасибо" coming back through the microphone is dropped."""
    rules = rules_for("4mafia", {"mafia_meet_seconds": 0.01, "don_seconds": 0.01, "sheriff_seconds": 0.01})
    clock, sink = GameClock(), FakeSink()
    speaker = supervised_speaker(FakeVoice(), sink, None, clock, lag=1.0, tail=0.3)
    live = LiveTable(new_game(rules), clock, speaker, lag=1.0)
    heard: queue.Queue = queue.Queue()
    mic_started: list[float] = []

    class FakeMicrophone:
        def chunks(self):
            mic_started.append(time.monotonic())
            while (chunk := heard.get(timeout=10)) is not None:
                yield chunk

    async def scenario():
        live.bind(asyncio.get_running_loop())
        microphone = asyncio.create_task(listen(live, FakeMicrophone(), FakeRecognizer(), clock, lambda: False))
        try:
            await async_wait_for(lambda: mic_started)
            live.apply_json({"type": "setup", "roles": ROLES})
            floor = "Слово игроку номер 1"
            await async_wait_for(lambda: live.tick() is not None and floor in [s.text for s in speaker.spoken],
                                 timeout=10)
            index = [s.text for s in speaker.spoken].index(floor)
            await async_wait_for(lambda: len(sink.times) > index)
            # The microphone hears the announcement 0.2 s into its playback.
            at = sink.times[index] - mic_started[0] + 0.2
            heard.put([Word("спасибо", at, at + 0.3)])
            await async_wait_for(lambda: live.echoes == 1)
            assert live.game.floor.seat == 1
        finally:
            heard.put(None)
            await asyncio.wait_for(microphone, 10)

    run_async(scenario(), 30)
    speaker.close()


# ------------------------------------------------------------------ the speaker


def test_speaker_survives_a_voice_that_crashes():
    sink = FakeSink()
    speaker = supervised_speaker(FakeVoice(broken=("Десять секунд",), garbled=("Время",)), sink, None, AudioClock())
    for text in ("Слово игроку номер 1", "Десять секунд", "Время", "Слово игроку номер 2"):
        speaker.say(text)
    assert speaker.wait(10)
    speaker.close()
    assert [s.text for s in speaker.spoken] == ["Слово игроку номер 1", "Слово игроку номер 2"]


class BrokenSink(FakeSink):
    def play(self, clip):
        if not self.clips:
            self.clips.append(None)
            raise ValueError("device went away")
        super().play(clip)


def test_speaker_survives_a_device_error():
    sink = BrokenSink()
    speaker = supervised_speaker(FakeVoice(), sink, None, AudioClock())
    speaker.say("Слово игроку номер 1")
    speaker.say("Время")
    assert speaker.wait(10)
    speaker.close()
    assert len(sink.clips) == 2 and sink.clips[1] is not None


# ------------------------------------------------------------------ the journal


def failing_journal(path: Path, fail_after: int) -> Journal:
    """A journal whose writes (each a write and an fsync) fail after the first `fail_after`."""
    journal = Journal(path, rules_for("4mafia"), fsync=True)
    written = []
    real = journal._write_entries

    def write_entries(entries):
        if len(written) >= fail_after:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(entries)
        real(entries)
    journal._write_entries = write_entries
    return journal


def test_journal_write_failure_is_loud_spoken_and_stops_inputs(tmp_path):
    sink = FakeSink()
    speaker = Speaker(FakeVoice(), sink, None, lambda: 0.0)
    writer = JournalWriter(tmp_path / "j.jsonl", rules_for("4mafia"),
                           journal=failing_journal(tmp_path / "j.jsonl", fail_after=1))
    live = LiveTable(new_game(rules_for("4mafia")), AudioClock(), speaker, journal=writer)
    alarms = []
    live.alarms.append(alarms.append)
    live.apply_json({"type": "setup", "roles": ROLES})
    live.clock.skip_to(80)
    live.tick()  # the first floor: a tick entry that cannot be written
    live.sync()
    assert live.failure is not None and len(alarms) == 1
    assert "журнал не записывается" in alarms[0] and "No space left on device" in alarms[0]
    with pytest.raises(TableStopped, match="Ввод не принимается"):
        live.apply_json({"type": "foul", "seat": 3})
    assert live.game.fouls[3] == 0
    assert live.tick() == []
    speaker.wait(10)
    speaker.close()
    assert "Внимание: журнал не записывается, игра остановлена" in [s.text for s in speaker.spoken]
    writer.close()


def test_typed_play_stops_at_a_journal_failure(tmp_path, monkeypatch):
    real = Journal.write_entry
    count = []

    def write_entry(self, t, event):
        count.append(event)
        if len(count) > 3:
            raise OSError(errno.EROFS, "Read-only file system")
        real(self, t, event)
    monkeypatch.setattr(Journal, "write_entry", write_entry)
    code, out, journal = play_typed(tmp_path, GAME)
    assert code == 1
    lines = out.splitlines()
    loud = [line for line in lines if line.startswith("!!! ")]
    assert len(loud) == 1 and "Read-only file system" in loud[0] and str(journal) in loud[0]
    # nothing was taken after the alarm: the last status line comes before it
    assert not [line for line in lines[lines.index(loud[0]):] if line.startswith("· ")]


# ------------------------------------------------------------------ the loop


def test_undo_rebuilds_off_the_loop_and_tells_what_it_took_back():
    live, terminal = typed_table()
    out = terminal.out
    for line in ("/roles d4 m2 m7 s6", "<80>", "/foul 3"):
        terminal.handle(line)
    assert live.game.fouls[3] == 1

    async def undo():
        live.bind(asyncio.get_running_loop())
        await terminal.undo()
    run_async(undo(), 10)
    assert live.game.fouls[3] == 0 and live.game.floor.seat == 1
    assert "Отменено: /foul 3" in out.getvalue()
    with pytest.raises(GameError, match="Отменять нечего"):
        live.undo()


def test_during_an_undo_host_inputs_wait_and_words_are_kept(monkeypatch):
    live, terminal = typed_table()
    for line in ("/roles d4 m2 m7 s6", "<80>", "выставляю седьмого", "/foul 3"):
        terminal.handle(line)
    slow = threading.Event()

    def rebuild_slowly(rules, entries):
        assert slow.wait(10)
        return rebuild(rules, entries)

    async def scenario():
        live.bind(asyncio.get_running_loop())
        undo = asyncio.ensure_future(live.undo_async())
        await async_wait_for(lambda: live.undoing)
        with pytest.raises(GameError, match="Подождите: идёт отмена"):
            live.apply_json({"type": "foul", "seat": 5})
        with pytest.raises(GameError, match="Подождите: идёт отмена"):
            live.undo()  # the page's undo, while the terminal's is still rebuilding
        start = live.game.now
        live.hear([Word("спасибо", start + 0.5, start + 0.9)])  # the speaker goes on meanwhile
        slow.set()
        return await asyncio.wait_for(undo, 10)

    monkeypatch.setattr("voicehost.live.table.rebuild", rebuild_slowly)
    undone = run_async(scenario(), 20)
    assert undone == {"type": "foul", "seat": 3}
    assert live.game.fouls[3] == 0 and live.game.fouls[5] == 0
    assert live.game.today == [7] and live.game.floor.seat == 2  # the words heard during the undo count
    assert [e.event["type"] for e in live.entries].count("foul") == 0


def test_microphone_words_are_heard_on_the_loop_the_recognizer_off_it():
    """The input pipeline runs the recognizer in an executor and the table
    changes on the loop's thread only (issue 27.3: no thread posting words)."""
    from voicehost.live.pipeline import Timing, hear_audio

    live = LiveTable(new_game(rules_for("4mafia")), AudioClock())
    live.apply_json({"type": "setup", "roles": ROLES})
    until(live, Phase.SPEECH)
    owner, recognizing = [], []
    start = live.game.now

    class Recognizer:
        audio_time = 0.0

        def accept(self, chunk):
            recognizing.append(threading.current_thread())
            return [Word("спасибо", 1, 1.4)]

        def finish(self):
            return []

    async def scenario():
        live.bind(asyncio.get_running_loop())
        live.listeners.append(lambda outputs: owner.append(threading.current_thread()))
        await hear_audio(live, iter([b"\0" * 640]), Recognizer(), Timing(lambda: start, lenient=True))
        await async_wait_for(lambda: live.game.floor.seat == 2)
    run_async(scenario(), 10)
    assert owner and all(t is threading.main_thread() for t in owner)
    assert recognizing and threading.main_thread() not in recognizing


# ------------------------------------------------------------------ typed play


def test_a_typed_game_ends_with_awards_and_its_protocol_beside_the_journal(tmp_path):
    code, out, journal = play_typed(tmp_path, GAME[:1] + ["/names 1=Алиса 10=Вера Павловна"] + GAME[1:]
                                    + ["3", "x", "-", "/quit"])
    assert code == 0
    lines = out.splitlines()
    end = lines.index(next(line for line in lines if "Стоп игра. Победа мирного города" in line))
    assert lines[end + 1] == "> Кто лучший игрок? Введите номер (или «-», если никто)"
    assert "! «x» — не номер игрока: введите номер или «-»" in lines
    assert "> Кто худший игрок? Введите номер (или «-», если никто)" in lines
    json_path, csv_path = tmp_path / "game.protocol.json", tmp_path / "game.protocol.csv"
    assert f"Протокол: {json_path} и {csv_path}" in lines
    assert lines[-2] == f"Журнал: {journal}"
    data = json.loads(json_path.read_text("utf-8"))
    assert data["winner"] == "red" and data["best_player"] == 3 and data["worst_player"] is None
    assert csv_path.read_text("utf-8").startswith("место,игрок,роль,баллы")
    assert replay(journal)[0].best_player == 3
    # ... and the rating platforms' records beside the protocol, with the names the host typed
    records = [tmp_path / "game.protocol.mafiaratings.json", tmp_path / "game.protocol.polemica.json"]
    assert f"Для рейтинга: {records[0]}, {records[1]}" in lines
    assert "Вера Павловна" in records[0].read_text("utf-8") and "Алиса" in records[1].read_text("utf-8")


def test_each_award_is_said_before_the_next_question_and_the_protocol(tmp_path):
    """A bare number answers the question asked; its announcement (said once on
    disk) comes before the next question, and both before the protocol's lines."""
    code, out, journal = play_typed(tmp_path, ["/roles d4 m2 m7 s6", "<80>", "/dq 2", "/dq 4", "/dq 7",
                                               "3", "8", "/quit"])
    assert code == 0
    lines = out.splitlines()

    def at(text: str) -> int:
        return next(i for i, line in enumerate(lines) if text in line)

    best, ask_worst, worst = at("Лучший игрок — номер 3"), at("> Кто худший игрок?"), at("Худший игрок — номер 8")
    assert at("> Кто лучший игрок?") < best < ask_worst < worst < at("Протокол:")


def test_quit_before_the_deal_leaves_no_journal(tmp_path):
    code, out, journal = play_typed(tmp_path, ["/state", "/quit"])
    assert code == 0 and not journal.exists() and list(tmp_path.iterdir()) == []
    assert "Игра не началась: журнал не создан" in out and "Журнал:" not in out.splitlines()[-1]


def test_quit_mid_game_says_where_the_journal_is_and_writes_no_protocol(tmp_path):
    """Issue 32: a /quit mid-game wrote a protocol of the unfinished game (which
    `series add` then refused); its journal is what goes on."""
    code, out, journal = play_typed(tmp_path, ["/roles d4 m2 m7 s6", "<80>", "/quit"],
                                    "--protocol", str(tmp_path / "p.json"))
    assert f"Журнал: {journal}" in out and "Протокол" not in out
    assert not (tmp_path / "p.json").exists() and not (tmp_path / "p.csv").exists()


MAFIA_WINS = ["/roles d4 m2 m7 s6", "/dq 1", "/dq 3", "/dq 5", "/dq 6", "-", "-"]   # four reds out


def test_a_protocol_that_cannot_be_written_is_one_line(tmp_path):
    code, out, journal = play_typed(tmp_path, [*MAFIA_WINS, "/quit"],
                                    "--protocol", str(tmp_path / "gone" / "p.json"))
    assert code == 0 and f"Журнал: {journal}" in out
    line = next(line for line in out.splitlines() if "Протокол" in line)
    assert line.startswith(f"! Протокол не записан ({tmp_path / 'gone' / 'p.json'}: ")


def test_the_protocol_lines_are_printed_once_at_the_end_of_typed_play(tmp_path):
    """Issue 30: the protocol and the rating records were written and printed
    twice, at the end of the game and again on /quit."""
    code, out, journal = play_typed(tmp_path, [*MAFIA_WINS, "/quit"], "--protocol", str(tmp_path / "p.json"))
    lines = out.splitlines()
    assert lines.count(f"Протокол: {tmp_path / 'p.json'} и {tmp_path / 'p.csv'}") == 1
    assert sum(line.startswith("Для рейтинга: ") for line in lines) == 1
    assert json.loads((tmp_path / "p.json").read_text("utf-8"))["winner"] == "black"


def test_deal_shows_the_host_the_roles_marked_private():
    live, terminal = typed_table()
    terminal.handle("/deal")
    (line,) = [line for line in terminal.out.getvalue().splitlines() if "Роли:" in line]
    assert line.startswith("(только ведущему) Роли: 1 — ")
    named = dict(part.split(" — ") for part in line.split("Роли: ")[1].split(", "))
    assert sorted(named.values()) == sorted(["дон", "мафия", "мафия", "шериф"] + ["мирный"] * 6)
    assert {str(s): r.value for s, r in live.game.roles.items()} == {
        seat: {"дон": "don", "мафия": "mafia", "шериф": "sheriff", "мирный": "citizen"}[role]
        for seat, role in named.items()}


def test_deal_goes_to_the_page_or_is_refused_without_a_private_channel():
    live, terminal = typed_table(show_private=False, page=True)
    terminal.handle("/deal")
    assert "посмотрите их на странице ведущего" in terminal.out.getvalue()
    assert "Роли:" not in terminal.out.getvalue() and live.game.phase is not Phase.SETUP
    live, terminal = typed_table(show_private=False, page=False)
    with pytest.raises(InputError, match="роли негде показать ведущему"):
        terminal.handle("/deal")
    assert live.game.phase is Phase.SETUP


@pytest.mark.parametrize("phrase,verdict", [
    ("выставляю одиннадцатого", "Не принято: нет такого игрока — «одиннадцатого»"),
    ("выставляю 15", "Не принято: нет такого игрока — номер 15"),
    ("выставляю " + "9" * 5000, "Не принято: нет такого игрока — номер " + "9" * 20 + "…"),
])
def test_no_such_player_in_play(phrase, verdict):
    live, terminal = typed_table()
    for line in ("/roles d4 m2 m7 s6", "<80>", phrase):
        terminal.handle(line)
    assert verdict in terminal.out.getvalue().splitlines()
    assert live.game.today == []


def test_no_such_player_in_training():
    lines = "выставляю одиннадцатого\nвыставляю 15\nвыставляю седьмого\n\n"
    proc = subprocess.run([sys.executable, "-m", "voicehost", "train", "--text", "--mute"], input=lines,
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == ["Не принято: нет такого игрока — «одиннадцатого»",
                                            "Не принято: нет такого игрока — номер 15",
                                            "Принят номер 7"]


def test_training_refuses_a_malformed_silence_in_russian():
    lines = "выставляю <-5> седьмого\nвыставляю седьмого\n\n"
    proc = subprocess.run([sys.executable, "-m", "voicehost", "train", "--text", "--mute"], input=lines,
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == ["! Тишина <-5> записывается как <N> — число секунд от 0 до 999999",
                                            "Принят номер 7"]


def test_a_line_of_silences_alone_is_refused_in_russian():
    proc = subprocess.run([sys.executable, "-m", "voicehost", "train", "--text", "--mute"], input="<5> <6>\n\n",
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == ["! В строке нет слов; тишина набирается одна на строке, как <N>"]


def test_roles_on_the_command_line_are_refused_in_russian(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--roles", "d4 d5",
                           "--journal", str(tmp_path / "j.jsonl")], input="/quit\n",
                          capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "HOME": str(tmp_path)})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == ["voicehost run: --roles: Нужно 6 мирных, 1 шериф, 2 мафии и 1 дон"]


def test_the_first_tally_prompts_at_once():
    live, terminal = typed_table()
    for line in ("/roles d4 m2 m7 s6", "<80>", "выставляю седьмого спасибо", "выставляю третьего спасибо",
                 *["/next"] * 8):
        terminal.handle(line)
    until(live, Phase.TALLY)  # the clock alone brings the tally: nothing typed since
    assert terminal.out.getvalue().splitlines()[-1] == "> Введите голоса: /votes 7=N 3=N (последнему — остаток)"


def test_status_at_night_drops_the_days_nominees():
    live, terminal = typed_table()
    for line in ("/roles d4 m2 m7 s6", "<80>", "выставляю седьмого спасибо"):
        terminal.handle(line)
    assert "выставлены 7" in status(live)
    for line in ["/next"] * 9:  # a lone nominee on day 1: no vote, the night comes
        terminal.handle(line)
    until(live, Phase.HUNT)
    assert live.game.phase is Phase.HUNT and live.game.today == [7]
    assert status(live) == "· ночь 2 · мафия стреляет (/shot)"


def test_forbidden_words_are_suggested_to_the_host_in_the_tables_language():
    for ruleset, line in (("4mafia", "? игрок 1: «клянусь» — дисквалификация?"),
                          ("ua-club", "? гравець 1: «клянусь» — дискваліфікація?")):
        live, terminal = typed_table(ruleset)
        for typed in ("/roles d4 m2 m7 s6", "<80>", "клянусь"):
            terminal.handle(typed)
        assert any(printed.endswith(line) for printed in terminal.out.getvalue().splitlines()), ruleset


def test_roles_naming_a_seat_twice():
    with pytest.raises(InputError, match="место 4 названо дважды"):
        parse_roles("d4 m4 s6")


def test_private_answers_stay_off_the_terminal_while_a_page_serves_them():
    for show, seen in ((False, False), (True, True)):
        live, terminal = typed_table(show_private=show, page=True)
        for line in ("/roles d4 m2 m7 s6", "<80>"):
            terminal.handle(line)
        until(live, Phase.HUNT)
        terminal.handle("/shot 5")
        until(live, Phase.DON_CHECK)
        terminal.handle("/don 6")
        assert ("(только ведущему) Игрок номер 6 — Шериф" in terminal.out.getvalue()) is seen


def test_ukrainian_table_speaks_ukrainian_in_the_terminal():
    live, terminal = typed_table("ua-club")
    assert status(live) == "· чекаємо роздачу ролей (/roles або /deal)"
    with pytest.raises(InputError, match="Ролі: місце 4 названо двічі"):
        terminal.handle("/roles d4 m4 s6")
    with pytest.raises(InputError, match="Немає такої команди: /fly"):
        terminal.handle("/fly")


# ------------------------------------------------------------------ the process


def test_ctrl_c_ends_a_typed_game_at_once(tmp_path):
    table = Process("--journal", str(tmp_path / "j.jsonl"), cwd=tmp_path)
    table.wait_for("· ждём раздачу")
    table.send("/roles d4 m2 m7 s6")
    table.wait_for("· ночь 1")
    table.proc.send_signal(signal.SIGINT)  # stdin stays open: nothing else would end the read
    code, out, err = table.end()
    assert code == 130 and err == ""
    assert "Остановлено (Ctrl-C)" in out and f"Журнал: {tmp_path / 'j.jsonl'}" in out
    assert replay(tmp_path / "j.jsonl")[0].phase is not Phase.SETUP


def test_the_game_clock_starts_at_the_deal(tmp_path):
    table = Process("--journal", str(tmp_path / "j.jsonl"), cwd=tmp_path)
    table.wait_for("· ждём раздачу")
    table.send("/foul 3")  # refused before the deal, and it moves no clock
    table.wait_for("! ")
    time.sleep(1.5)  # the host takes a while to deal
    table.send("/roles d4 m2 m7 s6")
    table.wait_for("· ночь 1")
    table.send("/quit")
    assert table.end()[0] == 0
    entries = [json.loads(line) for line in (tmp_path / "j.jsonl").read_text("utf-8").splitlines()[1:]]
    assert entries[0]["event"]["type"] == "setup" and entries[0]["t"] == 0.0


def test_a_port_in_use_is_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--serve",
                               "--port", str(port), "--journal", str(tmp_path / "j.jsonl")],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                              cwd=tmp_path, env={**os.environ, "HOME": str(tmp_path)})
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert f":{port}" in line and "--port" in line and "never awaited" not in proc.stderr
    assert not (tmp_path / "j.jsonl").exists()


def test_no_speaker_is_told_to_the_host_in_the_table_language(tmp_path, monkeypatch):
    """A table without a sound card plays on in print, and the host reads why
    in Russian (the device's English reason goes to the log only)."""
    import voicehost.live.parts as parts

    def no_device(*_args, **_kwargs):
        raise AudioError("no output device named 'x'")

    monkeypatch.setattr(parts, "SpeakerSink", no_device)
    journal = tmp_path / "game.jsonl"
    args = build_parser().parse_args(["run", "--text", "--journal", str(journal)])
    out = io.StringIO()
    assert run(args, out, io.StringIO("/quit\n")) == 0
    first = out.getvalue().splitlines()[0]
    assert first.startswith("Динамик не найден") and "no output device" not in out.getvalue()
