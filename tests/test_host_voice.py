"""SPEC §7.2 at a live table: the host's utterances (from a stand-in command
recognizer, named as a fake) become inputs, said back privately on the host's
channel and aloud behind a wake word, where "отмена" within 10 s takes a
command back and a disqualification waits for "подтверждаю"."""
from __future__ import annotations

import asyncio

from tests.conftest import ROLES, async_wait_for, run_async
from tests.fakes import FakeSpeaker
from voicehost.game.moderator import Moderator
from voicehost.journal import Table
from voicehost.live import AudioClock, LiveTable
from voicehost.live.hostvoice import HostVoice
from voicehost.rules import rules_for


class FakeCommands:
    """A stand-in command recognizer: each chunk is an utterance's words (or b"" for none)."""

    def accept(self, pcm):
        return pcm.decode("utf-8").split() if pcm else None

    def partial(self):
        return []

    def finish(self):
        return []


def table(*, wake: bool, ruleset: str = "4mafia") -> tuple[LiveTable, HostVoice, FakeSpeaker]:
    speaker = FakeSpeaker()
    live = LiveTable(Table(Moderator.for_rules(rules_for(ruleset))), AudioClock(), speaker)
    live.apply_json({"type": "setup", "roles": ROLES})
    voice = HostVoice(live, FakeCommands(), wake=wake)
    voice.attach()
    return live, voice, speaker


def hear(live: LiveTable, text: str, at: float) -> None:
    live.clock.skip_to(at + live.lag)
    live.tick()
    live.hearing.host_audio(text.encode("utf-8"), at)


def test_a_command_on_the_host_channel_is_applied_and_confirmed_privately():
    live, _, speaker = table(wake=False)
    hear(live, "фол третьему", 5.0)
    assert live.game.fouls[3] == 1
    assert ("Ведущий: фол игроку 3", True) in speaker.lines
    heard = [e.event for e in live.entries if "heard" in e.event]
    assert heard == [{"type": "foul", "seat": 3, "heard": ["фол третьему"]}]


def test_a_refused_command_goes_to_the_earpiece_and_changes_nothing():
    live, _, speaker = table(wake=False)
    entries = len(live.entries)
    hear(live, "выстрел пятому", 5.0)
    hear(live, "за седьмого четыре", 6.0)
    assert len(live.entries) == entries
    assert ("Ночные действия голосом не принимаются: их услышал бы стол", True) in speaker.lines
    assert any(private and text.startswith("Ввод «голоса» сейчас не подходит") for text, private in speaker.lines)


def test_behind_the_wake_word_only_and_said_back_aloud():
    live, _, speaker = table(wake=True)
    hear(live, "фол третьему", 5.0)
    assert live.game.fouls[3] == 0 and not any("Ведущий" in text for text, _ in speaker.lines)
    hear(live, "ведущий фол третьему", 6.0)
    assert live.game.fouls[3] == 1
    assert ("Ведущий: фол игроку 3", False) in speaker.lines


def test_otmena_within_ten_seconds_takes_a_wake_word_command_back():
    live, voice, speaker = table(wake=True)

    async def scenario():
        live.bind(asyncio.get_running_loop())
        hear(live, "ведущий фол третьему", 5.0)
        hear(live, "отмена", 12.0)
        await voice.settled()
        await async_wait_for(lambda: live.game.fouls[3] == 0)
        hear(live, "ведущий фол седьмому", 20.0)
        hear(live, "отмена", 31.0)   # too late without the wake word: table talk
        await voice.settled()

    run_async(scenario())
    assert live.game.fouls[3] == 0 and live.game.fouls[7] == 1
    assert ("Отмена: фол игроку 3", False) in speaker.lines


def test_a_disqualification_waits_for_its_confirmation():
    live, _, speaker = table(wake=True)
    hear(live, "ведущий дисквалификация 6", 5.0)
    assert 6 in live.game.alive
    assert ("Ведущий: дисквалификация игрока 6? Скажите «подтверждаю»", False) in speaker.lines
    hear(live, "подтверждаю", 9.0)
    assert 6 not in live.game.alive
    hear(live, "ведущий дисквалификация 8", 20.0)
    hear(live, "ведущий подтверждаю", 31.0)   # more than 10 s later
    assert 8 in live.game.alive
    assert ("Подтверждать нечего", True) in speaker.lines


def test_ukrainian_commands_and_refusals_at_a_ua_club_table():
    live, _, speaker = table(wake=False, ruleset="ua-club")
    hear(live, "фол третьому", 5.0)
    hear(live, "постріл п'ятому", 6.0)
    assert live.game.fouls[3] == 1
    assert ("Ведучий: фол гравцю 3", True) in speaker.lines
    assert ("Нічні дії голосом не приймаються: їх почув би стіл", True) in speaker.lines


class FakePartials:
    """A stand-in command recognizer: per chunk, the next (partial words, final words or None)."""

    def __init__(self, chunks) -> None:
        self.chunks = list(chunks)
        self.now: list[str] = []

    def accept(self, pcm):
        self.now, final = self.chunks.pop(0)
        return final

    def partial(self):
        return self.now

    def finish(self):
        return []


def test_a_command_nothing_can_extend_is_taken_from_partials_once_and_a_tally_waits_for_its_end():
    speaker = FakeSpeaker()
    live = LiveTable(Table(Moderator.for_rules(rules_for("4mafia"))), AudioClock(), speaker)
    live.apply_json({"type": "setup", "roles": ROLES})
    chunks = [(["фол"], None), (["фол", "третьему"], None), (["фол", "третьему"], None),
              ([], ["фол", "третьему"]),   # the utterance's end: already taken, not applied again
              (["за", "седьмого", "четыре"], None), (["за", "седьмого", "четыре"], None)]
    voice = HostVoice(live, FakePartials(chunks), wake=False)
    voice.attach()
    for index in range(len(chunks)):
        live.hearing.host_audio(b"\0" * 3200, 1.0 + index * 0.1)
        if index == 1:
            assert live.game.fouls[3] == 0, "a partial is taken only once it stood for a chunk"
        if index == 2:
            assert live.game.fouls[3] == 1
    assert live.game.fouls[3] == 1
    assert not any("голоса" in text for text, _ in speaker.lines), "a tally is never taken from partials"


class SilentRecognizer:
    """A stand-in table recognizer that hears no rule word in any chunk."""

    audio_time = 0.0

    def accept(self, chunk):
        self.audio_time += 0.1
        return []

    def finish(self):
        return []


def test_one_microphone_feeds_the_wake_word_commands_through_the_pipeline():
    from voicehost.live.pipeline import Timing, hear_audio

    live, voice, speaker = table(wake=True)
    said = ["ведущий фол седьмому", "", "фол третьему", "ведущий пауза"]

    async def scenario():
        live.bind(asyncio.get_running_loop())
        await hear_audio(live, iter([text.encode("utf-8") for text in said]), SilentRecognizer(),
                         Timing(offset=lambda: 30.0))

    run_async(scenario())
    assert live.game.fouls[7] == 1 and live.game.fouls[3] == 0 and live.game.paused_at is not None
    assert ("Ведущий: фол игроку 7", False) in speaker.lines and ("Ведущий: пауза", False) in speaker.lines
