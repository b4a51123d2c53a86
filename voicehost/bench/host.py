"""`voicehost bench latency`'s host line (SPEC §7.2): how long from the end
of a spoken host command to the first sample of its confirmation. The host's
channel is played in real time through the command recognizer and the live
table; the confirmation is the earpiece's "Ведущий: …" (or the table's
"Отмена: …" for an undo). The real model here is the Korean one, so Korean
stand-ins play the command words, as the latency fixture's do
(tools/latency_fixture.py): "라디오" пауза, "라모" продолжаем, "게임" фол,
"어제" seat 3, "버스" отмена."""
from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.audio import RATE, Clip
from voicehost.bench.source import source_tool
from voicehost.bench.stats import percentile
from voicehost.phrases.host import HostGrammar, load_host_grammar

if TYPE_CHECKING:
    from voicehost.asr.model_files import SpeechModel
    from voicehost.game.moderator import Moderator
    from voicehost.live import AudioClock, LiveTable
    from voicehost.live.hostvoice import HostVoice
    from voicehost.tts import Voice

# (stand-in words, what they say): pause, resume, a foul, its undo
COMMANDS = [("라디오", "пауза"), ("라모", "продолжаем"), ("게임 어제", "фол третьему"), ("버스", "отмена")]
ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen", "6": "sheriff", "7": "mafia",
         "8": "citizen", "9": "citizen", "10": "citizen"}
GAP = 3.0      # seconds from one command's start to the next
CHUNK = 0.1    # seconds of audio per chunk, as the microphone hands them over


def stand_in_grammar() -> HostGrammar:
    """The Russian host grammar with the stand-ins in place of its words."""
    ru = load_host_grammar("ru")
    controls = {**ru.controls, "pause": (("라디오",),), "resume": (("라모",),), "undo": (("버스",),)}
    return dataclasses.replace(ru, controls=controls, seat_commands={**ru.seat_commands, "foul": (("게임",),)},
                               seats={**ru.seats, "어제": 3})


def _audio(rounds: int) -> tuple[bytes, list[float]]:
    """Room noise with the commands in it, `rounds` times over; and where each command ends (audio seconds)."""
    import numpy as np

    espeak = source_tool("latency_fixture")._espeak
    said = [(espeak(text, 150), text) for text, _ in COMMANDS]
    count = rounds * len(said)
    samples = np.random.default_rng(7).normal(0, 30, int((count * GAP + 2.0) * RATE)).astype(np.float32)
    ends = []
    for index in range(count):
        voice = said[index % len(said)][0]
        at = int((1.0 + index * GAP) * RATE)
        samples[at:at + len(voice)] += voice
        ends.append((at + len(voice)) / RATE)
    return np.clip(samples, -32768, 32767).astype("<i2").tobytes(), ends


async def _play(live: LiveTable, voice: HostVoice, pcm: bytes, clock: AudioClock) -> float:
    """The host's channel, paced as a microphone hands it over; returns when it started."""
    step = int(RATE * CHUNK) * 2
    t0 = time.perf_counter()
    for index in range(0, len(pcm), step):
        pause = t0 + (index + step) / 2 / RATE - time.perf_counter()
        if pause > 0:
            await asyncio.sleep(pause)
        at = clock.now()
        clock.skip_to(30.0 + (index + step) / 2 / RATE)
        voice.audio(pcm[index:index + step], at)
        live.tick()
    await voice.settled()
    return t0


def host_command_latency(model: SpeechModel, voice_engine: Voice, game: Moderator, cache: Path,
                         rounds: int = 5) -> list[float]:
    """Seconds from each command's end to the first sample of its confirmation (earpiece or table)."""
    from voicehost.asr.commands import CommandRecognizer
    from voicehost.game.moderator import new_game
    from voicehost.journal import Table
    from voicehost.live import AudioClock, LiveTable
    from voicehost.live.hostvoice import HostVoice
    from voicehost.live.playback import Speaker
    from voicehost.live.speaking import prerender

    table, earpiece = _Sink(), _Sink()
    speaker = Speaker(voice_engine, table, earpiece, time.perf_counter)
    prerender(speaker, game, cache)
    grammar = stand_in_grammar()
    pcm, ends = _audio(rounds)
    clock = AudioClock(0.0)
    live = LiveTable(Table(new_game(game.rules)), clock, speaker)   # journaled from the deal: an undo rebuilds it
    live.apply_json({"type": "setup", "roles": ROLES})
    clock.skip_to(30.0)
    live.tick()
    voice = HostVoice(live, CommandRecognizer(model, grammar.words()), wake=False, grammar=grammar)
    voice.attach()

    async def run() -> float:
        live.bind(asyncio.get_running_loop())
        return await _play(live, voice, pcm, clock)

    t0 = asyncio.run(run())
    speaker.wait(30)
    played = sorted(at for at, _ in table.played + earpiece.played)
    speaker.close()
    got = []
    for end in ends:
        first = next((at for at in played if at >= t0 + end), None)
        if first is not None and first - (t0 + end) < GAP:
            got.append(first - (t0 + end))
    return got


def host_line(latencies: list[float], commands: int) -> str:
    """The bench's line: `host command -> confirmation: p50 X ms, p95 Y ms`, then how many were confirmed."""
    if not latencies:
        return f"host command -> confirmation: none of {commands} commands confirmed (target p50 <= 800 ms)"
    return (f"host command -> confirmation: p50 {1000 * percentile(latencies, 0.5):.0f} ms, "
            f"p95 {1000 * percentile(latencies, 0.95):.0f} ms ({len(latencies)} of {commands} commands confirmed: "
            f"the host's channel in real time, stand-ins {', '.join(f'{k} = {v}' for k, v in COMMANDS)}; "
            f"target p50 <= 800 ms)")


class _Sink:
    """Takes the audio as a device would, noting when each clip's first sample arrives."""

    def __init__(self) -> None:
        self.played: list[tuple[float, Clip]] = []

    def play(self, clip: Clip) -> None:
        self.played.append((time.perf_counter(), clip))

    def close(self) -> None:
        pass


__all__ = ["COMMANDS", "host_command_latency", "host_line", "stand_in_grammar"]
