"""The parts of a live game built from the settings: the voice, the speaker
and earpiece, the journal (new, or resumed), and the live table with them."""
from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from voicehost.audio import AudioError, Sink, SpeakerSink, WavFileSink
from voicehost.config import Config
from voicehost.journal.lines import TornHeader
from voicehost.journal.writer import torn_header_at
from voicehost.live.clock import Clock, GameClock
from voicehost.live.speaking import prerender, supervised_speaker
from voicehost.live.table import LiveTable, open_table
from voicehost.live.texts import live_texts
from voicehost.paths import program
from voicehost.rules import RuleOptions
from voicehost.tts import EspeakVoice, Voice, VoiceError, open_voice

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
    show_private: bool = False
    series: str | None = None
    trust_unkeyed: bool = False   # --resume an unkeyed journal (versions 3, 4), trusting the file
    qr: bool = True               # the pairing link's QR code in the terminal (--no-qr)
    out: TextIO = field(default=sys.stdout)
    # What else the host typed that a resume needs as it was: --config, --ruleset, --set.
    settings: tuple[str, ...] = ()

    @property
    def page(self) -> bool:
        return self.serve or self.lan



def _voice(config: Config, rules: RuleOptions, options: RunOptions, mute: bool) -> Voice | None:
    if mute:
        return None
    try:
        voice = open_voice(config.voice_file(rules.language), config.tts.espeak_voice or rules.language)
    except VoiceError as exc:
        log.info("%s: announcements are printed only", exc)
        options.out.write(live_texts(rules.phrasebook).text("no_voice", program=program()) + "\n")
        return None
    if isinstance(voice, EspeakVoice):   # the Piper voice is missing or broken: the host hears why it sounds so
        line = live_texts(rules.phrasebook).text("voice_fallback", path=config.voice_file(rules.language),
                                                     program=program())
        options.out.write(line + "\n")
    return voice


def _sinks(config: Config, rules: RuleOptions, options: RunOptions) -> tuple[Sink | None, Sink | None]:
    """The table speaker and the earpiece; without a speaker the game goes on in print."""
    if options.record:
        return WavFileSink(options.record), None
    if options.mute:
        return None, None
    try:
        table = SpeakerSink(config.audio.table_device or None)
    except AudioError as exc:
        log.info("%s; announcements are printed only", exc)
        options.out.write(live_texts(rules.phrasebook).text("no_speaker") + "\n")
        return None, None
    earpiece = SpeakerSink(config.audio.earpiece_device) if config.audio.earpiece_device else None
    return table, earpiece


def build(config: Config, rules: RuleOptions, options: RunOptions, clock: Clock, *,
          lag: float = 0.0) -> tuple[LiveTable, bool]:
    """The live table for these settings; True when it goes on from a journal."""
    table_sink, earpiece = _sinks(config, rules, options)
    voice = _voice(config, rules, options, table_sink is None)
    journal = options.resume or options.journal or (
        config.path(config.journal_dir) / time.strftime("game-%Y%m%d-%H%M%S.jsonl"))
    resume = options.resume is not None
    try:
        game, writer, entries, _ = open_table(rules, journal, resume=resume, trust_unkeyed=options.trust_unkeyed)
    except TornHeader:   # nothing was played: the game starts anew in that file
        resume = False
        game, writer, entries, _ = open_table(rules, journal, resume=False)
        options.out.write(live_texts(rules.phrasebook).text("header_torn", path=journal) + "\n")
    else:
        if not resume and torn_header_at(journal):
            options.out.write(live_texts(rules.phrasebook).text("header_torn", path=journal) + "\n")
    if resume:
        clock.skip_to(game.now + lag)
    speaker = None
    if voice is not None and table_sink is not None:
        speaker = supervised_speaker(voice, table_sink, earpiece, clock, lag=lag, tail=config.tts.echo_tail,
                                     realtime=isinstance(clock, GameClock))
        prerender(speaker, game, config.path("models/.phrase-cache"), tell=_tell_prerendering(rules, options))
    live = LiveTable(game, clock, speaker, journal=writer, entries=entries, lag=lag)
    return live, resume


def _tell_prerendering(rules: RuleOptions, options: RunOptions) -> Callable[[int], None]:
    """The first start with a voice renders every fixed line: the host is told why it takes a while."""
    def tell(count: int) -> None:
        options.out.write(live_texts(rules.phrasebook).text("prerendering", count=count) + "\n")
        options.out.flush()
    return tell
