"""`voicehost run`, `serve` and `train`: the parts of a live game built from
the settings, and one asyncio loop that owns the table, with one ticker, the
terminal, the page and the microphone's input pipeline around it."""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import logging
import shlex
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from voicehost.asr import model_problem
from voicehost.config import Config, load_settings
from voicehost.errors import InputError, VoicehostError
from voicehost.game.model import Phase
from voicehost.live.clock import AudioClock, GameClock
from voicehost.live.commands import parse_roles
from voicehost.live.evening import Evening
from voicehost.live.hostvoice import host_voice, model_of
from voicehost.live.parts import RunOptions, build
from voicehost.live.stdin import line_queue
from voicehost.live.table import LiveTable
from voicehost.live.terminal import Terminal, status
from voicehost.live.texts import live_texts
from voicehost.paths import program
from voicehost.phrasebook import load_phrasebook
from voicehost.refusals import RefuseKey
from voicehost.rules import RuleOptions

if TYPE_CHECKING:
    from voicehost.live.listening import Microphones
    from voicehost.web.evening import EveningPage
    from voicehost.web.server import PageServer

log = logging.getLogger(__name__)
TICK_SECONDS = 0.05
LIVE_MODULES = ("vosk", "pyaudio")   # the live extra: hearing the table


def settings(args: argparse.Namespace) -> tuple[Config, RuleOptions]:
    return load_settings(args.config, args.ruleset, args.overrides)   # the one loader of every command


def options_from(args: argparse.Namespace, out: TextIO) -> RunOptions:
    return RunOptions(text=args.text, audio_file=args.audio_file, host_script=args.host_script,
                      journal=args.journal, resume=args.resume, record=args.record,
                      protocol=args.protocol, roles=args.roles, mute=args.mute, serve=args.serve,
                      lan=args.lan, port=args.port, show_private=getattr(args, "show_private", False),
                      series=getattr(args, "series", None), out=out, settings=_settings_words(args),
                      trust_unkeyed=getattr(args, "trust_unkeyed", False), qr=_qr(args, out))


def _qr(args: argparse.Namespace, out: TextIO) -> bool:
    """The QR code's block characters only where someone looks at a terminal: not with
    --no-qr, nor typed play written to a file or a braille display's pipe."""
    if getattr(args, "no_qr", False):
        return False
    return not (args.text and not (hasattr(out, "isatty") and out.isatty()))


def _settings_words(args: argparse.Namespace) -> tuple[str, ...]:
    """The settings options as the host typed them, for the command that resumes."""
    words: list[str] = []
    if getattr(args, "config", None) is not None:
        words += ["--config", str(args.config)]
    if getattr(args, "ruleset", None):
        words += ["--ruleset", args.ruleset]
    for override in getattr(args, "overrides", None) or ():
        words += ["--set", override]
    return tuple(words)


def _deal_from_options(live: LiveTable, options: RunOptions) -> None:
    if options.roles and live.game.phase is Phase.SETUP:
        try:
            live.apply_json({"type": "setup", "roles": parse_roles(options.roles, live.texts)})
        except VoicehostError as exc:   # said as the terminal says it, in the table's language
            raise InputError(f"--roles: {live.game.book.refusal(exc)}") from None


def resume_command(journal: Path, options: RunOptions) -> str:
    """The command that goes on with this game, as the host would type it."""
    words = [shlex.quote(program()), "run", "--resume", shlex.quote(str(journal))]
    if options.series:   # an evening goes on with its series: the game the crash interrupted comes first
        words[2:] = ["--series", shlex.quote(options.series)]
    if options.text:
        words.append("--text")
    if options.mute:
        words.append("--mute")
    if options.serve or options.lan:
        words.append("--lan" if options.lan else "--serve")
    if options.port is not None:
        words += ["--port", str(options.port)]
    if options.show_private:
        words.append("--show-private")
    if options.protocol is not None and not options.series:
        words += ["--protocol", str(options.protocol)]
    if options.trust_unkeyed:
        words.append("--trust-unkeyed")
    return " ".join([*words, *map(shlex.quote, options.settings)])


def channels_file(record: Path | None) -> Path | None:
    """Where `--record OUT.wav` keeps every seat's channel: OUT.channels.wav."""
    return record.with_suffix(".channels.wav") if record is not None else None


def summary(live: LiveTable) -> str:
    result = live.game.result_text() or live.texts.text("not_over")
    parts = [result, status(live)[2:]]
    if live.journal is not None and live.journal.started:
        parts.append(live.texts.text("journal_at", path=live.journal_path))
    return "; ".join(parts)


async def keep_time(live: LiveTable, stop: asyncio.Event) -> None:
    """The one ticker: what the clock alone makes happen, every 50 ms."""
    while not stop.is_set():
        try:
            live.tick()
        except Exception:  # a bug in one tick must not stop the clock for the rest of the game
            log.exception("tick failed")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), TICK_SECONDS)


@contextlib.contextmanager
def _interrupts(stop: asyncio.Event) -> Iterator[None]:
    """Ctrl-C and SIGTERM end the session cleanly, wherever the loop is waiting."""
    loop = asyncio.get_running_loop()
    installed = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
            installed.append(signum)
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread
            pass
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


@contextlib.asynccontextmanager
async def _page(live: LiveTable, config: Config, options: RunOptions, shared: EveningPage | None = None,
                terminal: Terminal | None = None) -> AsyncIterator[PageServer | None]:
    if not options.page:
        yield None
        return
    if shared is not None:   # an evening's page: one server for all its games, closed by the evening
        yield await shared.attach(live, terminal.save if terminal is not None else (lambda: None))
        return
    from voicehost.web.server import start_server

    server = await start_server(live, config, lan=options.lan, port=options.port, out=options.out, qr=options.qr)
    try:
        yield server
    finally:
        await server.cleanup()


async def _finish(live: LiveTable) -> None:
    loop = asyncio.get_running_loop()
    await live.synced()   # the answers still on their way to the disk are said before the speaker stops
    if live.speaker is not None:
        await loop.run_in_executor(None, live.speaker.wait, 60)
        await loop.run_in_executor(None, live.speaker.close)
    await loop.run_in_executor(None, live.close)


# ------------------------------------------------------------------ run


def run(args: argparse.Namespace, out: TextIO = sys.stdout, stdin: TextIO = sys.stdin) -> int:
    config, rules = settings(args)
    options = options_from(args, out)
    if options.audio_file:
        return asyncio.run(_recording(config, rules, options))
    return asyncio.run(_live(config, rules, options, stdin, microphone=_microphone(config, rules, options)))


def live_missing() -> list[str]:
    """The live extra's modules this install lacks (a plain `pip install` or `[web]` only)."""
    return [name for name in LIVE_MODULES if importlib.util.find_spec(name) is None]


def _microphone(config: Config, rules: RuleOptions, options: RunOptions) -> bool:
    """Whether the game is heard: else it is typed, and the host reads why in the table's language."""
    if options.text:
        return False
    texts = live_texts(rules.phrasebook)
    missing = live_missing()
    if missing:
        log.info("no live extra (%s not installed): typed play", ", ".join(missing))
        options.out.write(texts.text("no_live_extra") + "\n")
        return False
    problem = model_problem(config.model_dir(rules.language))
    if problem:
        log.info("no speech model: %s", problem)
        options.out.write(texts.text("no_model", path=config.model_dir(rules.language), program=program()) + "\n")
        return False
    return True


async def _live(config: Config, rules: RuleOptions, options: RunOptions, stdin: TextIO, *,
                microphone: bool) -> int:
    """One game, or an evening's games one after another (--series), on one stdin."""
    from voicehost.live.listening import Microphones, recognizer_for

    recognizer = recognizer_for(config, rules, options.out) if microphone else None
    hearing: Microphones | None = None
    if recognizer is not None:  # the microphone before the speaker: a missing one is the one error
        try:
            hearing = Microphones.open(config, recognizer, channels_file(options.record))
        except VoicehostError:
            from voicehost.live.listening import close_recognizer

            close_recognizer(recognizer)
            raise
    evening = _evening(config, rules, options)
    lines, stop_reading = line_queue(stdin, asyncio.get_running_loop())
    stop = asyncio.Event()
    shared: EveningPage | None = None
    if evening is not None and options.page:   # the page stays up, and its phones paired, all evening
        from voicehost.web.evening import EveningPage

        shared = EveningPage(evening, config, lan=options.lan, port=options.port, out=options.out, lines=lines,
                             qr=options.qr)
    try:
        while True:
            if evening is not None:
                journal, resume = evening.next_journal()
                options.journal, options.resume = journal, (journal if resume else None)
            code, verdict = await _game(config, rules, options, lines, stop, hearing, evening, shared)
            if verdict != "new":
                return code
            options.roles = None  # the next game is dealt anew
    finally:
        if shared is not None:
            await shared.close()
        stop_reading()
        if hearing is not None:
            hearing.close()


def _evening(config: Config, rules: RuleOptions, options: RunOptions) -> Evening | None:
    if options.series is None:
        return None
    from voicehost.series.commands import refused, root
    from voicehost.series.store import Series

    try:
        series = Series.open(root(config), options.series)
    except InputError as exc:
        raise refused(exc, load_phrasebook(rules.phrasebook)) from None
    if series.ruleset != rules.name:
        raise InputError(load_phrasebook(rules.phrasebook).refusal(InputError(
            "", key=RefuseKey.SERIES_RULESET, values={"word": rules.name, "input": series.ruleset})))
    return Evening(series, live_texts(rules.phrasebook))


async def _game(config: Config, rules: RuleOptions, options: RunOptions, lines: asyncio.Queue[str | None],
                stop: asyncio.Event, hearing: Microphones | None, evening: Evening | None,
                shared: EveningPage | None = None) -> tuple[int, str | None]:
    clock = GameClock()
    live, resumed = build(config, rules, options, clock, lag=config.asr.listen_lag if hearing else 0.0)
    live.bind(asyncio.get_running_loop())
    terminal = Terminal(live, options.out, show_private=options.show_private or not options.page,
                        page=options.page, protocol=None if evening else options.protocol, evening=evening)
    if resumed:
        terminal.write(live.texts.text("resumed", path=live.journal_path))
        opened = live.journal.journal if live.journal is not None else None
        if opened is not None and opened.cut:  # a torn write or garbage after the last whole line
            terminal.write(live.texts.text("resumed_cut", count=opened.cut))
    if evening is not None and not resumed:
        terminal.write(live.texts.text("evening_start", count=len(evening.series.game_files()) + 1,
                                       name=evening.series.name))
    hearing_stopped = False
    voice = host_voice(config, live, model_of(hearing.recognizer)) if hearing is not None else None
    microphone: asyncio.Task[None] | None = None
    verdict = None
    try:
        _deal_from_options(live, options)
        if evening is not None and resumed and live.over:   # it ended before the crash filed it
            terminal.save()
        with _interrupts(stop):
            async with _page(live, config, options, shared, terminal):
                if resumed:   # the table hears it is back, and the game waits, paused, for the host
                    live.restore()
                ticker = asyncio.create_task(keep_time(live, stop), name="ticker")
                if hearing is not None:
                    microphone = asyncio.create_task(hearing.listen(live, clock, lambda: hearing_stopped),
                                                     name="microphone")
                try:
                    verdict = await terminal.play(lines, stop)
                finally:
                    interrupted = stop.is_set()
                    stop.set()
                    await ticker
                    stop.clear()
    finally:
        hearing_stopped = True
        if microphone is not None:   # it stops after the chunk it is reading (40 ms)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(microphone), 5)
        if voice is not None:
            await voice.settled()
        await _finish(live)
    if interrupted:
        terminal.write(live.texts.text("interrupted"))
        verdict = None
    if verdict != "new":
        terminal.goodbye()
        if live.journal is not None and live.journal.started and not live.over:
            terminal.write(live.texts.text("resume_hint", command=resume_command(live.journal.path, options)))
        options.out.write(summary(live) + "\n")
    return 1 if live.failure else (130 if interrupted else 0), verdict


async def _recording(config: Config, rules: RuleOptions, options: RunOptions) -> int:
    from voicehost.audio import WavFileChannels, WavFileSource
    from voicehost.game.variants import variant_for
    from voicehost.live.listening import (
        HostScript,
        array_map,
        play_channels,
        play_recording,
        recognizer_for,
        voices_for,
    )

    recognizer = recognizer_for(config, rules, options.out)
    assert options.audio_file is not None
    channels = array_map(config) or config.audio.channels
    source = WavFileChannels(options.audio_file, channels) if channels.on else WavFileSource(options.audio_file)
    host = HostScript(options.host_script, variant_for(rules).max_seat)
    clock = AudioClock()
    live, _ = build(config, rules, options, clock)
    live.bind(asyncio.get_running_loop())
    terminal = Terminal(live, options.out, protocol=options.protocol)
    terminal.asked = True  # nobody to ask: a recording has no host at the keyboard
    voice = host_voice(config, live, model_of(recognizer))   # the host's spoken commands, if any
    try:
        _deal_from_options(live, options)
        if isinstance(source, WavFileChannels):
            await play_channels(live, source, recognizer, host, clock, voices_for(config))
        else:
            await play_recording(live, source, recognizer, host, clock)
        if voice is not None:
            voice.finish(live.game.now)
    finally:
        source.close()
        if voice is not None:
            await voice.settled()
        await _finish(live)
    terminal.goodbye()
    options.out.write(summary(live) + "\n")
    return 1 if live.failure else 0


# ------------------------------------------------------------------ serve


def serve(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """The page for a game that a simulate script drove to where it stands;
    from there the game goes on live, on the real clock."""
    from voicehost.game.moderator import new_game
    from voicehost.journal import Journal, Table
    from voicehost.simulate import load_script, simulate

    config, rules = settings(args)
    journal = Journal(args.journal, rules, fsync=True) if args.journal else None
    table = Table(new_game(rules), journal)
    if args.script:
        lines, where = load_script(args.script)
        simulate(lines, rules, where, table)
    live = LiveTable(table, GameClock(start_at=table.game.now))
    Terminal(live, out, show_private=False, page=True)
    try:
        asyncio.run(_serve_forever(live, config, args, out))
    finally:
        live.close()
    return 0


async def _serve_forever(live: LiveTable, config: Config, args: argparse.Namespace, out: TextIO) -> None:
    live.bind(asyncio.get_running_loop())
    options = RunOptions(serve=True, lan=args.lan, port=args.port, out=out, qr=not args.no_qr)
    stop = asyncio.Event()
    with _interrupts(stop):
        async with _page(live, config, options):
            await keep_time(live, stop)


# ------------------------------------------------------------------ train


def train(args: argparse.Namespace, out: TextIO = sys.stdout, stdin: TextIO = sys.stdin) -> int:
    from voicehost.live.training import Trainer

    config, rules = settings(args)
    trainer = Trainer(config, rules, out, mute=args.mute)
    try:
        missing = [] if args.text else live_missing()
        if args.text or missing or model_problem(config.model_dir(rules.language)) is not None:
            if not args.text:
                key = "train_no_live" if missing else "train_no_model"
                out.write(live_texts(rules.phrasebook).text(key, program=program()) + "\n")
            trainer.typed(stdin)
        else:
            from voicehost.audio import MicrophoneSource
            from voicehost.live.listening import recognizer_for

            trainer.microphone(recognizer_for(config, rules, out),
                               MicrophoneSource(config.audio.input_device or None))
    finally:
        trainer.close()
    return 0
