"""Command line: argument parsing and wiring only."""
from __future__ import annotations

import argparse
import functools
import importlib.util
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from voicehost import __version__
from voicehost.config import load_settings
from voicehost.errors import InputError, VoicehostError
from voicehost.files import apart, input_file, journal_outputs, output_file, wav_file
from voicehost.rules import RuleOptions, preset_names


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _seats(text: str) -> list[int]:
    seats = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if not part.isascii() or not part.isdigit() or len(part) > 2 or not 1 <= int(part) <= 10:
            raise argparse.ArgumentTypeError(f"{part!r} is not a seat 1..10")
        seats.append(int(part))
    return seats


def _seat(text: str) -> int:
    seats = _seats(text)
    if len(seats) != 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seat 1..10")
    return seats[0]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number of seconds above 0")
    return value


def _whole(text: str) -> int:
    if not text.isascii() or not text.lstrip("-").isdigit() or len(text) > 18:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(text)


def _port(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 5 or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port 0..65535")
    return int(text)


def _rules_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ruleset", choices=preset_names(), default=None,
                        help="ruleset preset (default: the config's, else 4mafia)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one ruleset option, e.g. first_day_vote=none")
    parser.add_argument("--config", type=Path, default=None,
                        help="a config.toml to read (default: config.toml in the project folder, if any)")


def _rules(args: argparse.Namespace) -> RuleOptions:
    """Every command reads its settings the same way (config.load_settings)."""
    return load_settings(args.config, args.ruleset, args.overrides)[1]


def _qr_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-qr", action="store_true",
                        help="leave the pairing link's QR code (lines of block characters, noise on a braille "
                             "display) out of the terminal; run --text leaves it out when its output is no terminal")


def _trust_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trust-unkeyed", action="store_true",
                        help="read a journal of version 3 or 4, whose checks have no key: anyone could have "
                             "edited it and recomputed them, so this trusts the file as it is")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="voicehost", description="Offline voice moderator for sports mafia.")
    parser.add_argument("--version", action="version", version=f"voicehost {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="log to stderr, in English: which recognizer listens and why, whether the captions "
                             "run, the rule words the model lacks (voicehost -v run, or voicehost run -v)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = sub.add_parser("check-phrase", help="judge one regular day speech")
    check.add_argument("input", nargs="?", default=None, metavar="FILE|-")
    check.add_argument("--speaker", type=_seat)
    check.add_argument("--alive", type=_seats, default=None)
    check.add_argument("--nominated", type=_seats, default=[])
    check.add_argument("--already-nominated-by-speaker", action="store_true")
    check.add_argument("--limit", type=_seconds, default=None)
    check.add_argument("--text", default=None, help='plain words; "<N>" is N seconds of silence')
    check.add_argument("--explain", action="store_true", help="say why a nomination was refused")
    _rules_args(check)

    command = sub.add_parser("check-command", help="judge one spoken command of the host (SPEC §7.2)")
    command.add_argument("--text", required=True, help="the host's words, as heard")
    command.add_argument("--wake", action="store_true",
                         help="a shared microphone: the command must start with the wake word")
    _rules_args(command)

    sim = sub.add_parser("simulate", help="play a whole game from a JSON Lines script")
    sim.add_argument("script", metavar="SCRIPT.jsonl")
    sim.add_argument("--protocol", type=Path, default=None, metavar="OUT.json")
    sim.add_argument("--journal", type=Path, default=None, metavar="OUT.jsonl")
    _rules_args(sim)

    bench = sub.add_parser("bench", help="print performance figures")
    bench.add_argument("what", choices=["core", "latency", "journal", "seats", "array"],
                       help="core: phrase rules and simulated games; latency: the live loop; "
                            "journal: a two-hour game's journal size and resume time; "
                            "seats: a microphone per seat (crosstalk, bleed, out-of-turn speech); "
                            "array: an array in the middle (seats from directions, nominations with the beam)")
    bench.add_argument("--hours", type=_seconds, default=2.0, help="journal: the game's length in hours")

    run = sub.add_parser("run", help="moderate a live game (microphone, a recorded WAV, or typed)")
    run.add_argument("--text", action="store_true", help="play from the keyboard: lines are speech, /commands")
    run.add_argument("--audio-file", type=Path, metavar="GAME.wav", help="play a recorded game")
    run.add_argument("--host-script", type=Path, metavar="HOST.jsonl",
                     help="host inputs for a recorded game (votes, shots, fouls), as simulate lines")
    run.add_argument("--journal", type=Path, help="where to journal the game")
    run.add_argument("--resume", type=Path, metavar="JOURNAL", help="go on with a crashed game")
    run.add_argument("--roles", help="the deal: d4,m2,m7,s6 (don, mafia, sheriff; the rest citizens)")
    run.add_argument("--record", type=Path, metavar="OUT.wav",
                     help="record the table speaker to a file (with a microphone per seat, every channel to "
                          "OUT.channels.wav too)")
    run.add_argument("--protocol", type=Path, metavar="OUT.json", help="write the protocol at the end")
    run.add_argument("--mute", action="store_true", help="print announcements, do not speak them")
    run.add_argument("--serve", action="store_true", help="serve the companion page")
    run.add_argument("--lan", action="store_true", help="serve the page on the LAN address")
    run.add_argument("--port", type=_port, default=None, help="the page's port (default 8765)")
    run.add_argument("--series", metavar="NAME",
                     help="play an evening of this series: each game filed, the standings after it, /new for the next")
    run.add_argument("--show-private", action="store_true",
                     help="print the host's private answers here even while the page serves them")
    _trust_arg(run)
    _qr_arg(run)
    _rules_args(run)

    train = sub.add_parser("train", help="practise the nomination phrase")
    train.add_argument("--text", action="store_true", help="type phrases instead of speaking them")
    train.add_argument("--mute", action="store_true", help="print the verdicts, do not speak them")
    _rules_args(train)

    calibrate = sub.add_parser("calibrate", help="measure each seat's direction from the microphone array "
                                                 "([audio] array) into [table] seats")
    calibrate.add_argument("--seat", type=int, action="append", default=[], metavar="N",
                           help="measure only this seat (again); repeatable; the others keep their angles")
    calibrate.add_argument("--audio-file", type=Path, default=None, metavar="WALK.wav",
                           help="a multichannel recording of the walk instead of the array, seats in order")
    calibrate.add_argument("--mute", action="store_true", help="print the lines, do not speak them")
    _rules_args(calibrate)

    serve = sub.add_parser("serve", help="serve the page for a game driven by a simulate script")
    serve.add_argument("--script", type=Path, default=None, metavar="GAME.jsonl")
    serve.add_argument("--journal", type=Path, default=None)
    serve.add_argument("--lan", action="store_true", help="serve on the LAN address")
    serve.add_argument("--port", type=_port, default=None, help="the port (default 8765)")
    _qr_arg(serve)
    _rules_args(serve)

    devices = sub.add_parser("devices", help="list the audio devices, their channels, and the mapped ones")
    devices.add_argument("--config", type=Path, default=None,
                         help="a config.toml whose [audio] channels to check (default: the project's)")

    models = sub.add_parser("models", help="download and check the speech model and voices")
    models.add_argument("action", choices=["download", "list", "verify"])
    models.add_argument("--asr", default=None,
                        help="which speech model (default: the ruleset language's: small-ru, small-uk for ua-club)")
    models.add_argument("--voice", default=None,
                        help="which voice (default: the ruleset language's: irina, ukrainian_tts for ua-club)")
    models.add_argument("--only", choices=["asr", "voice"], default=None)
    _rules_args(models)

    exp = sub.add_parser("export", help="a finished game as a mafiaratings or Polemica record")
    exp.add_argument("journal", type=Path, metavar="JOURNAL_OR_PROTOCOL")
    exp.add_argument("--format", required=True, choices=["mafiaratings", "polemica"])
    exp.add_argument("-o", "--output", type=Path, default=None, metavar="FILE")
    _trust_arg(exp)

    table = sub.add_parser("standings", help="a series' standings by 4MAFIA 4.5 (SPEC §6.4)")
    table.add_argument("sources", nargs="+", metavar="SERIES|PROTOCOL.json")
    table.add_argument("--format", choices=["text", "csv", "json"], default="text")
    table.add_argument("--seed", type=_whole, default=None, help="make the lot reproducible")
    table.add_argument("--config", type=Path, default=None)

    series = sub.add_parser("series", help="a club's series: its roster and games")
    series.add_argument("action", choices=["new", "add", "list", "show"])
    series.add_argument("name", nargs="?", default=None, metavar="NAME")
    series.add_argument("files", nargs="*", type=Path, default=[], metavar="GAME.protocol.json")
    series.add_argument("--players", default=None, help='new: the roster, "Алиса, Борис, …"')
    series.add_argument("--roster", type=Path, default=None, help="new: a file with one name a line")
    _rules_args(series)

    rep = sub.add_parser("replay", help="rebuild a game from its journal")
    rep.add_argument("journal", type=Path)
    rep.add_argument("--protocol", type=Path, default=None, metavar="OUT.json")
    _trust_arg(rep)
    for command in sub.choices.values():   # `voicehost run -v` as well as `voicehost -v run`
        command.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                             help="log to stderr, in English (as voicehost -v)")
    return parser


# ------------------------------------------------------------ the commands: each body lives next to what it drives


def cmd_check_phrase(args: argparse.Namespace) -> int:
    from voicehost.checkphrase import check_phrase_lines

    input_file(Path(args.input) if args.input not in (None, "-") else None, "")  # before the settings
    sys.stdout.write(check_phrase_lines(
        _rules(args), source=args.input, text=args.text, alive=args.alive, nominated=args.nominated,
        already_nominated=args.already_nominated_by_speaker, limit=args.limit, explain=args.explain))
    return 0


def cmd_check_command(args: argparse.Namespace) -> int:
    from voicehost.game.host import check_command

    config, rules = load_settings(args.config, args.ruleset, args.overrides)
    sys.stdout.write(check_command(args.text, rules, wake=args.wake, wake_word=config.host.wake_word))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from voicehost.simulate import simulate_command

    script = None if args.script == "-" else Path(args.script)
    # The paths are checked before the settings are read (and again where they are used).
    input_file(script, "")
    output_file(args.protocol, "--protocol")
    output_file(args.journal, "--journal")
    apart({"--protocol": args.protocol, **journal_outputs("--journal", args.journal)}, {"the script": script})
    sys.stdout.write(simulate_command(script, _rules(args), protocol=args.protocol, journal_path=args.journal))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from voicehost.simulate import replay_command

    apart({"--protocol": args.protocol}, {"the journal": args.journal})
    sys.stdout.write(replay_command(args.journal, args.protocol, trust_unkeyed=args.trust_unkeyed))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from voicehost.export import export_command

    apart({"-o": args.output}, {"the journal": args.journal})
    sys.stdout.write(export_command(args.journal, args.format, args.output, trust_unkeyed=args.trust_unkeyed))
    return 0


def cmd_standings(args: argparse.Namespace) -> int:
    from voicehost.series.commands import standings_command

    config, _ = load_settings(args.config)
    sys.stdout.write(standings_command(config, args.sources, args.format, args.seed))
    return 0


def cmd_series(args: argparse.Namespace) -> int:
    from voicehost.series.commands import series_command

    if args.action in ("new", "add", "show") and args.name is None:
        raise InputError(f"series {args.action} needs the series' NAME")
    if args.action == "add" and not args.files:
        raise InputError("series add needs one protocol file at least: series add NAME GAME.protocol.json")
    for path in args.files:
        input_file(path, "")
    if args.roster is not None:
        input_file(args.roster, "--roster")
    config, rules = load_settings(args.config, args.ruleset, args.overrides)
    sys.stdout.write(series_command(config, args.action, args.name, args.players, args.roster, args.files,
                                    rules.name))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "journal":
        from voicehost.bench import journal

        journal.run(args.hours)
    elif args.what == "seats":
        from voicehost.bench import seats

        seats.seats()
    elif args.what == "array":
        from voicehost.bench import array

        array.array()
    elif args.what == "core":
        from voicehost.bench import core

        core.run()
    else:
        from voicehost.bench import latency

        latency.run()
    return 0


def _need_extra(extra: str, modules: tuple[str, ...], what: str) -> None:
    """A missing optional dependency is named with the pip command that brings it."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise VoicehostError(f"{what} needs the {extra} extra ({', '.join(missing)} is not installed): "
                             f"pip install 'voicehost[{extra}]'")


def cmd_run(args: argparse.Namespace) -> int:
    if args.audio_file:   # without the live extra a live game falls back to typed play (session.run)
        _need_extra("live", ("vosk", "pyaudio"), "playing by voice from a recording")
    if args.serve or args.lan:
        _need_extra("web", ("aiohttp", "qrcode", "cryptography"), "the companion page")
    wav_file(args.audio_file, "--audio-file")
    input_file(args.host_script, "--host-script")
    input_file(args.resume, "--resume")
    for flag in ("journal", "record", "protocol"):
        output_file(getattr(args, flag), f"--{flag}", journal=flag == "journal")
    journal = ("--resume", args.resume) if args.resume else ("--journal", args.journal)
    protocol = args.protocol
    apart({**journal_outputs(*journal), "--protocol": protocol,
           "the protocol's CSV": protocol.with_suffix(".csv") if protocol else None, "--record": args.record},
          {"--host-script": args.host_script, "--audio-file": args.audio_file})
    from voicehost import session

    return session.run(args, sys.stdout, sys.stdin)   # read now: a caller may have replaced them


def cmd_serve(args: argparse.Namespace) -> int:
    input_file(args.script, "--script")
    output_file(args.journal, "--journal", journal=True)
    apart(journal_outputs("--journal", args.journal), {"--script": args.script})
    _need_extra("web", ("aiohttp", "qrcode", "cryptography"), "the companion page")
    from voicehost import session

    return session.serve(args)


def cmd_train(args: argparse.Namespace) -> int:
    from voicehost import session

    return session.train(args, sys.stdout, sys.stdin)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from voicehost.live.calibration import calibrate

    return calibrate(args, sys.stdout, sys.stdin)


def cmd_devices(args: argparse.Namespace) -> int:
    from voicehost.audio import channel_report, list_devices

    config = load_settings(args.config)[0]
    audio = config.audio
    devices = list_devices()
    if not devices:
        print("no audio devices found")
    for d in devices:
        kinds = ", ".join(f"{k} {n} channel{'s' if n > 1 else ''}" for k, n in (("in", d.inputs), ("out", d.outputs))
                          if n)
        print(f"{d.index:3d}  {d.name}  ({kinds}; {d.rate} Hz)")
    for line in channel_report(audio.channels, audio.input_device, devices):
        print(line)
    if audio.array is not None:
        from voicehost.array import mic_map

        seats = config.table.seats
        print(f"[audio] array {audio.array.name}: {len(audio.array.mics)} mics; [table] seats: "
              + (f"{len(seats)} calibrated" if seats else "none yet (run `voicehost calibrate`)"))
        for line in channel_report(mic_map(audio.array), audio.input_device, devices):
            print(line)
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from voicehost import models, paths

    entries = models.load_manifest()
    language = _rules(args).language
    if args.action == "list":
        for name, entry in entries.items():
            mark = f" (default for {entry.language})" if entry.default else ""
            print(f"{name:19s} {entry.language:3s}{entry.description}{mark}")
        return 0
    if args.action == "verify":
        results = models.verify()
        if not results:
            raise InputError(f"nothing to verify: no downloaded model in {paths.MODELS}; "
                             "get them with `voicehost models download`")
        for name, ok in results:
            print(f"{'ok ' if ok else 'BAD'} {name}")
        if any(not ok for _, ok in results):
            raise InputError("some downloaded files do not match their checksums: download them again")
        return 0
    failures = []
    for kind, key in (("asr", args.asr), ("voice", args.voice)):
        if args.only in (None, kind):
            entry = models.pick(entries, kind, key, language)
            print(f"{entry.kind} {entry.key}: {entry.description}")
            try:
                print(f"  -> {models.install(entry)}")
            except models.DownloadError as exc:
                failures.append(exc)
    if failures:
        raise failures[0]  # one line; the others failed alike and were tried all the same
    return 0


COMMANDS = {"check-phrase": cmd_check_phrase, "check-command": cmd_check_command, "simulate": cmd_simulate,
            "replay": cmd_replay,
            "bench": cmd_bench, "run": cmd_run, "train": cmd_train, "calibrate": cmd_calibrate, "devices": cmd_devices,
            "serve": cmd_serve,
            "models": cmd_models, "export": cmd_export, "standings": cmd_standings, "series": cmd_series}


@functools.lru_cache(maxsize=1)
def _parser() -> argparse.ArgumentParser:
    return build_parser()   # built once per process: in-process callers (tests, fuzzers) call main often


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line. argparse gives back the positionals typed after an
    option ("series new --config c.toml vecher") unplaced: the series' NAME
    and its files are placed here, anything else is refused as before."""
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra and args.command == "series" and not any(word.startswith("-") for word in extra):
        if args.name is None:
            args.name, extra = extra[0], extra[1:]
        args.files = [*args.files, *(Path(word) for word in extra)]
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    if args.verbose:
        import logging

        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return COMMANDS[args.command](args)
    except VoicehostError as exc:
        _say(f"voicehost {args.command}: {' '.join(str(exc).split())}")
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last resort: one line, never a traceback, the journal untouched
        if os.environ.get("VOICEHOST_DEBUG"):
            raise
        from voicehost.journal import Journal

        kept = [str(p) for p in dict.fromkeys(Journal.opened) if p.is_file() and not p.name.startswith(".")]
        where = f"; the game's journal is kept at {kept[-1]} (go on with --resume)" if kept else ""
        detail = " ".join(str(exc).split())[:300]
        _say(f"voicehost {args.command}: internal error, please report it: "
             f"{type(exc).__name__}{': ' + detail if detail else ''}{where}")
        return 70


def _say(line: str) -> None:
    """One line on stderr, whatever the text holds."""
    try:
        sys.stderr.write(line + "\n")
    except UnicodeEncodeError:
        sys.stderr.write(line.encode("utf-8", "backslashreplace").decode("utf-8") + "\n")
    sys.stderr.flush()
