"""A device's keys and proofs, and the file of paired devices.

A paired device proves each request with an HMAC under its own key
(`proof_mac`), naming a counter used once (`Counters`); a PIN-paired device's
key comes from the ECDH secret (`pin_key`). `Devices` keeps the table's signing
key and the paired devices in a 0600 file beside the journal, so a game resumed
after a crash keeps them. Who may pair and how: voicehost.web.access."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from pathlib import Path

from voicehost.errors import VoicehostError
from voicehost.files import write_atomic
from voicehost.jsonio import read_json_file
from voicehost.jsontypes import JSONObject

log = logging.getLogger(__name__)

PROOF_WINDOW = 64             # how far behind the newest counter a proof may come (tabs, reordering)
PIN_KEY_LABEL = b"voicehost pin key"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def proof_mac(key: bytes, epoch: str, counter: int, method: str, path: str, body: bytes) -> str:
    """The proof of one request: HMAC-SHA256 over epoch, counter, method, path and body."""
    head = f"{epoch}\n{counter}\n{method.upper()}\n{path}\n".encode()
    return b64(hmac.new(key, head + body, hashlib.sha256).digest())


def pin_key(shared: bytes) -> bytes:
    """A PIN-paired device's key, from the ECDH secret both sides computed."""
    return hashlib.sha256(PIN_KEY_LABEL + shared).digest()


def decode_key(text: object) -> bytes | None:
    """A key the page sends (base64url), or None when it is not one."""
    if not isinstance(text, str) or len(text) > 200:
        return None
    try:
        return unb64(text)
    except (ValueError, binascii.Error):
        return None


def devices_file(journal: Path | None) -> Path | None:
    """Where a game's paired devices and signing key live: beside its journal."""
    return journal.with_name(journal.name + ".devices") if journal is not None else None


class Counters:
    """The counters a device's proofs have used: each once, none far behind the newest."""

    def __init__(self) -> None:
        self.high = 0
        self.seen: set[int] = set()

    def use(self, counter: int) -> bool:
        if counter <= self.high - PROOF_WINDOW or counter in self.seen:
            return False
        self.seen.add(counter)
        if counter > self.high:
            self.high = counter
            self.seen = {c for c in self.seen if c > self.high - PROOF_WINDOW}
        return True


class Devices:
    """The signing key and the paired devices, in a 0600 file beside the journal
    (in memory only when there is no journal)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.key = secrets.token_bytes(32)
        self.paired: dict[str, JSONObject] = {}
        self.serial = 0
        self.tv = secrets.token_urlsafe(9)
        if path is not None and path.exists():
            self._load(path)
        elif path is not None:
            self.save()

    def _load(self, path: Path) -> None:
        try:
            data = read_json_file(path, "paired devices file")
            self.key = bytes.fromhex(data["key"])
            self.paired = {str(k): dict(v) for k, v in data.get("devices", {}).items()}
            self.serial = int(data.get("serial", len(self.paired)))
            self.tv = str(data.get("tv") or self.tv)
        except (VoicehostError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("paired devices file %s unreadable (%s): pairing starts afresh", path, exc)
            self.key, self.paired, self.serial = secrets.token_bytes(32), {}, 0
            self.save()
            return
        os.chmod(path, 0o600)

    def save(self) -> None:
        if self.path is None:
            return
        data = json.dumps({"key": self.key.hex(), "serial": self.serial, "tv": self.tv, "devices": self.paired})
        try:
            write_atomic(self.path, data)   # its temp file is made 0600, so the key is never readable
        except OSError as exc:
            log.warning("cannot keep paired devices in %s (%s): a restart will need pairing again",
                        self.path, exc)
            self.path = None

    def add(self, kind: str, via: str, key: bytes | None = None) -> str:
        self.serial += 1
        device = str(self.serial)
        self.paired[device] = {"kind": kind, "via": via, "at": time.time(),
                               "key": (key or secrets.token_bytes(32)).hex()}
        self.save()
        return device

    def remove(self, device: str) -> bool:
        if self.paired.pop(device, None) is None:
            return False
        self.save()
        return True

    def device_key(self, device: str) -> bytes | None:
        try:
            return bytes.fromhex(str(self.paired[device]["key"]))
        except (KeyError, ValueError):
            return None

    def sign(self, purpose: str, device: str) -> str:
        return b64(hmac.new(self.key, f"{purpose}:{device}".encode(), hashlib.sha256).digest())
