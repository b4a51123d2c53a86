"""The script driver: plays a simulate script (SPEC §4) on a virtual clock
through the same moderator that runs live."""
from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.errors import GameError, InputError, VoicehostError
from voicehost.files import input_file, output_file, write_atomic
from voicehost.game.events import IMMEDIATE, Event, SeatEvent, event_type, parse_event
from voicehost.game.host import HostDesk
from voicehost.game.model import Output, Phase
from voicehost.game.moderator import Moderator, new_game
from voicehost.game.protocol import protocol_text
from voicehost.journal import Journal, Table, replay_scan, scan_file
from voicehost.journal.keys import key_path
from voicehost.jsonio import NotANumber, loads_strict
from voicehost.phrases.words import parse_words
from voicehost.refusals import RefuseKey
from voicehost.rules import RuleOptions


class ScriptError(VoicehostError):
    """A script line the game cannot take; names the line and the phase."""


@dataclass
class Simulation:
    game: Moderator
    table: Table
    outputs: list[Output] = field(default_factory=list)
    desk: HostDesk | None = None   # the host's spoken commands (host_speech lines)

    def step(self, event: Event, heard: tuple[str, ...] = ()) -> None:
        """Advance to the first point where `event` fits, then apply it."""
        game = self.game
        if isinstance(event, SeatEvent) and event.type in IMMEDIATE:
            self.outputs += self.table.apply(event, game.now, heard=heard)
            return
        game.precheck(event)
        while not game.fits(event):
            deadline = game.next_deadline()
            if deadline is None:
                raise self._stuck(event)
            self.outputs += self.table.advance(deadline)
        self.outputs += self.table.apply(event, game.now, heard=heard)

    def host(self, words: list[str]) -> None:
        """A `host_speech` line (SPEC §7.2): the input its words make, handled
        exactly as that input; a disqualification waits for the next line's
        "подтверждаю", an undo takes the last host input back."""
        if self.desk is None:
            self.desk = HostDesk(self.game.rules, self.game.max_seat)
        step = self.desk.take(words, self.game.now)
        if step.undo:
            self.table.undo(self.game.now, step.heard)
        elif step.awaiting is not None:
            self.game.precheck(step.awaiting)
        else:
            assert step.event is not None
            self.step(step.event, step.heard)

    def _stuck(self, event: Event) -> GameError:
        kind = event_type(event)
        if self.game.phase is Phase.GAME_OVER:
            return self.game.error(f"'{kind}' does not fit: the game is over", event,
                                   key=RefuseKey.GAME_OVER, input=kind)
        wanted = self.game.waiting_for()
        return self.game.error(f"'{kind}' does not fit before the game gets '{wanted}'", event,
                               key=RefuseKey.DOES_NOT_FIT_WAITING, input=kind, wanted=wanted or "")

    def run_on(self) -> None:
        """The script is over: let the game run until it needs input or ends."""
        while (deadline := self.game.next_deadline()) is not None:
            self.outputs += self.table.advance(deadline)


def _parse_line(line: str, size: int) -> Event | HostSpeech:
    """One script line; JSON nested too deep, numbers too long to convert and
    NaN or Infinity are refused with one line, like any malformed JSON."""
    data = _load_line(line)
    if isinstance(data, dict) and data.get("type") == HOST_SPEECH:
        return HostSpeech(tuple(w.word for w in parse_words(data.get("words"), "host_speech 'words'")))
    return parse_event(data, size)


@dataclass(frozen=True)
class HostSpeech:
    """What the host's channel heard (SPEC §7.2): its words, in time order."""

    words: tuple[str, ...]


HOST_SPEECH = "host_speech"


def _load_line(line: str) -> object:
    try:
        data = loads_strict(line)
    except NotANumber as exc:
        raise InputError(f"'{exc.name}' is not a number a script may use") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError("malformed JSON (nested too deep)") from None
    except ValueError:
        raise InputError("malformed JSON (a number too long)") from None
    return data


def read_script(lines: Iterable[str], where: str) -> list[tuple[int, str]]:
    """The script's non-blank lines with their numbers; each is parsed when reached,
    so an error names the phase the game stands in at that line."""
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise ScriptError(f"{where}: the script is empty; its first line must be the setup")
    return numbered


def simulate(
    lines: list[tuple[int, str]], rules: RuleOptions, where: str, table: Table | None = None
) -> Simulation:
    game = table.game if table else new_game(rules)
    sim = Simulation(game, table or Table(game))
    for number, line in lines:
        try:
            parsed = _parse_line(line, game.max_seat)
            if isinstance(parsed, HostSpeech):
                sim.host(list(parsed.words))
            else:
                if sim.desk is not None:
                    sim.desk.pending = None   # an unconfirmed disqualification lapses
                sim.step(parsed)
        except VoicehostError as exc:
            raise ScriptError(f"{where}:{number}: {_with_phase(exc, game)}") from None
    sim.run_on()
    return sim


def _with_phase(exc: VoicehostError, game: Moderator) -> str:
    if isinstance(exc, GameError):
        return str(exc)
    return f"{exc} (phase: {game.where()})"


def load_script(path: Path | None, text: str | None = None) -> tuple[list[tuple[int, str]], str]:
    where = str(path) if path else "<stdin>"
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8") if path else ""
        except OSError as exc:
            raise ScriptError(f"cannot read script {where}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ScriptError(f"{where}: the script is not UTF-8 text") from None
    # Lines end at "\n" only: a U+2028 or U+0085 inside a word is part of the line,
    # as the JSON writer left it.
    return read_script(text.split("\n"), where), where


# ------------------------------------------------------------ the commands


def _script_text(path: Path, game: Moderator) -> str:
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


def _json_line(data: object) -> str:
    """One JSON line; text that cannot be UTF-8 (a lone surrogate) is written escaped."""
    line = json.dumps(data, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(data)
    return line + "\n"


def _temp_journal(path: Path, rules: RuleOptions) -> Journal:
    """A journal under a temp name beside `path`: renamed into place once the script played."""
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.")
    os.close(fd)
    try:
        return Journal(Path(tmp), rules)
    except BaseException:
        os.unlink(tmp)
        raise


def simulate_command(script: Path | None, rules: RuleOptions, *, protocol: Path | None = None,
                     journal_path: Path | None = None) -> str:
    """The `simulate` command (SPEC §4): the spoken announcements as JSON lines,
    in time order; the protocol and the journal written whole or not at all."""
    input_file(script, "")
    output_file(protocol, "--protocol")
    output_file(journal_path, "--journal")
    game = new_game(rules)
    events, where = load_script(script, sys.stdin.read() if script is None else _script_text(script, game))
    journal = _temp_journal(journal_path, rules) if journal_path else None
    try:
        sim = simulate(events, rules, where, Table(game, journal))
        if journal and journal_path:
            journal.close()
            if journal.key is not None:   # the key first: a journal is never in place without it
                os.replace(key_path(journal.path), key_path(journal_path))
            os.replace(journal.path, journal_path)
    except BaseException:  # a refused line, or anything else: no temp file is left behind
        if journal:
            journal.close()
            for left in (journal.path, key_path(journal.path)):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(left)
        raise
    spoken = sorted((o for o in sim.outputs if o.kind == "say"), key=lambda o: o.t)
    book = sim.game.book
    text = "".join(_json_line(o.to_json(book.render(o))) for o in spoken)
    if protocol:
        write_atomic(protocol, protocol_text(game))
    return text


def _note(line: str | None) -> None:
    if line:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def replay_command(journal_path: Path, protocol: Path | None = None, *, trust_unkeyed: bool = False) -> str:
    """The `replay` command: the protocol of the game a journal records, written to
    `protocol` (then nothing is returned) or returned for standard output."""
    input_file(journal_path, "")
    output_file(protocol, "--protocol")
    scan = scan_file(journal_path, trust_unkeyed=trust_unkeyed)
    game, _, _ = replay_scan(scan)
    _note(scan.torn_note("replay"))
    text = protocol_text(game)
    if protocol:
        write_atomic(protocol, text)
        return ""
    return text
