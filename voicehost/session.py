"""`voicehost run` and `voicehost train`: building the parts of a live table
from the settings and running it, typed or from audio."""
from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, TextIO

from voicehost.asr import AsrError, Recognizer, VoskRecognizer, grammar_phrases, load_model, model_problem
from voicehost.audio import AudioError, Clip, Sink, Source, SpeakerSink, WavFileSink
from voicehost.config import Config
from voicehost.errors import InputError, VoicehostError
from voicehost.game.events import parse_event
from voicehost.game.model import Phase
from voicehost.game.protocol import protocol_text
from voicehost.live import AudioClock, GameClock, LiveTable, fixed_phrases, open_table
from voicehost.rules import RuleOptions
from voicehost.tts import Speaker, Voice, VoiceError, open_voice
from voicehost.typed import HELP, format_output, handle_line, parse_roles, status

log = logging.getLogger(__name__)


@dataclass
class RunOptions:
    text: bool = False
    audio_file: Path | None = None
    host_script: Path | None = None
    journal: Path | None = None
    resume: Path | None = None
    record: Path | None = None
    protocol: Path | None = None
    roles: str | None = None
    mute: bool = False
    serve: bool = False
    lan: bool = False
    port: int | None = None
    out: TextIO = field(default=sys.stdout)


def _voice(config: Config, rules: RuleOptions, mute: bool) -> Voice | None:
    if mute:
        return None
    try:
        return open_voice(config.path(config.tts.voice), config.tts.espeak_voice or rules.language)
    except VoiceError as exc:
        log.warning("%s: announcements are printed only", exc)
        return None


def _sinks(config: Config, options: RunOptions) -> tuple[Sink | None, Sink | None]:
    """The table speaker and the earpiece; without a speaker the game goes on in print."""
    if options.record:
        return WavFileSink(options.record), None
    if options.mute:
        return None, None
    try:
        table = SpeakerSink(config.audio.table_device or None)
    except AudioError as exc:
        log.warning("%s; announcements are printed only", exc)
        return None, None
    earpiece = SpeakerSink(config.audio.earpiece_device) if config.audio.earpiece_device else None
    return table, earpiece


def build(config: Config, rules: RuleOptions, options: RunOptions, clock) -> tuple[LiveTable, list]:
    table_sink, earpiece = _sinks(config, options)
    voice = _voice(config, rules, table_sink is None)
    journal = options.resume or options.journal or (
        config.path(config.journal_dir) / time.strftime("game-%Y%m%d-%H%M%S.jsonl"))
    table, replayed = open_table(rules, journal, resume=options.resume is not None)
    if options.resume:
        clock.skip_to(table.game.now)
    speaker = None
    if voice is not None and table_sink is not None:
        speaker = Speaker(voice, table_sink, earpiece, clock.now, tail=config.tts.echo_tail,
                          realtime=isinstance(clock, GameClock))
        speaker.prerender(fixed_phrases(table.game), config.path("models/.phrase-cache"))
    return LiveTable(table, clock, speaker), replayed


def print_outputs(out: TextIO):
    def listener(outputs) -> None:
        for output in outputs:
            out.write(format_output(output) + "\n")
        out.flush()
    return listener


def deal_from_options(live: LiveTable, options: RunOptions) -> None:
    if options.roles and live.game.phase is Phase.SETUP:
        live.apply_json({"type": "setup", "roles": parse_roles(options.roles)})


def finish(live: LiveTable, options: RunOptions) -> None:
    if live.speaker is not None:
        live.speaker.wait(60)
        live.speaker.close()
    live.table.journal.close()
    if options.protocol:
        options.protocol.write_text(protocol_text(live.game), "utf-8")


# ------------------------------------------------------------------- typed


async def _ticker(live: LiveTable, stop: asyncio.Event) -> None:
    try:
        while not stop.is_set():
            live.tick()
            await asyncio.sleep(0.05)
    except asyncio.CancelledError:
        pass


async def run_typed(live: LiveTable, options: RunOptions, stdin: TextIO = sys.stdin) -> int:
    out = options.out
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(live, stop), name="ticker")
    loop = asyncio.get_running_loop()
    out.write(f"journal: {live.journal_path}\n{status(live)}\n")
    out.flush()
    try:
        while True:
            line = await loop.run_in_executor(None, stdin.readline)
            if not line:
                break
            try:
                verdict = handle_line(live, line)
            except VoicehostError as exc:
                out.write(f"! {' '.join(str(exc).split())}\n")
                verdict = None
            if verdict == "quit":
                break
            if verdict == "help":
                out.write(HELP + "\n")
            out.write(status(live) + "\n")
            out.flush()
    finally:
        stop.set()
        await ticker
    return 0


# ------------------------------------------------------------------- audio


class HostScript:
    """Host inputs for a recorded game (tallies, shots, fouls), each applied
    as soon as the game reaches a point where it fits, as in simulate."""

    def __init__(self, path: Path | None, size: int) -> None:
        self.events = []
        if path is not None:
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                if line.strip():
                    try:
                        self.events.append(parse_event(json.loads(line), size))
                    except (json.JSONDecodeError, VoicehostError) as exc:
                        raise InputError(f"{path}:{number}: {exc}") from None

    def feed(self, live: LiveTable) -> None:
        while self.events and live.game.fits(self.events[0]):
            live.apply(self.events.pop(0))


def run_audio(live: LiveTable, source: Source, recognizer: Recognizer, host: HostScript,
              *, clock: AudioClock | None = None, stop: threading.Event | None = None) -> None:
    """Audio → recognizer → moderator; a recorded file drives the clock itself."""
    offset = live.game_now()
    host.feed(live)
    for chunk in source.chunks():
        if stop is not None and stop.is_set():
            break
        words = recognizer.accept(chunk)
        if clock is not None:
            clock.skip_to(offset + recognizer.audio_time)
        live.hear(w.shifted(offset) for w in words)
        live.tick()
        host.feed(live)
        if live.over:
            break
    live.hear(w.shifted(offset) for w in recognizer.finish())
    live.tick()


def recognizer_for(config: Config, rules: RuleOptions, out: TextIO) -> VoskRecognizer:
    model_dir = config.path(config.asr.model)
    problem = model_problem(model_dir)
    if problem:
        raise AsrError(f"{problem}: get it with `voicehost models download`, or play from the keyboard "
                       f"with `voicehost run --text`")
    model = load_model(model_dir, low_latency_cache=config.path("models/.low-latency")
                       if config.asr.low_latency else None, endpoint_seconds=config.asr.endpoint_ms / 1000)
    from voicehost.phrases.grammar import load_grammar

    phrases = grammar_phrases(load_grammar(rules.grammar))
    recognizer = VoskRecognizer(model, phrases=phrases if config.asr.mode == "grammar" else None,
                                stable_seconds=config.asr.stable_ms / 1000)
    recognizer.warm_up()
    missing = recognizer.missing(phrases)
    if missing:
        out.write(f"note: the speech model does not know {len(missing)} grammar word(s), which it can "
                  f"never hear: {', '.join(missing[:12])}{' …' if len(missing) > 12 else ''}\n")
    return recognizer


def chunks_of(clip: Clip, seconds: float = 0.1) -> Iterator[bytes]:
    step = int(clip.rate * seconds) * 2
    for i in range(0, len(clip.pcm), step):
        yield clip.pcm[i:i + step]


def summary(live: LiveTable) -> str:
    result = live.game.result_text() or "игра не окончена"
    return f"{result}; {status(live)[2:]}; journal: {live.journal_path}"
