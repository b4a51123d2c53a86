"""Writing a journal: locked for one table alone, a line per accepted input,
with an fsync per write in a live game; a write that fails stops the table.

Heard words that changed nothing anyone heard, and clock marks, may be *held*
(`hold`): they are written, words as runs, with the next write or by `flush`. An
input the table answered is never held, so a crash loses at most words that
no announcement depended on; a held run can still be replaced by the final
result of its utterance (`replace_held`) before it reaches the disk.

A write or fsync that fails is cut back off (the file is truncated to the last
answered line) before the input is refused, so a refused input is never
replayed. A journal deleted or moved away mid-game is written anew at its path
from memory (every line written is kept), or, when that path is taken, in a
fresh file beside it; `moved` tells where, for the host."""
from __future__ import annotations

import errno
import fcntl
import os
import time
from itertools import groupby
from pathlib import Path
from typing import NoReturn

from voicehost.errors import InputError, JournalError, JournalWriteError
from voicehost.journal.keys import key_path, new_key, write_key
from voicehost.journal.lines import (
    BATCH_WORDS,
    VERSION,
    Entry,
    Scan,
    compact,
    encode_line,
    is_torn_header,
    scan_bytes,
    word_run,
)
from voicehost.jsontypes import JSONObject
from voicehost.rules import RuleOptions


def _not_a_file(path: Path) -> JournalError:
    return JournalError(f"{path} is not a regular file; a journal must be one")


def _holds_a_game(path: Path) -> JournalError:
    return JournalError(f"{path} already holds a game: go on with it with --resume, "
                        f"or journal this one to another file")


def torn_header_at(path: Path) -> bool:
    """The file holds a torn header alone: the table stopped while a game was starting."""
    try:
        size = path.stat().st_size
        return 0 < size < 64 * 1024 and is_torn_header(path.read_bytes())
    except OSError:
        return False


def holds_a_game(path: Path) -> bool:
    """A file with something in it other than a torn header (from which nothing was played)."""
    try:
        size = path.stat().st_size
    except OSError:
        return False
    return size > 0 and not torn_header_at(path)


def check_new(path: Path) -> None:
    """Refuse, before a game starts, a journal path that is another game's (or no file)."""
    if path.exists() and not path.is_file():
        raise _not_a_file(path)
    if path.is_file() and holds_a_game(path):
        raise _holds_a_game(path)


def new_header(rules: RuleOptions, game: str) -> JSONObject:
    """A header names its game: two games' headers differ, even with the same rules."""
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {"journal": VERSION, "game": game, "started": started, "ruleset": rules.name, "rules": rules.to_json()}


class Journal:
    """An open journal: locked for this table alone, written line by line.

    `resume=True` goes on with an existing journal: its chain is checked, and a
    torn tail is cut off first, so the next line starts on a line of its own."""

    opened: list[Path] = []   # every journal this process opened: the last-resort handler names it

    def __init__(self, path: Path, rules: RuleOptions | None = None, *, fsync: bool = False,
                 resume: bool = False, trust_unkeyed: bool = False) -> None:
        self.path = Path(path)
        self.trust_unkeyed = trust_unkeyed   # resume an unkeyed journal (versions 3, 4): its reader trusts it
        Journal.opened.append(self.path)
        self.fsync = fsync
        self.failed: JournalWriteError | None = None
        self.cut = 0             # bytes of a torn tail cut off on resume
        self.scan: Scan | None = None
        self.held: list[Entry] = []   # heard words and clock marks not yet written
        self.writes = 0          # writes that reached the disk (each with its fsync, if on)
        self.key: bytes | None = None   # the key of the checks (None: an older, unkeyed journal)
        self.game: str | None = None    # the game's identity (None: an older journal)
        self.moved: list[tuple[Path, Path]] = []   # (where it was, where it is now written anew)
        self._previous = ""
        self._written = bytearray()   # every byte of the good part: a journal deleted is written anew
        self._fd: int | None = None
        if self.path.exists() and not self.path.is_file():
            raise _not_a_file(self.path)
        flags = os.O_RDWR | (0 if resume else os.O_CREAT) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, flags, 0o600)   # it holds the deal and the night's checks
            os.fchmod(fd, 0o600)                     # an older journal, made 0644, is closed up too
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
                self._start(rules)
        except BaseException:
            self.close()
            raise

    def _start(self, rules: RuleOptions | None) -> None:
        """A new game's key beside the journal, then its header."""
        assert self._fd is not None
        if rules is None:
            raise ValueError("a new journal needs the rules")
        size = os.fstat(self._fd).st_size
        if size:
            if size >= 64 * 1024 or not is_torn_header(os.pread(self._fd, size, 0)):
                raise _holds_a_game(self.path)
            os.ftruncate(self._fd, 0)   # a torn header: nothing was played, the game starts anew in it
        self.game, self.key = new_key()
        write_key(self.path, self.game, self.key)
        self._write_entries([new_header(rules, self.game)])
        if self.fsync:
            self._sync_folder()

    def _open_existing(self) -> None:
        assert self._fd is not None
        size = os.fstat(self._fd).st_size
        data = bytearray()
        while len(data) < size:
            chunk = os.pread(self._fd, size - len(data), len(data))
            if not chunk:
                break
            data += chunk
        scan = scan_bytes(self.path, bytes(data), trust_unkeyed=self.trust_unkeyed)
        self.scan = scan
        self.key, self.game = scan.key, scan.game
        self._previous = scan.last_hash
        self._written = data[:scan.end]
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

    def write_entry(self, t: float, event: JSONObject) -> None:
        """An input applied at time t ({"type": "tick"}: the clock, where a timer
        fired), written at once with the words held before it."""
        self._write_entries(self._held_lines() + [compact({"t": t, "event": event})])

    def hold(self, t: float, event: JSONObject) -> None:
        """A heard word that changed nothing said, or a clock mark (a timer
        fired: a replay fires it again): written with the next write."""
        self.check()
        self.held.append(Entry(t, event))

    def replace_held(self, count: int, entries: list[Entry]) -> None:
        """The last `count` held entries give way to `entries` (an utterance's final result)."""
        if count > len(self.held):
            raise ValueError(f"only {len(self.held)} words are held, not {count}")
        self.held[len(self.held) - count:] = entries

    def flush(self) -> None:
        """Write the held words now."""
        if self.held:
            self._write_entries(self._held_lines())

    def _held_lines(self) -> list[JSONObject]:
        """Held entries as lines, in their order: each stretch of words as runs,
        anything else (a clock mark) as a line of its own."""
        lines: list[JSONObject] = []
        for (is_word, _), group in groupby(self.held, key=lambda entry: (entry.event.get("type") == "word",
                                                                          entry.event.get("seat"))):
            stretch = list(group)
            for i in range(0, len(stretch), BATCH_WORDS if is_word else 1):
                part = stretch[i:i + BATCH_WORDS] if is_word else stretch[i:i + 1]
                run = word_run(part) if is_word else None
                lines += [run] if run is not None else [compact({"t": e.t, "event": e.event}) for e in part]
        return lines

    def check(self) -> None:
        """Raise the write failure, if there was one: the table must stop."""
        if self.failed is not None:
            raise self.failed
        if self._fd is None:
            raise JournalWriteError(f"the journal {self.path} is closed; the game takes no more inputs")

    def _write_entries(self, entries: list[JSONObject]) -> None:
        """Lines written together, with one fsync; the held words go with them.
        A failure cuts them back off before it is raised: none of them stays."""
        self.check()
        assert self._fd is not None
        digest = self._previous
        parts = []
        try:
            for entry in entries:
                line, digest = encode_line(digest, entry, self.key)
                parts.append(line)
        except ValueError as exc:  # not finite: never written, never replayed
            raise InputError(f"cannot journal this input: {exc}") from None
        data = b"".join(parts)
        try:
            self._append(self._fd, data)
        except OSError as exc:
            self._fail(exc)
        self._written += data
        self._previous = digest
        self.held.clear()
        self.writes += 1
        if not self._in_place():
            self._write_anew()
        elif self.key is not None and self.game is not None and not key_path(self.path).exists():
            self._keep_key()   # the key alone was deleted: without it the journal could not be read

    def _keep_key(self) -> None:
        assert self.key is not None and self.game is not None
        try:
            write_key(self.path, self.game, self.key)
        except JournalWriteError as exc:
            self.failed = exc
            raise

    def _append(self, fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if self.fsync:
            os.fsync(fd)

    def _fail(self, exc: OSError, what: str = "") -> NoReturn:
        """The table stops; what this write left is cut back to the last answered line first."""
        assert self._fd is not None
        why = what + (exc.strerror or str(exc))
        try:
            os.ftruncate(self._fd, len(self._written))
            os.lseek(self._fd, 0, os.SEEK_END)
        except OSError as again:
            kept = f"the refused input could not be cut off it ({again.strerror or again}): it may be its last line"
        else:
            try:
                os.fsync(self._fd)
                kept = "it stands recorded up to the last accepted input"
            except OSError as again:
                kept = f"the refused input was cut off it, but the cut could not be synced ({again.strerror or again})"
        self.failed = JournalWriteError(
            f"cannot write the journal {self.path}: {why}; the game takes no more inputs; {kept}")
        raise self.failed from None

    # ------------------------------------------------------------ deleted or moved away

    def _in_place(self) -> bool:
        """Our file is still the one at our path (not deleted, not moved away)."""
        assert self._fd is not None
        try:
            ours = os.fstat(self._fd)
            there = os.stat(self.path)
        except OSError:
            return False
        return ours.st_nlink > 0 and (ours.st_dev, ours.st_ino) == (there.st_dev, there.st_ino)

    def _write_anew(self) -> None:
        """Every line written so far, into a new file at our path (or, if that
        is taken, a fresh one beside it), locked and synced; the key with it."""
        old = self.path
        what = "it was deleted or moved away, and cannot be written anew: "
        try:
            fd, path = self._new_file()
        except OSError as exc:
            self._fail(exc, what)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._append(fd, bytes(self._written))
            os.fsync(fd)
        except OSError as exc:
            os.close(fd)
            self._fail(exc, what)
        previous, self._fd, self.path = self._fd, fd, path
        Journal.opened.append(path)
        if previous is not None:
            os.close(previous)
        if self.key is not None and self.game is not None:
            self._keep_key()
        self._sync_folder()
        self.moved.append((old, path))

    def _new_file(self) -> tuple[int, Path]:
        """A file created at our path if it is free, else the first free `<stem>.N<suffix>` beside it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        candidates = [self.path] + [self.path.with_name(f"{self.path.stem}.{n}{self.path.suffix}")
                                    for n in range(2, 100)]
        for path in candidates:
            if self.key is not None and path != self.path and key_path(path).exists():
                continue
            try:
                return os.open(path, flags, 0o600), path
            except FileExistsError:
                continue
        raise OSError(errno.EEXIST, f"no free name beside {self.path}")

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def close(self) -> None:
        if self._fd is not None and self.held and self.failed is None:
            try:
                self.flush()
            except (JournalWriteError, InputError):
                pass   # the game stands recorded up to its last written input
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)  # releases the lock
            except OSError:
                pass

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
