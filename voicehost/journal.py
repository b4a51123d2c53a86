"""The journal: every input the moderator receives, with its time, one JSON
object per line. Replaying it rebuilds the identical game; the live loop
writes it with an fsync per input so a crash loses nothing.

Each line carries "h", a short hash of the previous line's hash and its own
content (the header starts the chain), so an edited, dropped or inserted line
is reported with its number instead of replaying as another game. The file
is read as bytes and split only on b"\\n"; a tail that cannot be decoded or
parsed is what a crash mid-write leaves (a torn line, or garbage): it is
ignored, and cut off before a resumed game appends. Only inputs are
journaled, plus a clock mark where a timer fired: the moderator's timers are
deadlines, so the inputs and those marks replay the same game. One table at
a time holds a journal (an exclusive lock); a write that fails raises
`JournalWriteError` and the table takes no more inputs."""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.errors import GameError, InputError, JournalError, JournalWriteError, VoicehostError
from voicehost.game.events import HOST_INPUTS, Event, Heard, event_to_json, parse_event
from voicehost.game.model import Output
from voicehost.game.moderator import Moderator, new_game
from voicehost.phrases.words import Word
from voicehost.revision import ReplayRevisions
from voicehost.rules import RuleOptions, rules_for

VERSION = 3
HASH_CHARS = 10
_HASH_PREFIX = b',"h":"'
_SUFFIX_LEN = len(_HASH_PREFIX) + HASH_CHARS + 2      # ,"h":"0123456789"}


def entry_hash(previous: str, body: bytes) -> str:
    """The chained check of one line: the line before it, and this line's bytes
    without the check itself (so any change to a byte shows)."""
    return hashlib.sha256(previous.encode("ascii") + b"\n" + body).hexdigest()[:HASH_CHARS]


def _compact(entry: dict[str, Any]) -> dict[str, Any]:
    """A recognized word, the most common line by far, in a short form:
    {"w": [word, start, end]}, with "t" only when it is not the word's start."""
    event = entry.get("event")
    if isinstance(event, dict) and event.get("type") == "word" and set(event) == {"type", "word", "start", "end"}:
        short: dict[str, Any] = {} if entry["t"] == event["start"] else {"t": entry["t"]}
        short["w"] = [event["word"], event["start"], event["end"]]
        return short
    return entry


def _expand(entry: dict[str, Any]) -> dict[str, Any]:
    word = entry.get("w")
    if word is None:
        return entry
    if not (isinstance(word, list) and len(word) == 3) or set(entry) - {"t", "w"}:
        return {"bad": True}
    event = {"type": "word", "word": word[0], "start": word[1], "end": word[2]}
    return {"t": entry.get("t", word[1]), "event": event}


def _line(previous: str, entry: dict[str, Any]) -> tuple[bytes, str]:
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        body = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, it is still the same JSON
        body = json.dumps(entry, separators=(",", ":"), allow_nan=False).encode("ascii")
    digest = entry_hash(previous, body)
    return body[:-1] + _HASH_PREFIX + digest.encode("ascii") + b'"}\n', digest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


_HEX = frozenset(b"0123456789abcdef")


def _split(raw: bytes) -> tuple[bytes, str] | None:
    """A line's body (as it was hashed) and its check, if it has the shape of one."""
    if len(raw) <= _SUFFIX_LEN or not raw.endswith(b'"}') or raw[-_SUFFIX_LEN:-HASH_CHARS - 2] != _HASH_PREFIX:
        return None
    digest = raw[-HASH_CHARS - 2:-2]
    if not _HEX.issuperset(digest):
        return None
    return raw[:-_SUFFIX_LEN] + b"}", digest.decode("ascii")


# ------------------------------------------------------------------ reading


@dataclass
class Scan:
    """What a journal file holds: its checked lines, and where its good part ends."""

    path: Path
    header: dict[str, Any]
    entries: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (line number, entry)
    last_hash: str = ""
    end: int = 0          # bytes of the good part; anything after it is a torn tail
    torn: int = 0         # bytes in the torn tail


def _parse(raw: bytes) -> dict[str, Any] | None:
    """One line as a JSON object, or None when it cannot be read at all."""
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def scan_bytes(path: Path, data: bytes) -> Scan:
    """Check the chain of every line; raise naming the first line that was changed."""
    lines = data.split(b"\n")
    complete = lines[:-1]          # the part after the last newline is torn: never acknowledged
    parsed: list[tuple[dict[str, Any], bytes, str | None] | None] = []
    for raw in complete:
        split = _split(raw)
        body = _parse(split[0]) if split else None
        if split is not None and body is not None:
            parsed.append((body, split[0], split[1]))
        else:
            whole = _parse(raw)       # readable, but not with a check: a changed line
            parsed.append(None if whole is None else (whole, raw, None))
    readable = len(parsed)
    while readable and parsed[readable - 1] is None:
        readable -= 1     # an unreadable tail (torn write, appended garbage) is not the game
    if readable == 0:
        if data.strip():
            raise JournalError(f"{path}:1: not a voicehost journal (no readable header)")
        raise JournalError(f"{path}: the journal is empty")
    scan: Scan | None = None
    previous = ""
    offset = 0
    for index in range(readable):
        number = index + 1
        item = parsed[index]
        if item is None:
            raise JournalError(f"{path}:{number}: not a journal entry (damaged line)")
        entry, hashed, digest = item
        if number == 1 and entry.get("journal") != VERSION:
            found = entry.get("journal")
            what = f"version {found}; this voicehost reads version {VERSION}" if isinstance(found, int) \
                else f"version {VERSION}"
            raise JournalError(f"{path}:1: not a voicehost journal ({what})")
        if digest is None or digest != entry_hash(previous, hashed):
            raise JournalError(f"{path}:{number}: the journal was changed here (its check does not match); "
                               f"it would replay a different game")
        previous = digest
        if number == 1:
            scan = Scan(path, entry)
        else:
            assert scan is not None
            scan.entries.append((number, _expand(entry)))
        offset += len(complete[index]) + 1
    assert scan is not None
    scan.last_hash = previous
    scan.end = offset
    scan.torn = len(data) - offset
    return scan


def scan_file(path: Path) -> Scan:
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise JournalError(f"{path} is a folder, not a journal") from None
    except FileNotFoundError:
        raise JournalError(f"no journal at {path}") from None
    except OSError as exc:
        raise JournalError(f"cannot read the journal {path}: {exc.strerror or exc}") from None
    return scan_bytes(path, data)


def _header_rules(header: dict[str, Any], where: str) -> RuleOptions:
    rules = header.get("rules", {})
    if not isinstance(rules, dict):
        raise JournalError(f"{where}: the header's rules are not a table")
    rules = dict(rules)
    name = rules.pop("name", header.get("ruleset", "4mafia"))
    if not isinstance(name, str):
        raise JournalError(f"{where}: the header's ruleset is not a name")
    return rules_for(name, rules, where=f"{where} header")


def _entry(number: int, entry: dict[str, Any], where: Path) -> tuple[float, dict[str, Any]]:
    t, event = entry.get("t"), entry.get("event")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) \
            or not isinstance(event, dict) or set(entry) != {"t", "event"}:
        raise JournalError(f"{where}:{number}: not a journal entry")
    return float(t), event


# ------------------------------------------------------------------ writing


class Journal:
    """An open journal: locked for this table alone, written line by line.

    `resume=True` goes on with an existing journal: its chain is checked, and a
    torn tail is cut off first, so the next line starts on a line of its own."""

    opened: list[Path] = []   # every journal this process opened: the last-resort handler names it

    def __init__(self, path: Path, rules: RuleOptions | None = None, *, fsync: bool = False,
                 resume: bool = False) -> None:
        self.path = Path(path)
        Journal.opened.append(self.path)
        self.fsync = fsync
        self.failed: JournalWriteError | None = None
        self.cut = 0             # bytes of a torn tail cut off on resume
        self.scan: Scan | None = None
        self._previous = ""
        self._fd: int | None = None
        if self.path.exists() and not self.path.is_file():
            raise JournalError(f"{self.path} is not a regular file; a journal must be one")
        flags = os.O_RDWR | (0 if resume else os.O_CREAT) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, flags, 0o644)
        except FileNotFoundError:
            raise JournalError(f"no journal at {self.path}") from None
        except OSError as exc:
            raise JournalWriteError(f"cannot open the journal {self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise JournalError(f"{self.path} is in use by another voicehost table; "
                                   f"only one may go on with a game") from None
            raise JournalWriteError(f"cannot lock the journal {self.path}: {exc.strerror or exc}") from None
        self._fd = fd
        try:
            if resume:
                self._open_existing()
            else:
                if os.fstat(fd).st_size:
                    raise JournalError(f"{self.path} already holds a game: go on with it with --resume, "
                                       f"or journal this one to another file")
                if rules is None:
                    raise ValueError("a new journal needs the rules")
                self._write({"journal": VERSION, "ruleset": rules.name, "rules": rules.to_json()})
                if fsync:
                    self._sync_folder()
        except BaseException:
            self.close()
            raise

    def _open_existing(self) -> None:
        assert self._fd is not None
        size = os.fstat(self._fd).st_size
        data = bytearray()
        while len(data) < size:
            chunk = os.pread(self._fd, size - len(data), len(data))
            if not chunk:
                break
            data += chunk
        scan = scan_bytes(self.path, bytes(data))
        self.scan = scan
        self._previous = scan.last_hash
        if scan.torn:
            try:
                os.ftruncate(self._fd, scan.end)
                os.fsync(self._fd)
            except OSError as exc:
                raise JournalWriteError(f"cannot cut the torn tail off the journal {self.path}: "
                                        f"{exc.strerror or exc}") from None
            self.cut = scan.torn
        os.lseek(self._fd, 0, os.SEEK_END)

    def _sync_folder(self) -> None:
        """A new file's name is on disk only once its folder is synced."""
        try:
            folder = os.open(self.path.parent if str(self.path.parent) else ".", os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(folder)
        except OSError:
            pass   # some file systems cannot sync a folder; the file itself is synced
        finally:
            os.close(folder)

    def write_entry(self, t: float, event: dict[str, Any]) -> None:
        """An input applied at time t ({"type": "tick"}: the clock, where a timer fired)."""
        self._write(_compact({"t": t, "event": event}))

    def check(self) -> None:
        """Raise the write failure, if there was one: the table must stop."""
        if self.failed is not None:
            raise self.failed
        if self._fd is None:
            raise JournalWriteError(f"the journal {self.path} is closed; the game takes no more inputs")

    def _write(self, entry: dict[str, Any]) -> None:
        self.check()
        assert self._fd is not None
        try:
            data, digest = _line(self._previous, entry)
        except ValueError as exc:  # not finite: never written, never replayed
            raise InputError(f"cannot journal this input: {exc}") from None
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            if self.fsync:
                os.fsync(self._fd)
            if os.fstat(self._fd).st_nlink == 0:
                raise OSError(errno.ENOENT, "the journal file was deleted")
        except OSError as exc:
            self.failed = JournalWriteError(
                f"cannot write the journal {self.path}: {exc.strerror or exc}; "
                f"the game takes no more inputs (it stands recorded up to the last accepted one)")
            raise self.failed from None
        self._previous = digest

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)  # releases the lock
            except OSError:
                pass

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()




class Table:
    """A moderator and its journal: inputs are journaled once they are accepted.

    Keeps the accepted inputs in memory too, so the host can undo the last one.
    Once a journal write failed, every input is refused with that failure."""

    def __init__(self, game: Moderator, journal: Journal | None = None,
                 entries: list[tuple[float, dict[str, Any]]] | None = None) -> None:
        self.game = game
        self.journal = journal
        self.entries: list[tuple[float, dict[str, Any]]] = entries if entries is not None else []

    def _check(self) -> None:
        if self.journal is not None:
            self.journal.check()

    def apply(self, event: Event, now: float) -> list[Output]:
        self._check()
        if isinstance(event, Heard):
            event, now = _to_the_millisecond(event, now, self.game.now)
        outputs = self.game.handle(event, now)
        self._record(now, event_to_json(event))
        return outputs

    def advance(self, now: float) -> list[Output]:
        """Let time pass; journaled only when a timer fired (replay needs just that)."""
        fired = self.game.fired
        if self.journal is not None and self.journal.failed is not None:
            raise self.journal.failed
        outputs = self.game.advance(now)
        if self.game.fired != fired:
            self._record(self.game.now, {"type": "tick"})
        return outputs

    def undo(self, now: float) -> dict[str, Any]:
        """Take back the last host input: the game is rebuilt without it."""
        self._check()
        index = last_host_input(self.entries)
        if index is None:
            raise GameError("there is no host input to undo", phase=self.game.where())
        undone = self.entries[index][1]
        kept = self.entries[:index] + self.entries[index + 1:]
        t = max(now, self.game.now)
        game = rebuild(self.game.rules, kept)
        game.advance(t)
        if self.journal:
            self.journal.write_entry(t, {"type": "undo"})
        self.game = game
        self.entries = kept
        return undone

    def _record(self, t: float, event: dict[str, Any]) -> None:
        self.entries.append((t, event))
        if self.journal:
            self.journal.write_entry(t, event)

    def close(self) -> None:
        """Close the journal with a last clock mark, so that a resume stands
        where the table stopped, not at its last input."""
        journal = self.journal
        if journal is None:
            return
        last = self.entries[-1][0] if self.entries else 0.0
        if journal.failed is None and journal.is_open and self.game.now > last:
            try:
                journal.write_entry(self.game.now, {"type": "tick"})
            except JournalWriteError:
                pass   # the game stands recorded up to its last input
        journal.close()


def _to_the_millisecond(event: Heard, now: float, game_now: float) -> tuple[Heard, float]:
    """A recognized word's times to the millisecond, applied as journaled: the
    journal keeps short numbers and the replay sees the very same word."""
    word = event.word
    start, end = round(word.start, 3), round(word.end, 3)
    if (start, end) == (word.start, word.end):
        return event, now
    if now == word.start:
        now = max(game_now, start)
    return Heard(Word(word.word, start, end, word.conf)), now


def last_host_input(entries: list[tuple[float, dict[str, Any]]]) -> int | None:
    for index in range(len(entries) - 1, -1, -1):
        if entries[index][1].get("type") in HOST_INPUTS:
            return index
    return None


def _apply_entry(game: Moderator, t: float, event: dict[str, Any]) -> list[Output]:
    if event.get("type") == "tick":
        return game.advance(t)
    return game.handle(parse_event(event, game.max_seat), t)


def rebuild(rules: RuleOptions, entries: list[tuple[float, dict[str, Any]]]) -> Moderator:
    """The game these accepted inputs make; what no longer fits is passed over."""
    game = new_game(rules)
    for t, event in entries:
        try:
            _apply_entry(game, t, event)
        except VoicehostError:
            continue
    return game


def replay(path: Path) -> tuple[Moderator, list[Output]]:
    game, outputs, _ = replay_entries(path)
    return game, outputs


def replay_scan(scan: Scan) -> tuple[Moderator, list[Output], list[tuple[float, dict[str, Any]]]]:
    path = scan.path
    rules = _header_rules(scan.header, f"{path}:1")
    game = new_game(rules)
    outputs: list[Output] = []
    entries: list[tuple[float, dict[str, Any]]] = []
    revisions = ReplayRevisions(rules, path)
    for number, raw in scan.entries:
        t, event = _entry(number, raw, path)
        revised = revisions.see(number, t, event, game, entries)  # a `revise` entry (voicehost.revision)
        if revised is not None:
            game, entries = revised
            continue
        if event.get("type") == "undo":
            index = last_host_input(entries)
            if index is not None:
                del entries[index]
            game = rebuild(rules, entries)
            game.advance(t)
            continue
        try:
            outputs += _apply_entry(game, t, event)
        except VoicehostError as exc:
            raise JournalError(f"{path}:{number}: {' '.join(str(exc).split())}") from None
        entries.append((t, event))
    return game, outputs, entries


def replay_entries(path: Path) -> tuple[Moderator, list[Output], list[tuple[float, dict[str, Any]]]]:
    """Rebuild the game a journal describes; a torn tail (a crash mid-write) is left out."""
    return replay_scan(scan_file(Path(path)))


def resume_table(path: Path, *, fsync: bool = True) -> tuple[Table, list[Output], Journal]:
    """Lock a journal, cut a torn tail, and rebuild its game, ready to go on.

    The lock is taken before the file is read, so a second table is refused
    before it could read a journal that the first is still writing."""
    journal = Journal(path, fsync=fsync, resume=True)
    try:
        assert journal.scan is not None
        game, outputs, entries = replay_scan(journal.scan)
        journal.scan = None
    except BaseException:
        journal.close()
        raise
    return Table(game, journal, entries), outputs, journal
