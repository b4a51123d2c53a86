"""Command line: argument parsing and wiring only."""
from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import json
import math
import os
import stat
import struct
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from voicehost import __version__
from voicehost.config import load_settings
from voicehost.errors import InputError, VoicehostError
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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="voicehost", description="Offline voice moderator for sports mafia.")
    parser.add_argument("--version", action="version", version=f"voicehost {__version__}")
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

    sim = sub.add_parser("simulate", help="play a whole game from a JSON Lines script")
    sim.add_argument("script", metavar="SCRIPT.jsonl")
    sim.add_argument("--protocol", type=Path, default=None, metavar="OUT.json")
    sim.add_argument("--journal", type=Path, default=None, metavar="OUT.jsonl")
    _rules_args(sim)

    bench = sub.add_parser("bench", help="print performance figures")
    bench.add_argument("what", choices=["core", "latency", "journal"],
                       help="core: phrase rules and simulated games; latency: the live loop; "
                            "journal: a two-hour game's journal size and resume time")
    bench.add_argument("--hours", type=_seconds, default=2.0, help="journal: the game's length in hours")

    run = sub.add_parser("run", help="moderate a live game (microphone, a recorded WAV, or typed)")
    run.add_argument("--text", action="store_true", help="play from the keyboard: lines are speech, /commands")
    run.add_argument("--audio-file", type=Path, metavar="GAME.wav", help="play a recorded game")
    run.add_argument("--host-script", type=Path, metavar="HOST.jsonl",
                     help="host inputs for a recorded game (votes, shots, fouls), as simulate lines")
    run.add_argument("--journal", type=Path, help="where to journal the game")
    run.add_argument("--resume", type=Path, metavar="JOURNAL", help="go on with a crashed game")
    run.add_argument("--roles", help="the deal: d4,m2,m7,s6 (don, mafia, sheriff; the rest citizens)")
    run.add_argument("--record", type=Path, metavar="OUT.wav", help="record the table speaker to a file")
    run.add_argument("--protocol", type=Path, metavar="OUT.json", help="write the protocol at the end")
    run.add_argument("--mute", action="store_true", help="print announcements, do not speak them")
    run.add_argument("--serve", action="store_true", help="serve the companion page")
    run.add_argument("--lan", action="store_true", help="serve the page on the LAN address")
    run.add_argument("--port", type=_port, default=None, help="the page's port (default 8765)")
    _rules_args(run)

    train = sub.add_parser("train", help="practise the nomination phrase")
    train.add_argument("--text", action="store_true", help="type phrases instead of speaking them")
    train.add_argument("--mute", action="store_true", help="print the verdicts, do not speak them")
    _rules_args(train)

    serve = sub.add_parser("serve", help="serve the page for a game driven by a simulate script")
    serve.add_argument("--script", type=Path, default=None, metavar="GAME.jsonl")
    serve.add_argument("--journal", type=Path, default=None)
    serve.add_argument("--lan", action="store_true", help="serve on the LAN address")
    serve.add_argument("--port", type=_port, default=None, help="the port (default 8765)")
    _rules_args(serve)

    sub.add_parser("devices", help="list the audio devices")

    models = sub.add_parser("models", help="download and check the speech model and voices")
    models.add_argument("action", choices=["download", "list", "verify"])
    models.add_argument("--asr", default=None, help="which speech model (default: small-ru)")
    models.add_argument("--voice", default=None, help="which voice: irina (default), denis, dmitri, ruslan")
    models.add_argument("--only", choices=["asr", "voice"], default=None)

    exp = sub.add_parser("export", help="a finished game as a mafiaratings or Polemica record")
    exp.add_argument("journal", type=Path, metavar="JOURNAL_OR_PROTOCOL")
    exp.add_argument("--format", required=True, choices=["mafiaratings", "polemica"])
    exp.add_argument("-o", "--output", type=Path, default=None, metavar="FILE")

    rep = sub.add_parser("replay", help="rebuild a game from its journal")
    rep.add_argument("journal", type=Path)
    rep.add_argument("--protocol", type=Path, default=None, metavar="OUT.json")
    return parser


# ------------------------------------------------------------ paths, up front


def _input_file(path: Path | None, flag: str) -> None:
    """An input must be a regular file that we may read: a FIFO would hang."""
    if path is None or str(path) == "-":
        return
    what = f"{flag} {path}" if flag else str(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"cannot read {what}: no such file") from None
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"cannot read {what}: it is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise InputError(f"cannot read {what}: not a regular file (a pipe or a device); give a file")
    if not os.access(path, os.R_OK):
        raise InputError(f"cannot read {what}: permission denied")


def _output_file(path: Path | None, flag: str) -> None:
    """An output's folder must exist and take files; checked before the game, not after it."""
    if path is None:
        return
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{flag} {path}: cannot write in the folder {folder}")
    if path.is_dir():
        raise InputError(f"{flag} {path}: is a folder; give a file name")
    if path.exists() and not path.is_file():
        raise InputError(f"{flag} {path}: not a regular file (a pipe or a device); give a file")


def _wav_format(path: Path) -> tuple[int, int, int]:
    """Channels, sample rate and bits per sample from a WAV file's fmt chunk."""
    with path.open("rb") as handle:
        riff = handle.read(12)
        if len(riff) < 12 or riff[:4] != b"RIFF" or riff[8:12] != b"WAVE":
            raise ValueError("no RIFF/WAVE header")
        for _ in range(64):   # the fmt chunk comes early; never walk a whole file
            header = handle.read(8)
            if len(header) < 8:
                break
            name, size = header[:4], struct.unpack("<I", header[4:])[0]
            if name == b"fmt ":
                fmt = handle.read(16)
                if len(fmt) < 16:
                    break
                _, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt)
                return channels, rate, bits
            handle.seek(size + (size & 1), os.SEEK_CUR)
    raise ValueError("no fmt chunk")


def _wav_file(path: Path | None, flag: str) -> None:
    """A WAV whose header says 0 Hz or 0 channels cannot be played (it divided by zero)."""
    if path is None:
        return
    _input_file(path, flag)
    try:
        channels, rate, bits = _wav_format(path)
    except (OSError, ValueError, struct.error):
        return  # not a WAV at all: the reader says so, with how to convert it
    if rate <= 0 or channels <= 0 or bits <= 0:
        raise InputError(f"{flag} {path}: the WAV header says {rate} Hz, {channels} channel(s), "
                         f"{bits}-bit; not playable")


def _read_input(name: str | None) -> str:
    if name in (None, "-"):
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {name}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{name} is not UTF-8 text") from None


def cmd_check_phrase(args: argparse.Namespace) -> int:
    _input_file(Path(args.input) if args.input not in (None, "-") else None, "")
    from voicehost.phrases.check import check_speech
    from voicehost.phrases.grammar import load_grammar
    from voicehost.phrases.listener import StaticContext
    from voicehost.phrases.words import words_from_json, words_from_text

    rules = _rules(args)
    if args.text is not None:
        words = words_from_text(args.text)
    else:
        raw = _read_input(args.input)
        try:
            data = json.loads(raw, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise InputError(f"input is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
        except RecursionError:
            raise InputError("input is not valid JSON: nested too deep") from None
        except ValueError as exc:  # NaN/Infinity, or an integer of thousands of digits
            raise InputError(f"input is not valid JSON: {' '.join(str(exc).split())[:120]}") from None
        words = words_from_json(data)
    alive = set(args.alive) if args.alive is not None else set(range(1, 11))
    context = StaticContext(alive, list(args.nominated), args.already_nominated_by_speaker)
    limit = args.limit if args.limit is not None else rules.speech_seconds
    events = check_speech(words, load_grammar(rules.grammar), rules, context, limit)
    out = []
    for event in events:
        line: dict[str, Any] = event.to_json()
        if args.explain and line.get("reason"):
            line["explain"] = _explain(event, rules)
        out.append(json.dumps(line, ensure_ascii=False))
    sys.stdout.write("".join(f"{line}\n" for line in out))
    return 0


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _explain(event: Any, rules: Any) -> str:
    from voicehost.phrasebook import load_phrasebook

    return load_phrasebook(rules.phrasebook).verdict(event, rules)


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def cmd_simulate(args: argparse.Namespace) -> int:
    from voicehost.game.moderator import new_game
    from voicehost.game.protocol import protocol_text
    from voicehost.journal import Journal, Table
    from voicehost.simulate import load_script, simulate

    script = None if args.script == "-" else Path(args.script)
    _input_file(script, "")
    _output_file(args.protocol, "--protocol")
    _output_file(args.journal, "--journal")
    rules = _rules(args)
    game = new_game(rules)
    events, where = load_script(script, sys.stdin.read() if script is None else _script_text(script, game))
    journal = None
    if args.journal:
        fd, tmp = tempfile.mkstemp(dir=args.journal.parent if str(args.journal.parent) else ".",
                                   prefix=f".{args.journal.name}.")
        os.close(fd)
        try:
            journal = Journal(Path(tmp), rules)
        except BaseException:
            os.unlink(tmp)
            raise
    try:
        sim = simulate(events, rules, where, Table(game, journal))
        if journal:
            journal.close()
            os.replace(journal.path, args.journal)
    except BaseException:  # a refused line, or anything else: no temp file is left behind
        if journal:
            journal.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(journal.path)
        raise
    spoken = sorted((o for o in sim.outputs if o.kind == "say"), key=lambda o: o.t)
    book = sim.game.book
    sys.stdout.write("".join(_json_line(o.to_json(book.render(o))) for o in spoken))
    if args.protocol:
        _write_atomic(args.protocol, protocol_text(game))
    return 0


def _script_text(path: Path, game: Any) -> str:
    """The script as text; bytes that are not UTF-8 are refused naming their line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read script {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not UTF-8 text (byte {exc.start}) (phase: {game.where()})") from None


def _json_line(data: Any) -> str:
    """One JSON line; text that cannot be UTF-8 (a lone surrogate) is written escaped."""
    line = json.dumps(data, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(data)
    return line + "\n"


def cmd_replay(args: argparse.Namespace) -> int:
    from voicehost.game.protocol import protocol_text
    from voicehost.journal import replay

    _input_file(args.journal, "")
    _output_file(args.protocol, "--protocol")
    game, _ = replay(args.journal)
    text = protocol_text(game)
    if args.protocol:
        _write_atomic(args.protocol, text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from voicehost.export import export_text, load_table

    _input_file(args.journal, "")
    _output_file(args.output, "-o")
    table, ended = load_table(args.journal)
    text = export_text(table, args.format, ended)
    _write_atomic(args.output, text) if args.output else sys.stdout.write(text)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "journal":
        from voicehost import journal_bench

        journal_bench.run(args.hours)
        return 0
    from voicehost import bench

    bench.core() if args.what == "core" else bench.latency()
    return 0


def _need_extra(extra: str, modules: tuple[str, ...], what: str) -> None:
    """A missing optional dependency is named with the pip command that brings it."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise VoicehostError(f"{what} needs the {extra} extra ({', '.join(missing)} is not installed): "
                             f"pip install 'voicehost[{extra}]'")


def cmd_run(args: argparse.Namespace) -> int:
    if not args.text:
        _need_extra("live", ("vosk", "pyaudio"), "playing by voice"
                    + (" from a recording" if args.audio_file else "")
                    + " (or type the game with --text)")
    if args.serve or args.lan:
        _need_extra("web", ("aiohttp", "qrcode"), "the companion page")
    _wav_file(args.audio_file, "--audio-file")
    _input_file(args.host_script, "--host-script")
    _input_file(args.resume, "--resume")
    for flag in ("journal", "record", "protocol"):
        _output_file(getattr(args, flag), f"--{flag}")
    from voicehost import runner

    return runner.run(args)


def cmd_serve(args: argparse.Namespace) -> int:
    _input_file(args.script, "--script")
    _output_file(args.journal, "--journal")
    _need_extra("web", ("aiohttp", "qrcode"), "the companion page")
    from voicehost import runner

    return runner.serve(args)


def cmd_train(args: argparse.Namespace) -> int:
    from voicehost import runner

    return runner.train(args)


def cmd_devices(args: argparse.Namespace) -> int:
    from voicehost.audio import list_devices

    devices = list_devices()
    if not devices:
        print("no audio devices found")
    for d in devices:
        kinds = ", ".join(k for k, n in (("in", d.inputs), ("out", d.outputs)) if n)
        print(f"{d.index:3d}  {d.name}  ({kinds}; {d.rate} Hz)")
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from voicehost import models

    entries = models.load_manifest()
    if args.action == "list":
        for name, entry in entries.items():
            mark = " (default)" if entry.default else ""
            print(f"{name:14s} {entry.description}{mark}")
        return 0
    if args.action == "verify":
        results = models.verify()
        for name, ok in results:
            print(f"{'ok ' if ok else 'BAD'} {name}")
        if any(not ok for _, ok in results):
            raise InputError("some downloaded files do not match their checksums: download them again")
        return 0
    failures = []
    for kind, key in (("asr", args.asr), ("voice", args.voice)):
        if args.only in (None, kind):
            entry = models.pick(entries, kind, key)
            print(f"{entry.kind} {entry.key}: {entry.description}")
            try:
                print(f"  -> {models.install(entry)}")
            except models.DownloadError as exc:
                failures.append(exc)
    if failures:
        raise failures[0]  # one line; the others failed alike and were tried all the same
    return 0


COMMANDS = {"check-phrase": cmd_check_phrase, "simulate": cmd_simulate, "replay": cmd_replay,
            "bench": cmd_bench, "run": cmd_run, "train": cmd_train, "devices": cmd_devices, "serve": cmd_serve,
            "models": cmd_models, "export": cmd_export}


@functools.lru_cache(maxsize=1)
def _parser() -> argparse.ArgumentParser:
    return build_parser()   # built once per process: in-process callers (tests, fuzzers) call main often


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
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
