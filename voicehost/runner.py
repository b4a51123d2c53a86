"""Wiring for `voicehost run` and `voicehost train` (the parts live in session.py)."""
from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import threading
from typing import TextIO

from voicehost.asr import model_problem
from voicehost.audio import MicrophoneSource, WavFileSource
from voicehost.config import Config, default_config_path, load_config
from voicehost.game.variants.base import variant_for
from voicehost.live import AudioClock, GameClock
from voicehost.rules import RuleOptions, parse_set
from voicehost.session import (
    HostScript,
    RunOptions,
    build,
    deal_from_options,
    finish,
    print_outputs,
    recognizer_for,
    run_audio,
    run_typed,
    summary,
)


def _settings(args: argparse.Namespace) -> tuple[Config, RuleOptions]:
    config = load_config(args.config or default_config_path())
    return config, config.rules(args.ruleset, parse_set(args.overrides))


def _options(args: argparse.Namespace, out: TextIO) -> RunOptions:
    return RunOptions(text=args.text, audio_file=args.audio_file, host_script=args.host_script,
                      journal=args.journal, resume=args.resume, record=args.record,
                      protocol=args.protocol, roles=args.roles, mute=args.mute, serve=args.serve,
                      lan=args.lan, port=args.port, out=out)


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    config, rules = _settings(args)
    options = _options(args, out)
    if options.audio_file:
        return _run_file(config, rules, options)
    if not options.text:
        problem = model_problem(config.path(config.asr.model))
        if problem is None:
            return _run_microphone(config, rules, options)
        out.write(f"{problem}. To play by voice, get a model with `voicehost models download`.\n"
                  f"Until then the game runs on typed input: each line is what the current speaker "
                  f"says, /help lists the host's commands.\n")
    return _run_typed(config, rules, options)


def _start(config: Config, rules: RuleOptions, options: RunOptions, clock, *, lag: float = 0.0):
    live, replayed = build(config, rules, options, clock)
    live.lag = lag
    live.listeners.append(print_outputs(options.out, live.game.book))
    if replayed:
        options.out.write(f"resumed {live.journal_path}: the game stands where it stopped\n")
    deal_from_options(live, options)
    return live


def _run_typed(config: Config, rules: RuleOptions, options: RunOptions) -> int:
    live = _start(config, rules, options, GameClock())
    try:
        asyncio.run(_serve_and(live, config, options, run_typed(live, options)))
    finally:
        finish(live, options)
    options.out.write(summary(live) + "\n")
    return 0


async def _serve_and(live, config: Config, options: RunOptions, main):
    """Run `main` with the companion page alongside, when asked for."""
    if not (options.serve or options.lan):
        return await main
    from voicehost.web.server import start_server

    runner = await start_server(live, config, lan=options.lan, port=options.port, out=options.out)
    try:
        return await main
    finally:
        await runner.cleanup()


def _run_file(config: Config, rules: RuleOptions, options: RunOptions) -> int:
    recognizer = recognizer_for(config, rules, options.out)
    source = WavFileSource(options.audio_file)
    host = HostScript(options.host_script, variant_for(rules).max_seat)
    clock = AudioClock()
    live = _start(config, rules, options, clock, lag=0.0)
    try:
        run_audio(live, source, recognizer, host, clock=clock)
    finally:
        source.close()
        finish(live, options)
    options.out.write(summary(live) + "\n")
    return 0


def _run_microphone(config: Config, rules: RuleOptions, options: RunOptions) -> int:
    recognizer = recognizer_for(config, rules, options.out)
    source = MicrophoneSource(config.audio.input_device or None)
    live = _start(config, rules, options, GameClock(), lag=config.asr.listen_lag)
    stop = threading.Event()
    listener = threading.Thread(target=run_audio, args=(live, source, recognizer, HostScript(None, 0)),
                                kwargs={"stop": stop}, name="microphone", daemon=True)
    listener.start()
    try:
        asyncio.run(_serve_and(live, config, options, run_typed(live, options)))
    finally:
        stop.set()
        source.close()
        listener.join(timeout=5)
        finish(live, options)
    options.out.write(summary(live) + "\n")
    return 0


def serve(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """The page for a game that a simulate script drove to where it stands;
    from there the game goes on live, on the real clock."""
    from voicehost.game.moderator import new_game
    from voicehost.journal import Journal, Table
    from voicehost.live import LiveTable
    from voicehost.simulate import load_script, simulate

    config, rules = _settings(args)
    journal = Journal(args.journal, rules, fsync=True) if args.journal else None
    table = Table(new_game(rules), journal)
    if args.script:
        lines, where = load_script(args.script)
        simulate(lines, rules, where, table)
    live = LiveTable(table, GameClock(start_at=table.game.now))
    live.listeners.append(print_outputs(out, live.game.book))
    try:
        asyncio.run(_serve_forever(live, config, args, out))
    except KeyboardInterrupt:
        pass
    finally:
        if journal:
            journal.close()
    return 0


async def _serve_forever(live, config: Config, args: argparse.Namespace, out: TextIO) -> None:
    from voicehost.web.server import start_server

    server = await start_server(live, config, lan=args.lan, port=args.port, out=out)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        while not stop.is_set():
            live.tick()
            try:
                await asyncio.wait_for(stop.wait(), timeout=0.05)
            except asyncio.TimeoutError:
                pass
    finally:
        await server.cleanup()


def train(args: argparse.Namespace, out: TextIO = sys.stdout, stdin: TextIO = sys.stdin) -> int:
    from voicehost.training import Trainer

    config, rules = _settings(args)
    trainer = Trainer(config, rules, out, mute=args.mute)
    try:
        if args.text or model_problem(config.path(config.asr.model)) is not None:
            if not args.text:
                out.write("no speech model yet (`voicehost models download`): type the phrases instead\n")
            trainer.typed(stdin)
        else:
            trainer.microphone(recognizer_for(config, rules, out),
                               MicrophoneSource(config.audio.input_device or None))
    finally:
        trainer.close()
    return 0
