"""`voicehost models download`: fetches the speech model and a voice from
their official addresses, with SHA-256 checks, a progress bar, and resume of
an interrupted download."""
from __future__ import annotations

import hashlib
import http.client
import json
import re
import sys
import tomllib
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from voicehost.errors import VoicehostError
from voicehost.jsonio import read_json_file
from voicehost.paths import MANIFEST, MODELS

CHUNK = 1 << 16
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class DownloadError(VoicehostError):
    """A download that failed: offline, refused, or a checksum that does not match."""


@dataclass(frozen=True)
class RemoteFile:
    url: str
    sha256: str

    @property
    def name(self) -> str:
        return self.url.rsplit("/", 1)[-1].split("?", 1)[0]


@dataclass(frozen=True)
class Entry:
    kind: str            # asr | voice
    key: str
    description: str
    files: tuple[RemoteFile, ...]
    unpack: str = ""
    folder: str = ""
    default: bool = False  # the one fetched for its language when none is named
    language: str = ""     # the table language it is for (a ruleset's `language`)

    @property
    def installed_name(self) -> str:
        """What `install` leaves in the models folder: the model's folder, or the voice's .onnx."""
        return self.folder or self.files[0].name


def load_manifest(path: Path = MANIFEST) -> dict[str, Entry]:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DownloadError(f"cannot read the model manifest {path}: {exc}") from None
    entries = {}
    for kind in ("asr", "voice"):
        for key, item in data.get(kind, {}).items():
            files = tuple(RemoteFile(f["url"], f.get("sha256", "").lower()) for f in item["files"])
            entries[f"{kind}.{key}"] = Entry(kind, key, item.get("description", ""), files,
                                             item.get("unpack", ""), item.get("folder", ""),
                                             bool(item.get("default", False)), item.get("language", ""))
    return entries


def pick(entries: dict[str, Entry], kind: str, key: str | None, language: str = "ru") -> Entry:
    """The entry named `key`, or without a name the default one for the table's language."""
    if key is None:
        defaults = [e for e in entries.values() if e.kind == kind and e.default and e.language == language]
        if not defaults:
            raise DownloadError(f"the manifest names no default {kind} for the language {language!r}")
        return defaults[0]
    name = f"{kind}.{key}"
    if name not in entries:
        known = ", ".join(e.key for e in entries.values() if e.kind == kind)
        raise DownloadError(f"unknown {kind} '{key}' (known: {known})")
    return entries[name]


def default_path(kind: str, language: str, folder: Path = MODELS) -> Path:
    """Where the default speech model (`asr`) or voice (`voice`) of a table
    language lands with `voicehost models download`: what an empty
    `[asr] model` / `[tts] voice` in config.toml loads."""
    return folder / pick(load_manifest(), kind, None, language).installed_name


class Progress:
    """A progress bar on a terminal; a line every 10 % elsewhere (logs, screen readers)."""

    def __init__(self, name: str, total: int | None, stream: TextIO = sys.stderr) -> None:
        self.name, self.total, self.stream = name, total, stream
        self.tty = stream.isatty()
        self._last = -1

    def update(self, done: int) -> None:
        if not self.total:
            return
        share = min(100, done * 100 // self.total)
        if self.tty:
            bar = "#" * (share // 4)
            self.stream.write(f"\r{self.name} [{bar:<25}] {share:3d}% {done >> 20}/{self.total >> 20} MB")
        elif share // 10 != self._last // 10:
            self.stream.write(f"{self.name}: {share}%\n")
        self._last = share
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\n")


def _lock_path(folder: Path) -> Path:
    return folder / "checksums.lock"


def _pinned(folder: Path) -> dict[str, str]:
    try:
        pinned: dict[str, str] = read_json_file(_lock_path(folder), "checksums lock")
        return pinned
    except VoicehostError:
        return {}


def _pin(folder: Path, name: str, digest: str) -> None:
    pins = _pinned(folder)
    pins[name] = digest
    _lock_path(folder).write_text(json.dumps(pins, indent=2, sort_keys=True) + "\n", "utf-8")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _host(url: str) -> str:
    return url.split("/")[2] if "://" in url else url


def _open(url: str, offset: int, timeout: float) -> http.client.HTTPResponse | None:
    request = urllib.request.Request(url, headers={"User-Agent": "voicehost"})
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    try:
        response: http.client.HTTPResponse = urllib.request.urlopen(request, timeout=timeout)
        return response
    except urllib.error.HTTPError as exc:
        if exc.code == 416:  # the part file is already whole
            return None
        raise DownloadError(f"{_host(url)} refused {url.rsplit('/', 1)[-1]}: HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DownloadError(
            f"cannot reach {_host(url)} ({reason}): voicehost needs the internet once to fetch its "
            f"models; connect and run `voicehost models download` again (it resumes), or copy the "
            f"models/ folder from another machine") from None


def fetch(remote: RemoteFile, folder: Path, *, progress: Callable[[str, int | None], Progress] = Progress,
          timeout: float = 30.0) -> Path:
    """Download one file into `folder`, resuming a `.partial`, and check its SHA-256."""
    target = folder / remote.name
    part = target.with_name(target.name + ".partial")
    offset = part.stat().st_size if part.exists() else 0
    response = _open(remote.url, offset, timeout)
    published = ""
    if response is not None:
        with response:
            published = (response.headers.get("X-Linked-Etag") or "").strip('"').lower()
            if offset and response.status != 206:
                offset = 0  # the server ignored the range: start over
            length = response.headers.get("Content-Length")
            total = offset + int(length) if length else None
            bar = progress(remote.name, total)
            done = _receive(response, part, offset, bar)
            bar.done()
            if total is not None and done < total:
                raise DownloadError(f"the download of {remote.name} was cut off at {done >> 20} of "
                                    f"{total >> 20} MB: run `voicehost models download` again to resume")
    _check(remote, part, folder, published if _HEX64.match(published) else "")
    part.replace(target)
    return target


def _receive(response: http.client.HTTPResponse, part: Path, offset: int, bar: Progress) -> int:
    done = offset
    with part.open("ab" if offset else "wb") as out:
        try:
            for block in iter(lambda: response.read(CHUNK), b""):
                out.write(block)
                done += len(block)
                bar.update(done)
        except (http.client.HTTPException, OSError):
            pass  # what arrived is kept; the caller sees the shortfall
    return done


def _check(remote: RemoteFile, part: Path, folder: Path, published: str) -> None:
    digest = sha256_of(part)
    expected = remote.sha256 or published or _pinned(folder).get(remote.name, "")
    if expected and digest != expected:
        part.unlink()
        raise DownloadError(f"{remote.name}: SHA-256 {digest[:16]}… does not match the expected "
                            f"{expected[:16]}…; the damaged download was removed, run the command again")
    if not expected:
        _pin(folder, remote.name, digest)


def install(entry: Entry, folder: Path = MODELS, *,
            progress: Callable[[str, int | None], Progress] = Progress, timeout: float = 30.0) -> Path:
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        paths = [fetch(remote, folder, progress=progress, timeout=timeout) for remote in entry.files]
    except DownloadError:
        if made and not any(folder.iterdir()):   # offline: no empty models/ that looks like an install
            folder.rmdir()
        raise
    if entry.unpack == "zip":
        try:
            with zipfile.ZipFile(paths[0]) as archive:
                archive.extractall(folder)
        except zipfile.BadZipFile:
            raise DownloadError(f"{paths[0].name} is not a valid zip archive; delete it and retry") from None
        paths[0].unlink()
        return folder / entry.folder
    return paths[0]


def verify(folder: Path = MODELS) -> list[tuple[str, bool]]:
    """Files pinned in checksums.lock, each with whether it still matches."""
    return [(name, (folder / name).is_file() and sha256_of(folder / name) == digest)
            for name, digest in sorted(_pinned(folder).items()) if (folder / name).exists()]
