"""Files at the edges: the one atomic writer, and the checks every command makes
on its input and output paths before anything starts (a FIFO would hang, a
missing folder would lose a finished game)."""
from __future__ import annotations

import contextlib
import os
import re
import stat
import struct
import sys
import tempfile
from pathlib import Path

from voicehost.errors import InputError


def write_atomic(path: Path, text: str) -> None:
    """`text` to `path`, whole or not at all: a temp file beside it, synced, then
    renamed into place; the temp file is removed on any failure. Text that cannot
    be UTF-8 (a lone surrogate) is written escaped. OSError is left to the caller."""
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def input_file(path: Path | None, flag: str) -> None:
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


JOURNAL_START = b'{"journal":'    # every voicehost journal's first bytes
KEY_START = b'{"game": "'         # a journal key's (voicehost.journal.keys)
_JOURNAL_HEAD = re.compile(rb'\s*\{\s*"journal"\s*:')   # any version's header, however it was spaced


def kept_record(path: Path) -> str | None:
    """What irreplaceable record a file is, if it is one: a journal (its header,
    even torn) or a journal's key; None for anything else."""
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError:
        return None
    if head and (_JOURNAL_HEAD.match(head) or JOURNAL_START.startswith(head)):
        return "a voicehost journal (a game's record)"
    if head and head.startswith(KEY_START[:len(head)]) and path.name.endswith(".key"):
        return "a journal's key"
    return None


def not_a_record(path: Path, flag: str) -> None:
    """An output never replaces a journal or its key: a game would be lost."""
    what = kept_record(path)
    if what is not None:
        raise InputError(f"{flag} {path}: is {what}; writing there would destroy it: give another file")


def output_file(path: Path | None, flag: str, *, journal: bool = False) -> None:
    """An output's folder must exist and take files; checked before the game, not after it.
    No output but a new game's journal (`journal`, which has checks of its own) may be a journal."""
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
    if not journal:
        not_a_record(path, flag)


def _same(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def apart(outputs: dict[str, Path | None], inputs: dict[str, Path | None] | None = None) -> None:
    """No two outputs of one command are the same file (the one would overwrite
    the other), and no output is one of its inputs (it would be destroyed)."""
    def given(paths: dict[str, Path | None]) -> list[tuple[str, Path]]:
        return [(flag, path) for flag, path in paths.items() if path is not None and str(path) != "-"]
    named, sources = given(outputs), given(inputs or {})
    for index, (flag, path) in enumerate(named):
        for other, there in named[:index]:
            if _same(path, there):
                raise InputError(f"{flag} {path} is the same file as {other} {there}: the one would "
                                 f"overwrite the other; give them different names")
        for source, there in sources:
            if _same(path, there):
                raise InputError(f"{flag} {path} is the same file as {source} {there}: writing there "
                                 f"would destroy it; give another file")


def journal_outputs(flag: str, journal: Path | None) -> dict[str, Path | None]:
    """A journal's own files: itself, its key and its paired devices."""
    if journal is None:
        return {}
    return {flag: journal, "the journal's key": journal.with_name(journal.name + ".key"),
            "the journal's paired devices file": journal.with_name(journal.name + ".devices")}


def read_input(name: str | None) -> str:
    """A file's text, or standard input for None or "-"."""
    if name is None or name == "-":
        return sys.stdin.read()
    try:
        return Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {name}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{name} is not UTF-8 text") from None


def wav_format(path: Path) -> tuple[int, int, int]:
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


def wav_file(path: Path | None, flag: str) -> None:
    """A WAV whose header says 0 Hz or 0 channels cannot be played (it divided by zero)."""
    if path is None:
        return
    input_file(path, flag)
    try:
        channels, rate, bits = wav_format(path)
    except (OSError, ValueError, struct.error):
        return  # not a WAV at all: the reader says so, with how to convert it
    if rate <= 0 or channels <= 0 or bits <= 0:
        raise InputError(f"{flag} {path}: the WAV header says {rate} Hz, {channels} channel(s), "
                         f"{bits}-bit; not playable")
