"""The companion page server: aiohttp in the same asyncio loop as the game.

Every host input goes through the moderator; an input that does not fit gets
a 4xx with a reason in the table's language and changes nothing. Whatever a
client sends, the answer is a JSON 4xx, never a 500."""
from __future__ import annotations

import asyncio
import hmac
import html
import json
import logging
import re
import resource
import secrets
import sys
from collections import Counter
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qs

from aiohttp import WSMsgType, web

from voicehost.errors import GameError, InputError, VoicehostError
from voicehost.game.events import parse_event
from voicehost.game.model import Output
from voicehost.game.protocol import protocol
from voicehost.journal import HOST_INPUTS, last_host_input
from voicehost.live import LiveTable
from voicehost.web.access import ACCESS_KEY, HEADERS, Access, Devices, Session, allowed_hosts, devices_file
from voicehost.web.lan import lan_address, local_names
from voicehost.web.state import host_state, protocol_csv, table_state
from voicehost.web.texts import TEXTS_KEY, Texts
from voicehost.web.validate import Refusal, check_input, read_json

log = logging.getLogger(__name__)
ACCESS = ACCESS_KEY
HUB: web.AppKey["Hub"] = web.AppKey("hub")
OUT = web.AppKey("out", object)
PAIR_URL = web.AppKey("pair_url", object)
BASE_URL = web.AppKey("base_url", object)
STATIC = Path(__file__).resolve().parent / "static"
PAGE_INPUTS = HOST_INPUTS | {"setup"}
# Live channels: a TV, a host's phone and a judge need a handful; a thousand idle
# ones from one client must not starve the host's requests of file descriptors.
# Public (table) channels count per client address; a paired device's own
# channels count apart, so idle public ones can never lock the host out.
SOCKETS_PER_CLIENT = 8
SOCKETS_IN_ALL = 64
HOST_SOCKETS_PER_DEVICE = 6
HOST_SOCKETS_IN_ALL = 32


class Hub:
    """The page's memory (announcements, forbidden-word suggestions) and its live channels."""

    def __init__(self, live: LiveTable, loop: asyncio.AbstractEventLoop, texts: Texts | None = None,
                 access: Access | None = None) -> None:
        self.live = live
        self.loop = loop
        self.texts = texts or Texts(live.game.rules.phrasebook)
        self.access = access
        self.log: list[tuple[int, Output]] = []
        self.said = 0
        self.suggestions: list[dict[str, Any]] = []
        self.answers_dismissed = 0
        self.host_sockets: dict[web.WebSocketResponse, Session] = {}
        self.table_sockets: set[web.WebSocketResponse] = set()
        self.clients: Counter[tuple[str, str]] = Counter()
        self.unexpected = 0
        self.epoch = secrets.token_hex(4)  # a restarted server numbers its lines afresh
        self._wake = asyncio.Event()
        live.listeners.append(self.on_outputs)

    def on_outputs(self, outputs: list[Output]) -> None:
        """Called by the game from any thread."""
        for output in outputs:
            if output.kind == "say":
                self.said += 1
                self.log.append((self.said, output))
            elif output.kind == "suggest":
                self.suggestions.append({"id": len(self.suggestions), "seat": output.data.get("seat"),
                                         "word": output.data.get("word", getattr(output, "text", "")),
                                         "suggest": output.data.get("suggest"),
                                         "open": True})
        del self.log[:-200]
        self.loop.call_soon_threadsafe(self._wake.set)

    def open_suggestions(self) -> list[dict[str, Any]]:
        return [s for s in self.suggestions if s["open"]][-10:]

    def host_view(self, session: Session) -> dict[str, Any]:
        with self.live.lock:
            state = host_state(self.live, self.texts, reveal_roles=session.reveal_roles and not session.readonly,
                               csrf=session.csrf, log=self.log, suggestions=self.open_suggestions(),
                               answers_dismissed=self.answers_dismissed)
        state["readonly"] = session.readonly
        state["epoch"] = self.epoch
        state["device"] = session.id
        state["devices"] = self.access.device_list(session.id) if self.access and not session.readonly else []
        return state

    def table_view(self) -> dict[str, Any]:
        with self.live.lock:
            return table_state(self.live, self.texts)

    def wake(self) -> None:
        self._wake.set()

    async def pump(self) -> None:
        """Push the state on every change, and each second while a clock runs."""
        try:
            while True:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=1.0)
                except asyncio.TimeoutError:
                    pass
                self._wake.clear()
                await self.push()
        except asyncio.CancelledError:
            pass

    async def push(self) -> None:
        table = json.dumps({"type": "state", "state": self.table_view()}, ensure_ascii=False)
        for ws in list(self.table_sockets):
            await _send(ws, table, self.table_sockets)
        for ws, session in list(self.host_sockets.items()):
            if self.access is not None and session.id not in self.access.devices.paired:
                await ws.close(code=4401, message=b"revoked")
                self.host_sockets.pop(ws, None)
                continue
            text = json.dumps({"type": "state", "state": self.host_view(session)}, ensure_ascii=False)
            await _send(ws, text, self.host_sockets)


async def _send(ws: web.WebSocketResponse, text: str, registry) -> None:
    try:
        await ws.send_str(text)
    except (ConnectionError, RuntimeError):
        registry.discard(ws) if isinstance(registry, set) else registry.pop(ws, None)


# ------------------------------------------------------------- the guard


def _json_error(status: int, text: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response({"error": " ".join(text.split())}, status=status,
                             dumps=lambda d: json.dumps(d, ensure_ascii=False), headers=headers)


HTTP_REASON = {404: "not_found", 405: "bad_method", 413: "too_large"}


@web.middleware
async def guard(request: web.Request, handler):
    """Host allowlist on everything; Origin on every POST and live channel; a JSON
    reason in the table's language for every refusal; headers on every answer."""
    access: Access = request.app[ACCESS]
    texts: Texts = request.app[TEXTS_KEY]
    if not access.host_allowed(request):
        response = web.Response(status=421, text=texts("bad_host") + "\n")
    elif (request.method == "POST" or request.path.endswith("/ws")) and not access.origin_allowed(request):
        response = _json_error(403, texts("foreign_origin"))
    else:
        try:
            response = await handler(request)
            if response.status >= 400 and isinstance(response, web.Response) and not response.body:
                response = web.Response(status=response.status,
                                        text=texts(HTTP_REASON.get(response.status, "bad_input")) + "\n")
        except Refusal as refusal:
            response = _json_error(refusal.status, texts(refusal.key, **refusal.values))
            if refusal.key == "raw":  # the moderator's own refusal, also under the core's name
                response = web.json_response({"error": refusal.values["text"], "refusal": refusal.values["text"]},
                                             status=refusal.status, dumps=lambda d: json.dumps(d, ensure_ascii=False))
        except web.HTTPException as exc:
            if exc.status >= 400 and (request.path.startswith("/api/") or request.method == "POST"):
                response = _json_error(exc.status, texts(HTTP_REASON.get(exc.status, "bad_input")))
            elif exc.status >= 400:
                response = web.Response(status=exc.status, text=texts(HTTP_REASON.get(exc.status, "bad_input")) + "\n")
            else:
                response = web.Response(status=exc.status, text=exc.text, content_type=exc.content_type,
                                        headers={k: v for k, v in exc.headers.items() if k != "Content-Type"})
        except (asyncio.CancelledError, ConnectionError):
            raise
        except Exception:  # a bug must not become a 500 or a traceback to the client
            request.app[HUB].unexpected += 1
            log.exception("unexpected error serving %s %s", request.method, request.path)
            response = _json_error(400, texts("unexpected"))
    if not response.prepared:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if request.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
    return response


def require_session(request: web.Request) -> Session:
    session = request.app[ACCESS].session(request)
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


# ------------------------------------------------------------------ pages


PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def render_page(name: str, texts: Texts) -> str:
    """A page with its {{key}} labels filled in from the table's phrasebook."""
    return PLACEHOLDER.sub(lambda m: html.escape(texts(m.group(1))), (STATIC / name).read_text("utf-8"))


def _page(request: web.Request, name: str, status: int = 200) -> web.Response:
    return web.Response(text=render_page(name, request.app[TEXTS_KEY]), status=status, content_type="text/html",
                        charset="utf-8", headers={"Cache-Control": "no-store"})


async def host_page(request: web.Request) -> web.StreamResponse:
    if request.app[ACCESS].session(request) is None:
        return _page(request, "unpaired.html", status=401)
    return _page(request, "host.html")


async def table_page(request: web.Request) -> web.StreamResponse:
    return _page(request, "table.html")


async def pair_page(request: web.Request) -> web.StreamResponse:
    """The link's landing page: same-origin, so the cookie it gets is sent on from
    there even when the link was opened from another app or site. The token is
    spent only by the page's POST, never by a link preview's GET."""
    return _page(request, "pair.html")


async def pair(request: web.Request) -> web.StreamResponse:
    access: Access = request.app[ACCESS]
    token = request.match_info["token"]
    cookie = access.use_token(token) if len(token) <= 64 else None
    if cookie is None:
        raise Refusal(401, "token_spent")
    request.app[OUT].write(request.app[TEXTS_KEY]("term_paired", url=request.app[PAIR_URL]()) + "\n")
    if request.content_type == "application/x-www-form-urlencoded":  # the landing page without script
        response: web.Response = web.Response(status=303, headers={"Location": "/"})
    else:
        response = web.json_response({"ok": True})
    access.set_cookie(response, cookie)
    return response


ASSETS = {path.name for path in STATIC.iterdir() if path.suffix in (".js", ".css", ".svg")}


async def static_file(request: web.Request) -> web.StreamResponse:
    """The page's own scripts, styles and icon: a fixed list, nothing else from disk."""
    name = request.match_info["name"]
    if name not in ASSETS:
        raise web.HTTPNotFound()
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


async def pin_page(request: web.Request) -> web.StreamResponse:
    return _page(request, "pin.html")


async def pin_submit(request: web.Request) -> web.StreamResponse:
    access: Access = request.app[ACCESS]
    client = request.remote or ""
    wait = access.pin_wait(client)
    if wait > 0:
        raise Refusal(429, "pin_wait", seconds=int(wait + 0.999))
    pin = await _pin_from(request)
    cookie = access.use_pin(pin, client)
    if cookie is None:
        wait = access.pin_wait(client)
        if wait > 0:
            raise Refusal(429, "pin_wait", seconds=int(wait + 0.999))
        raise Refusal(401, "pin_wrong", count=access.pin_tries_left(client))
    response = web.json_response({"ok": True})
    access.set_cookie(response, cookie)
    return response


async def _pin_from(request: web.Request) -> str:
    """The PIN from a form or a JSON body; anything else is a clear refusal."""
    if request.content_type == "application/json":
        data = await read_json(request)
        pin = data.get("pin") if isinstance(data, dict) else None
    else:
        body = await request.read()
        try:
            pin = parse_qs(body.decode("utf-8"), max_num_fields=4).get("pin", [None])[0]
        except (UnicodeDecodeError, ValueError):
            raise Refusal(400, "pin_format") from None
    if not isinstance(pin, str) or len(pin.strip()) != 6 or not pin.strip().isascii() or not pin.strip().isdigit():
        raise Refusal(400, "pin_format")
    return pin.strip()


# -------------------------------------------------------------------- api


async def api_state(request: web.Request) -> web.Response:
    session = require_session(request)
    return _state(request, session)


def _state(request: web.Request, session: Session, **extra: Any) -> web.Response:
    state = request.app[HUB].host_view(session)
    return web.json_response({**state, **extra}, dumps=lambda d: json.dumps(d, ensure_ascii=False))


async def api_table(request: web.Request) -> web.Response:
    return web.json_response(request.app[HUB].table_view(), dumps=lambda d: json.dumps(d, ensure_ascii=False))


async def api_input(request: web.Request) -> web.Response:
    session = require_host(request)
    hub: Hub = request.app[HUB]
    data = await read_json(request)
    check_input(data, PAGE_INPUTS, hub.live.game.max_seat)
    suggestion = data.pop("suggestion", None)
    try:
        event = parse_event(data, hub.live.game.max_seat)
    except (InputError, ValueError, TypeError):
        raise Refusal(400, "bad_input") from None
    try:
        hub.live.apply(event)
    except GameError as exc:
        log.info("refused %s: %s", data.get("type"), exc)  # the English reason, for the log only
        raise _refusal(hub, exc) from None
    except InputError:
        raise Refusal(400, "bad_input") from None
    if isinstance(suggestion, int) and not isinstance(suggestion, bool) and 0 <= suggestion < len(hub.suggestions):
        hub.suggestions[suggestion]["open"] = False
    return _state(request, session)


def _refusal(hub: Hub, exc: GameError) -> Refusal:
    """The moderator's refusal in the table's words: the phrasebook's [refuse] text
    for its key, else the page's general line naming the phase."""
    book = hub.live.game.book
    if getattr(exc, "key", "") in getattr(book, "refuse", {}):
        try:
            return Refusal(409, "raw", text=book.refusal(exc))
        except (KeyError, IndexError, ValueError):
            log.warning("refusal %s does not fit its text", exc.key)
    return Refusal(409, "refused", phase=hub.texts(f"phase_{hub.live.game.phase.value}"))


async def api_undo(request: web.Request) -> web.Response:
    session = require_host(request)
    hub: Hub = request.app[HUB]
    data = await _object(request)
    expected = data.get("n")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
        raise Refusal(400, "bad_field", what="n")
    with hub.live.lock:
        index = last_host_input(hub.live.table.entries)
        if index is None:
            raise Refusal(409, "undo_nothing")
        what = hub.texts.input(hub.live.table.entries[index][1])
        if expected is not None and (isinstance(expected, bool) or expected != index):
            raise Refusal(409, "undo_stale", what=what)
        try:
            undone = hub.live.undo()
        except VoicehostError:
            raise Refusal(409, "undo_nothing") from None
    return web.json_response({"undone": undone, "message": hub.texts("undone", what=what),
                              "state": hub.host_view(session)}, dumps=lambda d: json.dumps(d, ensure_ascii=False))


async def _object(request: web.Request) -> dict:
    """A body that must be empty or a JSON object."""
    data = await read_json(request, allow_empty=True)
    if not isinstance(data, dict):
        raise Refusal(400, "not_object")
    return data


async def api_reveal(request: web.Request) -> web.Response:
    session = require_host(request)
    data = await read_json(request)
    show = data.get("show") if isinstance(data, dict) else None
    if not isinstance(show, bool) or set(data) - {"show"}:
        raise Refusal(400, "bad_bool")
    access: Access = request.app[ACCESS]
    access.reveal[session.id] = show
    session.reveal_roles = show
    return _state(request, session)


async def api_dismiss(request: web.Request) -> web.Response:
    session = require_host(request)
    hub: Hub = request.app[HUB]
    await _object(request)
    raw = request.match_info["id"]
    index = int(raw) if len(raw) <= 6 and raw.isascii() and raw.isdigit() else -1
    if not 0 <= index < len(hub.suggestions):
        raise Refusal(404, "no_suggestion")
    hub.suggestions[index]["open"] = False
    hub.wake()
    return _state(request, session)


async def api_answers_dismiss(request: web.Request) -> web.Response:
    session = require_host(request)
    hub: Hub = request.app[HUB]
    await _object(request)
    with hub.live.lock:
        hub.answers_dismissed = max([c["night"] for c in hub.live.game.checks], default=0)
    hub.wake()
    return _state(request, session)


async def api_judge(request: web.Request) -> web.Response:
    """A one-time link for an assistant judge: a paired, read-only view."""
    session = require_host(request)
    await _object(request)
    access: Access = request.app[ACCESS]
    url = f"{request.app[BASE_URL]()}/pair/{access.new_judge_token()}"
    return _state(request, session, judge_link=url)


async def api_revoke(request: web.Request) -> web.Response:
    session = require_host(request)
    await _object(request)
    device = request.match_info["id"]
    access: Access = request.app[ACCESS]
    if len(device) > 12 or not access.revoke(device):
        raise Refusal(404, "no_device")
    request.app[HUB].wake()
    return _state(request, session, message=request.app[TEXTS_KEY]("revoked", id=device))


async def api_protocol(request: web.Request) -> web.StreamResponse:
    require_session(request)
    live: LiveTable = request.app[HUB].live
    with live.lock:
        if request.match_info["fmt"] == "csv":
            return web.Response(text=protocol_csv(live), content_type="text/csv", charset="utf-8",
                                headers={"Content-Disposition": 'attachment; filename="protocol.csv"'})
        return web.json_response(protocol(live.game), dumps=lambda d: json.dumps(d, ensure_ascii=False),
                                 headers={"Content-Disposition": 'attachment; filename="protocol.json"'})


async def _socket(request: web.Request, *, host: bool) -> web.WebSocketResponse:
    hub: Hub = request.app[HUB]
    session = require_session(request) if host else None
    kind = "host" if host else "table"
    client = (kind, session.id if session else (request.remote or ""))
    each, together = (HOST_SOCKETS_PER_DEVICE, HOST_SOCKETS_IN_ALL) if host else (SOCKETS_PER_CLIENT, SOCKETS_IN_ALL)
    if hub.clients[client] >= each or sum(n for (k, _), n in hub.clients.items() if k == kind) >= together:
        raise Refusal(429, "busy")
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4096)
    await ws.prepare(request)
    hub.clients[client] += 1
    try:
        if host:
            hub.host_sockets[ws] = session
            first = hub.host_view(session)
        else:
            hub.table_sockets.add(ws)
            first = hub.table_view()
        await ws.send_str(json.dumps({"type": "state", "state": first}, ensure_ascii=False))
        async for message in ws:
            if message.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                break
    finally:
        hub.host_sockets.pop(ws, None)
        hub.table_sockets.discard(ws)
        hub.clients[client] -= 1
        if hub.clients[client] <= 0:
            del hub.clients[client]
    return ws


async def host_socket(request: web.Request) -> web.WebSocketResponse:
    return await _socket(request, host=True)


async def table_socket(request: web.Request) -> web.WebSocketResponse:
    return await _socket(request, host=False)


PAIRED_ONLY = ("answer_", "private_mark", "answers_only_you", "role_", "deal_")


async def api_texts(request: web.Request) -> web.Response:
    """The page's words in the table's language. No game data; even the wording of
    private answers goes only to a paired device."""
    words = request.app[TEXTS_KEY].words
    if request.app[ACCESS].session(request) is None:
        words = {k: v for k, v in words.items() if not k.startswith(PAIRED_ONLY)}
    return web.json_response(words, dumps=lambda d: json.dumps(d, ensure_ascii=False),
                             headers={"Cache-Control": "no-store"})


# ------------------------------------------------------------------ start


def make_app(live: LiveTable, access: Access, hub: Hub, out: TextIO, pair_url,
             base_url=None) -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=64 * 1024)
    app[ACCESS], app[HUB], app[OUT], app[PAIR_URL] = access, hub, out, pair_url
    app[TEXTS_KEY] = hub.texts
    app[BASE_URL] = base_url or (lambda: pair_url().rsplit("/pair/", 1)[0])
    hub.access = access
    app.router.add_get("/", host_page)
    app.router.add_get("/table", table_page)
    app.router.add_get("/pair/{token}", pair_page)
    app.router.add_post("/pair/{token}", pair)
    app.router.add_get("/pin", pin_page)
    app.router.add_post("/pin", pin_submit)
    app.router.add_get("/api/texts", api_texts)
    app.router.add_get("/api/state", api_state)
    app.router.add_get("/api/table", api_table)
    app.router.add_get("/api/ws", host_socket)
    app.router.add_get("/api/table/ws", table_socket)
    app.router.add_post("/api/input", api_input)
    app.router.add_post("/api/undo", api_undo)
    app.router.add_post("/api/reveal", api_reveal)
    app.router.add_post("/api/answers/dismiss", api_answers_dismiss)
    app.router.add_post("/api/suggestions/{id}/dismiss", api_dismiss)
    app.router.add_post("/api/devices/judge", api_judge)
    app.router.add_post("/api/devices/{id}/revoke", api_revoke)
    app.router.add_get("/api/protocol.{fmt:json|csv}", api_protocol)
    app.router.add_get("/static/{name:.*}", static_file)
    return app


def print_pairing(out: TextIO, url: str, pin: str, table_url: str, texts: Texts | None = None) -> None:
    texts = texts or Texts()
    out.write(texts("term_pairing", url=url, base=url.rsplit("/pair/", 1)[0], pin=pin, table=table_url) + "\n")
    try:
        import qrcode

        code = qrcode.QRCode(border=1)
        code.add_data(url)
        code.print_ascii(out=out, invert=True)
    except ImportError:
        pass
    out.flush()


class PageServer:
    """The running page: its aiohttp runner and the task that pushes updates."""

    def __init__(self, runner: web.AppRunner, pump: asyncio.Task, access: Access, url: str) -> None:
        self.runner, self.pump, self.access, self.url = runner, pump, access, url

    async def cleanup(self) -> None:
        self.pump.cancel()
        await asyncio.gather(self.pump, return_exceptions=True)
        await self.runner.cleanup()


def _more_descriptors() -> None:
    """Raise the soft open-files limit to the hard one: sockets are files."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        pass


async def start_server(live: LiveTable, config, *, lan: bool = False, port: int | None = None,
                       out: TextIO = sys.stdout) -> PageServer:
    """Serve the page: on this machine, or (lan) on every interface, with the link
    naming the LAN address a phone can reach."""
    _more_descriptors()
    port = port or config.web.port
    bind = "0.0.0.0" if lan else config.web.host
    shown = lan_address() if lan else (bind if bind not in ("0.0.0.0", "") else "127.0.0.1")
    names = local_names() if lan or bind == "0.0.0.0" else ()
    access = Access(allowed_hosts(bind, port, (*config.web.allowed_hosts, *names, shown)),
                    Devices(devices_file(live.journal_path)))
    hub = Hub(live, asyncio.get_running_loop(), access=access)
    base = f"http://{shown}:{port}"
    pair_url = lambda: f"{base}/pair/{access.token}"  # noqa: E731
    app = make_app(live, access, hub, out, pair_url, lambda: base)
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=15)
    await runner.setup()
    try:
        await web.TCPSite(runner, bind, port).start()
    except OSError as exc:
        await runner.cleanup()
        raise VoicehostError(f"cannot serve the page on {bind}:{port} ({exc.strerror}): "
                             f"choose another with --port") from None
    pump = asyncio.create_task(hub.pump(), name="web-pump")
    print_pairing(out, pair_url(), access.pin, f"{base}/table", hub.texts)
    return PageServer(runner, pump, access, base)


__all__ = ["start_server", "make_app", "Hub", "lan_address", "STATIC"]
