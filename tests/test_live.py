"""The live table: clock, echo guard, typed play, journal with resume."""
from __future__ import annotations

import pytest

from tests.conftest import ROLES, until
from tests.fakes import FakeSink, FakeVoice
from voicehost.errors import InputError
from voicehost.game.model import Phase
from voicehost.game.moderator import Moderator
from voicehost.journal import Table
from voicehost.live import AudioClock, LiveTable, fixed_phrases
from voicehost.live.commands import parse_command, parse_roles
from voicehost.live.playback import Speaker
from voicehost.live.terminal import handle_line, status
from voicehost.phrases.words import Word
from voicehost.rules import rules_for


def live_table(speaker_sinks=None) -> LiveTable:
    clock = AudioClock()
    game = Moderator.for_rules(rules_for("4mafia"))
    speaker = None
    if speaker_sinks is not None:
        speaker = Speaker(FakeVoice(seconds=1.0), speaker_sinks[0], speaker_sinks[1], clock.now)
    live = LiveTable(Table(game), clock, speaker)
    live.apply_json({"type": "setup", "roles": ROLES})
    return live


def to_first_speech(live: LiveTable) -> None:
    live.clock.skip_to(80.0)
    live.tick()
    assert live.game.floor.seat == 1


def test_own_thanks_fed_back_is_ignored():
    table = FakeSink()
    live = live_table((table, None))
    to_first_speech(live)
    live.speaker.wait()
    said = live.speaker.spoken[-1]
    assert said.text == "Слово игроку номер 1"
    # The moderator's own words come back through the microphone while it speaks.
    echo = Word("спасибо", said.start + 0.2, said.start + 0.6)
    live.hear([echo])
    assert live.game.floor.seat == 1 and live.echoes == 1
    # Within the 300 ms tail: still ours.
    tail = said.start + said.seconds + 0.25
    live.hear([Word("спасибо", tail, tail + 0.3)])
    assert live.game.floor.seat == 1 and live.echoes == 2
    # The player's own "спасибо" afterwards ends the speech.
    later = said.start + said.seconds + 1.0
    live.clock.skip_to(later + 0.4)
    live.hear([Word("спасибо", later, later + 0.4)])
    assert live.game.floor.seat == 2
    live.speaker.close()


def test_private_answers_go_to_the_earpiece_only():
    table, earpiece = FakeSink(), FakeSink()
    live = live_table((table, earpiece))
    until(live, Phase.HUNT)  # day 1 runs out to the night-2 hunt
    live.apply_json({"type": "shot", "seat": 5})
    until(live, Phase.DON_CHECK)
    live.apply_json({"type": "don_check", "seat": 6})
    live.speaker.wait()
    private = [s for s in live.speaker.spoken if s.private]
    assert [s.text for s in private] == ["Игрок номер 6 — Шериф"]
    assert len(earpiece.clips) == 1
    live.speaker.close()


def test_private_answers_without_earpiece_are_not_spoken():
    table = FakeSink()
    live = live_table((table, None))
    until(live, Phase.HUNT)
    live.apply_json({"type": "shot", "seat": 5})
    until(live, Phase.DON_CHECK)
    outputs = live.apply_json({"type": "don_check", "seat": 6})
    assert any(o.private for o in outputs)  # still an output, for the host's page
    live.speaker.wait()
    assert not [s for s in live.speaker.spoken if s.private]
    live.speaker.close()


def test_fixed_phrases_cover_the_frequent_answers():
    game = Moderator.for_rules(rules_for("4mafia"))
    phrases = fixed_phrases(game)
    assert {"Десять секунд", "Принят номер 7", "Слово игроку номер 10", "Спасибо"} <= set(phrases)
    assert not [p for p in phrases if "{" in p]


def test_typed_lines_and_commands():
    live = live_table()
    with pytest.raises(InputError, match="Сейчас никто не говорит"):
        handle_line(live, "выставляю семь")
    handle_line(live, "<80>")
    handle_line(live, "выставляю седьмого спасибо")
    assert live.game.today == [7] and live.game.floor.seat == 2
    assert "выставлены 7" in status(live)
    handle_line(live, "/next")
    assert live.game.floor.seat == 3
    assert handle_line(live, "/state") == "state"


@pytest.mark.parametrize("line,event", [
    ("/votes 7=4 3=2", {"type": "votes", "counts": {"7": 4, "3": 2}}),
    ("/votes 7:4", {"type": "votes", "counts": {"7": 4}}),
    ("/lift 6", {"type": "lift_votes", "count": 6}),
    ("/shot -", {"type": "shot", "seat": None}),
    ("/shot 5", {"type": "shot", "seat": 5}),
    ("/don 4", {"type": "don_check", "seat": 4}),
    ("/best 2 5 9", {"type": "best_move", "seats": [2, 5, 9]}),
    ("/dq 6", {"type": "disqualify", "seat": 6}),
    ("/pause", {"type": "pause"}),
    ("/candidates 2 8", {"type": "candidates", "seats": [2, 8]}),
    ("/visit -", {"type": "visit", "seat": None}),
    ("/check 4", {"type": "commissar_check", "seat": 4}),
])
def test_host_commands(line, event):
    assert parse_command(line) == event


@pytest.mark.parametrize("line,message", [
    ("/votes 7", "Голоса: «7» — не НОМЕР=ГОЛОСА"), ("/lift", "Подъём: нужно одно число"),
    ("/shot x", "/shot: «x» — не номер игрока"), ("/fly 3", "Нет такой команды: /fly"),
    ("/foul", "/foul: нужен один номер игрока"), ("/shot ²", "/shot: «²» — не номер игрока"),
    ("/votes ٣=3", "Голоса: «٣=3»"), ("/lift 99999", "Подъём: нужно одно число"),
    ("/names Алиса", "Имена: пишите НОМЕР=ИМЯ"),
])
def test_bad_host_commands(line, message):
    with pytest.raises(InputError, match=message):
        parse_command(line)


def test_roles_spec():
    roles = parse_roles("d4,m2 m7 s6")
    assert roles == ROLES
    city = parse_roles("players=9 mafia=2 commissar=6 doctor=5 maniac=9")
    assert len(city) == 9 and city["9"] == "maniac" and city["1"] == "citizen"
    with pytest.raises(InputError, match="места 9 нет за столом на 8"):
        parse_roles("players=8 mafia=9")
    with pytest.raises(InputError, match="не буква роли"):
        parse_roles("x4")


def test_recorded_game_schedules_speech_in_game_time():
    """On an audio clock that runs ahead, playback is placed at the decision
    (or after the previous answer), so the echo guard covers the right span."""
    clock = AudioClock(500.0)  # the file reader is far ahead of the speaker
    speaker = Speaker(FakeVoice(seconds=1.0), FakeSink(), None, clock.now, realtime=False)
    speaker.say("Слово игроку номер 1", at=80.0)
    speaker.say("Десять секунд", at=80.5)
    speaker.wait()
    speaker.close()
    assert [(s.start, s.seconds) for s in speaker.spoken] == [(80.0, 1.0), (81.0, 1.0)]
    assert speaker.is_echo(81.5, 81.8) and not speaker.is_echo(90.0, 90.3)


def test_train_typed_explains_each_phrase(capsys):
    import subprocess
    import sys

    lines = "выставляю пожалуй седьмого\nвыставляю <12> седьмого\nвыставляю седьмого\nсемь\n\n"
    proc = subprocess.run([sys.executable, "-m", "voicehost", "train", "--text", "--mute"], input=lines,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    verdicts = proc.stdout.splitlines()[1:]
    assert verdicts == ["Не принято: лишнее слово «пожалуй» между «выставляю» и номером",
                        "Не принято: пауза 12 секунд — больше 10",
                        "Принят номер 7",
                        "Номинации не было: скажите «выставляю» и номер игрока"]


def test_summary_names_every_kind_of_winner():
    from voicehost.game.moderator import new_game
    from voicehost.session import summary

    live = LiveTable(Table(new_game(rules_for("city"))), AudioClock())
    live.apply_json({"type": "setup", "roles": {"1": "mafia", "2": "commissar",
                                                **{str(s): "citizen" for s in range(3, 9)}}})
    until(live, Phase.CANDIDATES)
    live.apply_json({"type": "candidates", "seats": [1]})
    assert summary(live).startswith("Стоп игра. Победа города; ")
    sports = live_table()
    assert summary(sports).startswith("игра не окончена; ")
