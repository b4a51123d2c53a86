"""Who may use the host's page, and from where.

A one-time pairing link (or a 6-digit PIN) pairs a device. A paired device
holds an HttpOnly, SameSite=Strict cookie signed with a key kept beside the
journal (mode 0600), so a game resumed after a crash keeps its paired devices;
the host can revoke any of them. Wrong PINs slow down only the client that
typed them, with a growing pause. Every request must name an allowed Host (no
DNS rebinding); every POST and live-update connection must come from an
allowed Origin; every POST carries the device's CSRF token."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from voicehost.files import write_atomic
from voicehost.web.validate import Refusal

log = logging.getLogger(__name__)

COOKIE = "vh_session"
FREE_PIN_TRIES = 3
FIRST_PAUSE = 5.0
LONGEST_PAUSE = 600.0
SESSION_SECONDS = 24 * 3600
CLIENTS_REMEMBERED = 4096
HOST, JUDGE = "host", "judge"

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


@dataclass
class Session:
    id: str
    kind: str
    csrf: str
    reveal_roles: bool = False

    @property
    def readonly(self) -> bool:
        return self.kind != HOST


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class Devices:
    """The signing key and the paired devices, in a 0600 file beside the journal
    (in memory only when there is no journal)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.key = secrets.token_bytes(32)
        self.paired: dict[str, dict[str, Any]] = {}
        self.serial = 0
        if path is not None and path.exists():
            self._load(path)
        elif path is not None:
            self.save()

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text("utf-8"))
            self.key = bytes.fromhex(data["key"])
            self.paired = {str(k): dict(v) for k, v in data.get("devices", {}).items()}
            self.serial = int(data.get("serial", len(self.paired)))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("paired devices file %s unreadable (%s): pairing starts afresh", path, exc)
            self.key, self.paired, self.serial = secrets.token_bytes(32), {}, 0
            self.save()
            return
        os.chmod(path, 0o600)

    def save(self) -> None:
        if self.path is None:
            return
        data = json.dumps({"key": self.key.hex(), "serial": self.serial, "devices": self.paired})
        try:
            write_atomic(self.path, data)   # its temp file is made 0600, so the key is never readable
        except OSError as exc:
            log.warning("cannot keep paired devices in %s (%s): a restart will need pairing again",
                        self.path, exc)
            self.path = None

    def add(self, kind: str, via: str) -> str:
        self.serial += 1
        device = str(self.serial)
        self.paired[device] = {"kind": kind, "via": via, "at": time.time()}
        self.save()
        return device

    def remove(self, device: str) -> bool:
        if self.paired.pop(device, None) is None:
            return False
        self.save()
        return True

    def sign(self, purpose: str, device: str) -> str:
        return _b64(hmac.new(self.key, f"{purpose}:{device}".encode(), hashlib.sha256).digest())


class Access:
    def __init__(self, hosts: set[str], devices: Devices | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.hosts = {h.lower() for h in hosts}
        self.devices = devices or Devices()
        self.clock = clock
        self.token = secrets.token_urlsafe(24)
        self.judge_tokens: set[str] = set()
        self.pin = f"{secrets.randbelow(10 ** 6):06d}"
        self.failures: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self.reveal: dict[str, bool] = {}

    # ----------------------------------------------------------- pairing

    def new_token(self) -> str:
        self.token = secrets.token_urlsafe(24)
        return self.token

    def new_judge_token(self) -> str:
        token = secrets.token_urlsafe(24)
        self.judge_tokens = set(list(self.judge_tokens)[-4:]) | {token}
        return token

    def use_token(self, token: str) -> str | None:
        """A new cookie for a one-time token, which is spent (a new host token is made)."""
        if hmac.compare_digest(token.encode(), self.token.encode()):
            self.new_token()
            return self._pair(HOST, "link")
        for judge in list(self.judge_tokens):
            if hmac.compare_digest(token.encode(), judge.encode()):
                self.judge_tokens.discard(judge)
                return self._pair(JUDGE, "link")
        return None

    def pin_wait(self, client: str) -> float:
        """Seconds this client must still wait before its next PIN try (0: go ahead)."""
        failures, until = self.failures.get(client, (0, 0.0))
        return max(0.0, until - self.clock())

    def pin_tries_left(self, client: str) -> int:
        return max(0, FREE_PIN_TRIES - self.failures.get(client, (0, 0.0))[0])

    def use_pin(self, pin: str, client: str = "") -> str | None:
        if self.pin_wait(client) > 0:
            return None
        if hmac.compare_digest(pin.strip().encode(), self.pin.encode()):
            self.failures.pop(client, None)
            return self._pair(HOST, "pin")
        failures = self.failures.pop(client, (0, 0.0))[0] + 1
        pause = 0.0 if failures < FREE_PIN_TRIES else min(LONGEST_PAUSE,
                                                          FIRST_PAUSE * 2 ** (failures - FREE_PIN_TRIES))
        self.failures[client] = (failures, self.clock() + pause)
        while len(self.failures) > CLIENTS_REMEMBERED:
            self.failures.popitem(last=False)
        return None

    def _pair(self, kind: str, via: str) -> str:
        device = self.devices.add(kind, via)
        return f"{device}.{self.devices.sign('session', device)}"

    # ----------------------------------------------------------- sessions

    def session(self, request: web.Request) -> Session | None:
        device, _, signature = request.cookies.get(COOKIE, "").partition(".")
        if not device or len(device) > 12 or not signature:
            return None
        if not hmac.compare_digest(signature.encode(), self.devices.sign("session", device).encode()):
            return None
        record = self.devices.paired.get(device)
        if record is None or time.time() - float(record.get("at", 0)) > SESSION_SECONDS:
            return None
        return Session(device, str(record.get("kind", JUDGE)), self.devices.sign("csrf", device),
                       self.reveal.get(device, False))

    def revoke(self, device: str) -> bool:
        self.reveal.pop(device, None)
        return self.devices.remove(device)

    def device_list(self, current: str) -> list[dict[str, Any]]:
        return [{"id": device, "kind": record.get("kind"), "via": record.get("via"),
                 "at": time.strftime("%H:%M", time.localtime(float(record.get("at", 0)))),
                 "current": device == current}
                for device, record in sorted(self.devices.paired.items(), key=lambda kv: int(kv[0]))]

    # ----------------------------------------------------------- checks

    def host_allowed(self, request: web.Request) -> bool:
        return request.host.lower() in self.hosts

    def origin_allowed(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin", "")
        return origin.lower() in {f"http://{h}" for h in self.hosts}

    def set_cookie(self, response: web.StreamResponse, value: str) -> None:
        response.set_cookie(COOKIE, value, httponly=True, samesite="Strict", path="/",
                            max_age=SESSION_SECONDS)


def devices_file(journal: Path | None) -> Path | None:
    """Where a game's paired devices and signing key live: beside its journal."""
    return journal.with_name(journal.name + ".devices") if journal is not None else None


def allowed_hosts(bound: str, port: int, extra: tuple[str, ...] = ()) -> set[str]:
    names = {"127.0.0.1", "localhost", "[::1]", bound, *extra}
    return {f"{name}:{port}" for name in names if name and name not in ("0.0.0.0", "::")}


ACCESS_KEY = web.AppKey("access", Access)


def require_session(request: web.Request) -> Session:
    """A paired device (host or judge), else 401."""
    session = request.app[ACCESS_KEY].session(request)
    if session is None:
        raise Refusal(401, "not_paired")
    return session


def require_host(request: web.Request) -> Session:
    """A paired host device (not a read-only judge) with the right CSRF token."""
    session = require_session(request)
    if not _csrf_ok(request, session):
        raise Refusal(403, "stale_page")
    if session.readonly:
        raise Refusal(403, "readonly")
    return session


def _csrf_ok(request: web.Request, session: Session) -> bool:
    token = request.headers.get("X-CSRF-Token", "")
    return hmac.compare_digest(token.encode("utf-8", "replace"), session.csrf.encode())
