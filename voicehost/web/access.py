"""Who may use the host's page, and from where.

A one-time pairing link (or a 6-digit PIN, locked after 5 failures) turns
into an HttpOnly, SameSite=Strict session cookie. Every request must name an
allowed Host (no DNS rebinding); every POST and live-update connection must
come from an allowed Origin; every POST carries the session's CSRF token."""
from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass, field

from aiohttp import web

COOKIE = "vh_session"
PIN_TRIES = 5
SESSION_SECONDS = 24 * 3600

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
    csrf: str
    created: float = field(default_factory=time.monotonic)
    reveal_roles: bool = False


class Access:
    def __init__(self, hosts: set[str]) -> None:
        self.hosts = {h.lower() for h in hosts}
        self.token = secrets.token_urlsafe(24)
        self.pin = f"{secrets.randbelow(10 ** 6):06d}"
        self.pin_failures = 0
        self.sessions: dict[str, Session] = {}

    # ----------------------------------------------------------- pairing

    def new_token(self) -> str:
        self.token = secrets.token_urlsafe(24)
        return self.token

    def use_token(self, token: str) -> str | None:
        """A new session id for the one-time token, which is spent (a new one is made)."""
        if not hmac.compare_digest(token.encode(), self.token.encode()):
            return None
        self.new_token()
        return self._open_session()

    @property
    def pin_locked(self) -> bool:
        return self.pin_failures >= PIN_TRIES

    def use_pin(self, pin: str) -> str | None:
        if self.pin_locked:
            return None
        if hmac.compare_digest(pin.strip().encode(), self.pin.encode()):
            self.pin_failures = 0
            return self._open_session()
        self.pin_failures += 1
        return None

    def _open_session(self) -> str:
        sid = secrets.token_urlsafe(32)
        self.sessions[sid] = Session(csrf=secrets.token_urlsafe(24))
        return sid

    def session(self, request: web.Request) -> Session | None:
        sid = request.cookies.get(COOKIE, "")
        session = self.sessions.get(sid)
        if session is None or time.monotonic() - session.created > SESSION_SECONDS:
            return None
        return session

    # ----------------------------------------------------------- checks

    def host_allowed(self, request: web.Request) -> bool:
        return request.host.lower() in self.hosts

    def origin_allowed(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin", "")
        return origin.lower() in {f"http://{h}" for h in self.hosts}

    def set_cookie(self, response: web.StreamResponse, sid: str) -> None:
        response.set_cookie(COOKIE, sid, httponly=True, samesite="Strict", path="/",
                            max_age=SESSION_SECONDS)


def allowed_hosts(bound: str, port: int, extra: tuple[str, ...] = ()) -> set[str]:
    names = {"127.0.0.1", "localhost", "[::1]", bound, *extra}
    return {f"{name}:{port}" for name in names if name and name != "0.0.0.0"}


ACCESS_KEY = web.AppKey("access", Access)


@web.middleware
async def guard(request: web.Request, handler):
    """Host allowlist on everything; Origin on every POST and live channel; headers on every answer."""
    access: Access = request.app[ACCESS_KEY]
    if not access.host_allowed(request):
        response = web.Response(status=421, text="this host name is not served here\n")
    elif (request.method == "POST" or request.path.endswith("/ws")) and not access.origin_allowed(request):
        response = web.json_response({"error": "request from a foreign origin refused"}, status=403)
    else:
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            response = web.Response(status=exc.status, text=exc.text, content_type=exc.content_type,
                                    headers={k: v for k, v in exc.headers.items() if k != "Content-Type"})
    if not response.prepared:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if request.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
    return response


def require_session(request: web.Request) -> Session:
    session = request.app[ACCESS_KEY].session(request)
    if session is None:
        raise web.HTTPUnauthorized(text='{"error": "pair this device first: open the link or enter the PIN"}',
                                   content_type="application/json")
    return session


def require_csrf(request: web.Request, session: Session) -> None:
    token = request.headers.get("X-CSRF-Token", "")
    if not hmac.compare_digest(token.encode(), session.csrf.encode()):
        raise web.HTTPForbidden(text='{"error": "missing or wrong CSRF token: reload the page"}',
                                content_type="application/json")
