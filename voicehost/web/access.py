"""Who may use the host's page, and from where.

A pairing link (or a 6-digit PIN) pairs ONE device; then both are replaced.
The first host device pairs at once; every later one waits until a paired host
device approves it on its page (a judge's link, made on a host device, is that
approval). A paired device holds an HttpOnly, SameSite=Strict cookie signed
with a key kept beside the journal (mode 0600), so a game resumed after a crash
keeps its paired devices; the host can revoke any of them.

The cookie alone does nothing: every request of a paired device carries a
proof, an HMAC of the request under the device's own key. That key never
crosses the network: a link's key is in its #fragment (which browsers never
send), a PIN's is agreed by ECDH (P-256) between the page and the table. Each
proof names this server's epoch and a counter used once, so a captured request
cannot be replayed.

Wrong PINs pause the client that typed them, and count for the PIN itself
whatever the address: after PIN_TRIES_IN_ALL wrong ones (from anywhere) the
6-digit PIN is replaced by a 12-digit one, printed in the terminal, until the
next device pairs. Nobody's wrong tries ever close the PIN (a pause for everyone
let a few strangers' requests every 5 minutes keep the host's right PIN refused):
a 12-digit PIN is what keeps guessing hopeless instead (tools/bench_pin prints
the chance over an evening). Every request must name
an allowed Host (no DNS rebinding); every POST and live-update connection must
come from an allowed Origin."""
from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

from voicehost.jsontypes import JSONOutObject, JSONValue
from voicehost.web.devices import Counters, Devices, b64, proof_mac
from voicehost.web.validate import Refusal

log = logging.getLogger(__name__)

COOKIE = "vh_session"
PROOF_HEADER = "X-VH-Proof"
FREE_PIN_TRIES = 3            # wrong PINs one address may type before its own pause
FIRST_PAUSE = 5.0
LONGEST_PAUSE = 600.0
PIN_TRIES_IN_ALL = 5          # wrong PINs, from any address, a 6-digit PIN survives
PIN_DIGITS, LONG_PIN_DIGITS = 6, 12   # then a 12-digit PIN until the next device pairs
SESSION_SECONDS = 24 * 3600
CLIENTS_REMEMBERED = 4096
PENDING_SECONDS = 300.0       # how long a device waits for the host's approval
PENDING_MAX = 8
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


@dataclass
class Pending:
    """A device that opened a valid link or typed the right PIN, waiting for a host's approval."""
    kind: str
    via: str
    key: bytes
    at: float
    code: str
    cookie: str | None = None
    refused: bool = False
    counters: Counters = field(default_factory=lambda: Counters())


@dataclass
class Grant:
    """What a right PIN or an unspent link gives: a cookie now, or a place in the queue."""
    cookie: str | None = None
    pending: str | None = None
    code: str = ""


class Access:
    def __init__(self, hosts: set[str], devices: Devices | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.hosts = {h.lower() for h in hosts}
        self.origins: set[str] | None = None   # None: http:// of every allowed host
        self.devices = devices or Devices()
        self.clock = clock
        self.epoch = secrets.token_urlsafe(9)
        self.token, self.link_key = "", b""
        self.pin = ""
        self.new_token()
        self.new_pin()
        self.judge_tokens: dict[str, bytes] = {}
        self.failures: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self.wrong_in_all = 0       # wrong PINs (from anywhere) since this PIN was made
        self.pending: OrderedDict[str, Pending] = OrderedDict()
        self.counters: dict[str, Counters] = {}
        self.reveal: dict[str, bool] = {}
        self.announce: Callable[[str], None] = lambda what: None   # a pairing event, for the terminal
        self.on_proven: Callable[[str], None] = lambda address: None   # an address that proved a device

    # ----------------------------------------------------------- pairing

    def new_token(self) -> str:
        self.token, self.link_key = secrets.token_urlsafe(24), secrets.token_bytes(32)
        return self.token

    def new_pin(self, digits: int = PIN_DIGITS) -> str:
        self.pin = f"{secrets.randbelow(10 ** digits):0{digits}d}"
        self.wrong_in_all = 0
        return self.pin

    def pin_shown(self) -> str:
        """The PIN as the terminal prints it: a long one in groups of four."""
        if len(self.pin) <= PIN_DIGITS:
            return self.pin
        return " ".join(self.pin[i:i + 4] for i in range(0, len(self.pin), 4))

    def link_path(self) -> str:
        """The host link's path and fragment: the fragment is its key and never reaches a server."""
        return f"/pair/{self.token}#{b64(self.link_key)}"

    def new_judge_link(self) -> str:
        token, key = secrets.token_urlsafe(24), secrets.token_bytes(32)
        self.judge_tokens = dict(list(self.judge_tokens.items())[-4:])
        self.judge_tokens[token] = key
        return f"/pair/{token}#{b64(key)}"

    def needs_approval(self) -> bool:
        return any(r.get("kind") == HOST for r in self.devices.paired.values())

    def use_token(self, token: str) -> Grant | None:
        """The host link pairs one device (then a new link and PIN are made); a judge's link,
        made on a host device, pairs its judge at once."""
        for judge, key in list(self.judge_tokens.items()):
            if hmac.compare_digest(token.encode(), judge.encode()):
                del self.judge_tokens[judge]
                return Grant(cookie=self._pair(JUDGE, "link", key))
        if self.token and hmac.compare_digest(token.encode(), self.token.encode()):
            key = self.link_key
            self._spent()
            return self._grant("link", key)
        return None

    def pin_wait(self, client: str) -> float:
        """Seconds this client must still wait before its next PIN try (0: go ahead)."""
        failures, until = self.failures.get(client, (0, 0.0))
        return max(0.0, until - self.clock())

    def pin_tries_left(self, client: str) -> int:
        mine = max(0, FREE_PIN_TRIES - self.failures.get(client, (0, 0.0))[0])
        return mine if len(self.pin) > PIN_DIGITS else min(mine, PIN_TRIES_IN_ALL - self.wrong_in_all)

    def use_pin(self, pin: str, client: str = "", key: bytes | None = None) -> Grant | None:
        """A right PIN (with the key the page agreed) pairs one device; a wrong one counts."""
        if self.pin_wait(client) > 0:
            return None
        typed = "".join(pin.split())   # a long PIN as the terminal groups it, or typed in one run
        if key is not None and hmac.compare_digest(typed.encode(), self.pin.encode()):
            self.failures.pop(client, None)
            self._spent()
            return self._grant("pin", key)
        self.pin_failed(client)
        return None

    def pin_failed(self, client: str) -> None:
        """A wrong PIN, or a body that is no PIN at all: it counts for the client and, while the
        PIN is a 6-digit one, for the PIN (its last wrong try makes it a 12-digit one)."""
        failures = self.failures.pop(client, (0, 0.0))[0] + 1
        pause = 0.0 if failures < FREE_PIN_TRIES else min(LONGEST_PAUSE,
                                                          FIRST_PAUSE * 2 ** (failures - FREE_PIN_TRIES))
        self.failures[client] = (failures, self.clock() + pause)
        while len(self.failures) > CLIENTS_REMEMBERED:
            self.failures.popitem(last=False)
        if len(self.pin) > PIN_DIGITS:
            return
        self.wrong_in_all += 1
        if self.wrong_in_all >= PIN_TRIES_IN_ALL:
            self.new_pin(LONG_PIN_DIGITS)
            log.warning("%d wrong PINs: a new, %d-digit PIN", PIN_TRIES_IN_ALL, LONG_PIN_DIGITS)
            self.announce("pin_replaced")

    def _spent(self) -> None:
        """The terminal's link and PIN pair one device each: both are made anew."""
        self.new_token()
        self.new_pin()

    def _grant(self, via: str, key: bytes) -> Grant:
        if not self.needs_approval():
            grant = Grant(cookie=self._pair(HOST, via, key))
            self.announce("paired")
            return grant
        now = self.clock()
        for old, waiting in list(self.pending.items()):
            if now - waiting.at > PENDING_SECONDS:
                del self.pending[old]
        while len(self.pending) >= PENDING_MAX:
            self.pending.popitem(last=False)
        ident = secrets.token_urlsafe(12)
        code = f"{secrets.randbelow(10 ** 4):04d}"
        self.pending[ident] = Pending(HOST, via, key, now, code)
        self.announce("pending")
        return Grant(pending=ident, code=code)

    def approve(self, ident: str, yes: bool) -> bool:
        waiting = self.pending.get(ident)
        if waiting is None or waiting.cookie is not None or waiting.refused:
            return False
        if yes:
            waiting.cookie = self._pair(waiting.kind, waiting.via, waiting.key)
        else:
            waiting.refused = True
        return True

    def pending_list(self) -> list[JSONOutObject]:
        now = self.clock()
        return [{"id": ident, "via": p.via, "code": p.code, "age": int(now - p.at)}
                for ident, p in self.pending.items()
                if p.cookie is None and not p.refused and now - p.at <= PENDING_SECONDS]

    def _pair(self, kind: str, via: str, key: bytes) -> str:
        device = self.devices.add(kind, via, key)
        return f"{device}.{self.devices.sign('session', device)}"

    # ----------------------------------------------------------- proofs

    def proof_ok(self, request: web.Request, key: bytes, counters: Counters) -> bool:
        """The request's proof (header, or `proof` in the query for a live channel) under `key`."""
        proof = request.headers.get(PROOF_HEADER) or request.query.get("proof", "")
        epoch, _, rest = proof.partition(".")
        counter, _, mac = rest.partition(".")
        if (not hmac.compare_digest(epoch.encode("utf-8", "replace"), self.epoch.encode())
                or not counter.isascii() or not counter.isdigit() or len(counter) > 18 or not mac):
            return False
        body = request.get(BODY, b"")
        path = request.raw_path.split("?", 1)[0]
        expected = proof_mac(key, self.epoch, int(counter), request.method, path, body)
        if not hmac.compare_digest(mac.encode("utf-8", "replace"), expected.encode()):
            return False
        return counters.use(int(counter))

    # ----------------------------------------------------------- sessions

    def session(self, request: web.Request) -> Session | None:
        """The device the cookie names (no proof asked: for pages that hold no secret)."""
        device, _, signature = request.cookies.get(COOKIE, "").partition(".")
        if not device or len(device) > 12 or not signature:
            return None
        if not hmac.compare_digest(signature.encode(), self.devices.sign("session", device).encode()):
            return None
        record = self.devices.paired.get(device)
        if record is None or time.time() - _seconds(record.get("at")) > SESSION_SECONDS:
            return None
        return Session(device, str(record.get("kind", JUDGE)), self.devices.sign("csrf", device),
                       self.reveal.get(device, False))

    def proven_session(self, request: web.Request) -> Session:
        """The cookie's device, and this request's proof under that device's key; else a refusal."""
        session = self.session(request)
        if session is None:
            raise Refusal(401, "not_paired")
        key = self.devices.device_key(session.id)
        counters = self.counters.setdefault(session.id, Counters())
        if key is None or not self.proof_ok(request, key, counters):
            raise Refusal(401, "no_proof", epoch=self.epoch)
        self.on_proven(request.remote or "")
        return session

    def revoke(self, device: str) -> bool:
        self.reveal.pop(device, None)
        self.counters.pop(device, None)
        return self.devices.remove(device)

    def device_list(self, current: str) -> list[JSONOutObject]:
        return [{"id": device, "kind": record.get("kind"), "via": record.get("via"),
                 "at": time.strftime("%H:%M", time.localtime(_seconds(record.get("at")))),
                 "current": device == current}
                for device, record in sorted(self.devices.paired.items(), key=lambda kv: int(kv[0]))]

    # ----------------------------------------------------------- checks

    def host_allowed(self, request: web.Request) -> bool:
        return request.host.lower() in self.hosts

    def origin_allowed(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin", "").lower()
        if self.origins is not None:  # the LAN: an https origin for HTTPS, the board's own for plain HTTP
            return origin in self.origins and origin.startswith("https://") == request.secure
        return origin in {f"http://{h}" for h in self.hosts}

    def set_cookie(self, response: web.StreamResponse, value: str, secure: bool = False) -> None:
        response.set_cookie(COOKIE, value, httponly=True, samesite="Strict", path="/",
                            max_age=SESSION_SECONDS, secure=secure)


def allowed_hosts(bound: str, port: int, extra: tuple[str, ...] = ()) -> set[str]:
    names = {"127.0.0.1", "localhost", "[::1]", bound, *extra}
    return {f"{name}:{port}" for name in names if name and name not in ("0.0.0.0", "::")}


ACCESS_KEY = web.AppKey("access", Access)
BODY = web.RequestKey("body", bytes)   # the request's body, read whole (and bounded) by the guard


def require_session(request: web.Request) -> Session:
    """A paired device (host or judge) with this request's proof, else 401."""
    return request.app[ACCESS_KEY].proven_session(request)


def require_host(request: web.Request) -> Session:
    """A paired host device (not a read-only judge), its proof and its CSRF token."""
    session = require_session(request)
    if not _csrf_ok(request, session):
        raise Refusal(403, "stale_page")
    if session.readonly:
        raise Refusal(403, "readonly")
    return session


def require_reader(request: web.Request) -> Session:
    """A paired host device with its proof: what may read the roles (a judge may not)."""
    session = require_session(request)
    if session.readonly:
        raise Refusal(403, "readonly")
    return session


def _csrf_ok(request: web.Request, session: Session) -> bool:
    token = request.headers.get("X-CSRF-Token", "")
    return hmac.compare_digest(token.encode("utf-8", "replace"), session.csrf.encode())


def _seconds(value: JSONValue) -> float:
    """A paired device's time as the devices file keeps it (none: the epoch)."""
    return float(value) if isinstance(value, int | float) else 0.0
