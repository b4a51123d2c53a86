"""The companion page server: aiohttp in the same asyncio loop as the game.

Every host input goes through the moderator; an input that does not fit gets
a 4xx with the moderator's own reason and changes nothing."""
from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

from aiohttp import WSMsgType, web

from voicehost.errors import GameError, InputError, VoicehostError
from voicehost.game.events import parse_event
from voicehost.game.model import Output
from voicehost.game.protocol import protocol
from voicehost.journal import HOST_INPUTS
from voicehost.live import LiveTable
from voicehost.web.access import ACCESS_KEY, Access, allowed_hosts, guard, require_csrf, require_session
from voicehost.web.state import host_state, protocol_csv, table_state

log = logging.getLogger(__name__)
ACCESS = ACCESS_KEY
HUB: web.AppKey["Hub"] = web.AppKey("hub")
OUT = web.AppKey("out", object)
PAIR_URL = web.AppKey("pair_url", object)
STATIC = Path(__file__).resolve().parent / "static"
PAGE_INPUTS = HOST_INPUTS | {"setup"}


class Hub:
    """The page's memory (announcements, forbidden-word suggestions) and its live channels."""

    def __init__(self, live: LiveTable, loop: asyncio.AbstractEventLoop) -> None:
        self.live = live
        self.loop = loop
        self.log: list[Output] = []
        self.suggestions: list[dict[str, Any]] = []
        self.host_sockets: dict[web.WebSocketResponse, Any] = {}
        self.table_sockets: set[web.WebSocketResponse] = set()
        self._wake = asyncio.Event()
        live.listeners.append(self.on_outputs)

    def on_outputs(self, outputs: list[Output]) -> None:
        """Called by the game from any thread."""
        for output in outputs:
            if output.kind == "say":
                self.log.append(output)
            elif output.kind == "suggest":
                self.suggestions.append({"id": len(self.suggestions), "seat": output.data.get("seat"),
                                         "word": output.values.get("word"), "suggest": output.data.get("suggest"),
                                         "open": True})
        del self.log[:-200]
        self.loop.call_soon_threadsafe(self._wake.set)

    def open_suggestions(self) -> list[dict[str, Any]]:
        return [s for s in self.suggestions if s["open"]][-10:]

    def host_view(self, session) -> dict[str, Any]:
        with self.live.lock:
            return host_state(self.live, reveal_roles=session.reveal_roles, csrf=session.csrf,
                              log=self.log, suggestions=self.open_suggestions())

    def table_view(self) -> dict[str, Any]:
        with self.live.lock:
            return table_state(self.live)

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
            text = json.dumps({"type": "state", "state": self.host_view(session)}, ensure_ascii=False)
            await _send(ws, text, self.host_sockets)


async def _send(ws: web.WebSocketResponse, text: str, registry) -> None:
    try:
        await ws.send_str(text)
    except (ConnectionError, RuntimeError):
        registry.discard(ws) if isinstance(registry, set) else registry.pop(ws, None)


# ------------------------------------------------------------------ pages


def _page(name: str, status: int = 200) -> web.FileResponse:
    return web.FileResponse(STATIC / name, status=status, headers={"Cache-Control": "no-store"})


async def host_page(request: web.Request) -> web.StreamResponse:
    if request.app[ACCESS].session(request) is None:
        return _page("unpaired.html", status=401)
    return _page("host.html")


async def table_page(request: web.Request) -> web.StreamResponse:
    return _page("table.html")


async def pair(request: web.Request) -> web.StreamResponse:
    access: Access = request.app[ACCESS]
    sid = access.use_token(request.match_info["token"])
    if sid is None:
        return _page("unpaired.html", status=401)
    out = request.app[OUT]
    out.write(f"device paired; a new pairing link for the next device: {request.app[PAIR_URL]()}\n")
    response = web.Response(status=303, headers={"Location": "/"})
    access.set_cookie(response, sid)
    return response


async def pin_page(request: web.Request) -> web.StreamResponse:
    return _page("pin.html")


async def pin_submit(request: web.Request) -> web.StreamResponse:
    access: Access = request.app[ACCESS]
    form = await request.post()
    if access.pin_locked:
        return web.json_response({"error": "PIN entry is locked after 5 wrong tries: use the pairing "
                                           "link or restart voicehost"}, status=429)
    sid = access.use_pin(str(form.get("pin", "")))
    if sid is None:
        left = max(0, 5 - access.pin_failures)
        return web.json_response({"error": f"wrong PIN; {left} tries left"}, status=401)
    response = web.json_response({"ok": True})
    access.set_cookie(response, sid)
    return response


# -------------------------------------------------------------------- api


async def api_state(request: web.Request) -> web.Response:
    session = require_session(request)
    return web.json_response(request.app[HUB].host_view(session))


async def api_table(request: web.Request) -> web.Response:
    return web.json_response(request.app[HUB].table_view())


def _error(status: int, message: str, refusal: str | None = None) -> web.Response:
    """`error` in English (logs, tests); `refusal`, when known, in the table's language."""
    body = {"error": " ".join(message.split())}
    if refusal:
        body["refusal"] = refusal
    return web.json_response(body, status=status)


async def api_input(request: web.Request) -> web.Response:
    session = require_session(request)
    require_csrf(request, session)
    hub: Hub = request.app[HUB]
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _error(400, "the request body is not JSON")
    if not isinstance(data, dict) or data.get("type") not in PAGE_INPUTS:
        return _error(400, f"not a host input: {data.get('type') if isinstance(data, dict) else data!r}")
    suggestion = data.pop("suggestion", None)
    try:
        hub.live.apply(parse_event(data, hub.live.game.max_seat))
    except InputError as exc:
        return _error(400, str(exc))
    except GameError as exc:
        return _error(409, str(exc), hub.live.game.book.refusal(exc))
    if isinstance(suggestion, int) and 0 <= suggestion < len(hub.suggestions):
        hub.suggestions[suggestion]["open"] = False
    return web.json_response(hub.host_view(session))


async def api_undo(request: web.Request) -> web.Response:
    session = require_session(request)
    require_csrf(request, session)
    hub: Hub = request.app[HUB]
    try:
        undone = hub.live.undo()
    except VoicehostError as exc:
        return _error(409, str(exc))
    return web.json_response({"undone": undone, "state": hub.host_view(session)})


async def api_reveal(request: web.Request) -> web.Response:
    session = require_session(request)
    require_csrf(request, session)
    try:
        data = await request.json()
    except json.JSONDecodeError:
        return _error(400, "the request body is not JSON")
    session.reveal_roles = bool(data.get("show")) if isinstance(data, dict) else False
    return web.json_response(request.app[HUB].host_view(session))


async def api_dismiss(request: web.Request) -> web.Response:
    session = require_session(request)
    require_csrf(request, session)
    hub: Hub = request.app[HUB]
    index = int(request.match_info["id"])
    if not 0 <= index < len(hub.suggestions):
        return _error(404, "no such suggestion")
    hub.suggestions[index]["open"] = False
    return web.json_response(hub.host_view(session))


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
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    if host:
        hub.host_sockets[ws] = session
        first = hub.host_view(session)
    else:
        hub.table_sockets.add(ws)
        first = hub.table_view()
    await ws.send_str(json.dumps({"type": "state", "state": first}, ensure_ascii=False))
    try:
        async for message in ws:
            if message.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                break
    finally:
        hub.host_sockets.pop(ws, None)
        hub.table_sockets.discard(ws)
    return ws


async def host_socket(request: web.Request) -> web.WebSocketResponse:
    return await _socket(request, host=True)


async def table_socket(request: web.Request) -> web.WebSocketResponse:
    return await _socket(request, host=False)


# ------------------------------------------------------------------ start


def make_app(live: LiveTable, access: Access, hub: Hub, out: TextIO, pair_url) -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=64 * 1024)
    app[ACCESS], app[HUB], app[OUT], app[PAIR_URL] = access, hub, out, pair_url
    app.router.add_get("/", host_page)
    app.router.add_get("/table", table_page)
    app.router.add_get("/pair/{token}", pair)
    app.router.add_get("/pin", pin_page)
    app.router.add_post("/pin", pin_submit)
    app.router.add_get("/api/state", api_state)
    app.router.add_get("/api/table", api_table)
    app.router.add_get("/api/ws", host_socket)
    app.router.add_get("/api/table/ws", table_socket)
    app.router.add_post("/api/input", api_input)
    app.router.add_post("/api/undo", api_undo)
    app.router.add_post("/api/reveal", api_reveal)
    app.router.add_post("/api/suggestions/{id:\\d+}/dismiss", api_dismiss)
    app.router.add_get("/api/protocol.{fmt:json|csv}", api_protocol)
    app.router.add_static("/static/", STATIC, show_index=False)
    return app


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent to find it)."""
    try:
        for _, _, _, _, address in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            if not address[0].startswith("127."):
                return address[0]
    except OSError:
        pass
    return "0.0.0.0"


def print_pairing(out: TextIO, url: str, pin: str, table_url: str) -> None:
    out.write(f"host page: {url}\n  (one-time link; or open {url.rsplit('/pair/', 1)[0]}/pin and "
              f"enter PIN {pin})\ntable view: {table_url}\n")
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


async def start_server(live: LiveTable, config, *, lan: bool = False, port: int | None = None,
                       out: TextIO = sys.stdout) -> PageServer:
    bind = lan_address() if lan else config.web.host
    port = port or config.web.port
    access = Access(allowed_hosts(bind, port, config.web.allowed_hosts))
    hub = Hub(live, asyncio.get_running_loop())
    shown = bind if bind != "0.0.0.0" else "127.0.0.1"
    pair_url = lambda: f"http://{shown}:{port}/pair/{access.token}"  # noqa: E731
    app = make_app(live, access, hub, out, pair_url)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, bind, port).start()
    except OSError as exc:
        await runner.cleanup()
        raise VoicehostError(f"cannot serve the page on {bind}:{port} ({exc.strerror}): "
                             f"choose another with --port") from None
    pump = asyncio.create_task(hub.pump(), name="web-pump")
    print_pairing(out, pair_url(), access.pin, f"http://{shown}:{port}/table")
    return PageServer(runner, pump, access, f"http://{shown}:{port}")
