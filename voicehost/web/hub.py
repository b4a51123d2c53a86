"""The page's memory and its live channels: the announcements and forbidden-word
suggestions the page shows, and the websockets every change is pushed to."""
from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import time
from collections import Counter, deque
from collections.abc import Mapping

from aiohttp import WSMsgType, web

from voicehost.game.model import Output
from voicehost.jsontypes import JSONOut, JSONOutObject
from voicehost.live import LiveTable
from voicehost.web.access import ACCESS_KEY, Access, Session, require_session
from voicehost.web.padding import balance, padded
from voicehost.web.state import host_state, roles_overlay_state, table_state
from voicehost.web.texts import Texts
from voicehost.web.validate import Refusal

# Live channels: a TV, a host's phone and a judge need a handful; a thousand idle
# ones from one client must not starve the host's requests of file descriptors.
# Public (table) channels count per client address; a paired device's own
# channels count apart, so idle public ones can never lock the host out.
# The TV keeps its own slots: a table channel naming the game's TV key (the
# table link printed in the terminal carries it) counts apart from the public
# ones, so a flood of public channels from many addresses never shuts it out.
SOCKETS_PER_CLIENT = 8
SOCKETS_IN_ALL = 64
HOST_SOCKETS_PER_DEVICE = 6
HOST_SOCKETS_IN_ALL = 32
TV_SOCKETS = 4
OVERLAY_SOCKETS = 4  # the roles overlay (its secret key) has its own slots, as the TV does
OVERLAY_DELAY = 60.0  # seconds the stream's roles mode runs behind the table ([web] overlay_delay)


class Hub:
    """The page's memory (announcements, forbidden-word suggestions) and its live channels."""

    def __init__(self, live: LiveTable, loop: asyncio.AbstractEventLoop, texts: Texts | None = None,
                 access: Access | None = None, overlay_delay: float = OVERLAY_DELAY) -> None:
        self.live = live
        self.loop = loop
        self.texts = texts or Texts(live.game.rules.phrasebook)
        self.access = access
        self.log: list[tuple[int, Output]] = []
        self.said = 0
        self.suggestions: list[JSONOutObject] = []
        self.answers_dismissed = 0
        self.host_sockets: dict[web.WebSocketResponse, Session] = {}
        self.table_sockets: set[web.WebSocketResponse] = set()
        self.overlay_sockets: set[web.WebSocketResponse] = set()
        # The stream's roles mode: its own secret link, and the snapshots it shows
        # `overlay_delay` seconds late (monotonic time, the JSON it was then).
        self.overlay_token = secrets.token_urlsafe(18)
        self.overlay_delay = overlay_delay
        self.overlay_history: deque[tuple[float, str]] = deque()
        self.clients: Counter[tuple[str, str]] = Counter()
        self.unexpected = 0
        self.refused_bodies = 0
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
                seat, suggest = output.values.get("seat"), output.values.get("suggest")
                self.suggestions.append({"id": len(self.suggestions),
                                         "seat": seat if isinstance(seat, int) else None,
                                         "word": self.live.game.book.render(output),
                                         "suggest": str(suggest) if suggest is not None else None,
                                         "open": True})
        del self.log[:-200]
        self.loop.call_soon_threadsafe(self._wake.set)

    def open_suggestions(self) -> list[JSONOutObject]:
        return [s for s in self.suggestions if s["open"]][-10:]

    def host_view(self, session: Session) -> JSONOutObject:
        # The device's choice as it stands now: a live socket keeps the session it
        # connected with, so "Показать роли" on another request never reached it.
        reveal = self.access.reveal.get(session.id, False) if self.access is not None else session.reveal_roles
        with self.live.lock:
            state = host_state(self.live, self.texts, reveal_roles=reveal and not session.readonly,
                               csrf=session.csrf, log=self.log, suggestions=self.open_suggestions(),
                               answers_dismissed=self.answers_dismissed)
        if session.readonly:
            judge_view(state)
        state["readonly"] = session.readonly
        state["epoch"] = self.epoch
        state["device"] = session.id
        host = self.access is not None and not session.readonly
        state["devices"] = self.access.device_list(session.id) if self.access and host else []
        state["pending"] = self.access.pending_list() if self.access and host else []
        balance(state)
        return state

    def host_message(self, session: Session) -> str:
        """A host channel's state message, padded to its bucket (web/padding.py)."""
        return padded(json.dumps({"type": "state", "state": self.host_view(session)}, ensure_ascii=False))

    def table_view(self) -> JSONOutObject:
        with self.live.lock:
            state = table_state(self.live, self.texts, self.log)
        state["epoch"] = self.epoch
        return state

    def overlay_key_ok(self, token: str) -> bool:
        return len(token) <= 64 and hmac.compare_digest(token.encode(), self.overlay_token.encode())

    def record_overlay(self, now: float | None = None) -> None:
        """Keep the roles mode's snapshot of this moment (when it changed), and
        forget those older than the one the delayed view shows now."""
        now = time.monotonic() if now is None else now
        with self.live.lock:
            snapshot = json.dumps({**roles_overlay_state(self.live, self.texts, self.log), "epoch": self.epoch},
                                  ensure_ascii=False)
        if not self.overlay_history or self.overlay_history[-1][1] != snapshot:
            self.overlay_history.append((now, snapshot))
        cutoff = now - self.overlay_delay
        while len(self.overlay_history) > 1 and self.overlay_history[1][0] <= cutoff:
            self.overlay_history.popleft()

    def overlay_view(self, now: float | None = None) -> str:
        """The roles mode as it stood `overlay_delay` seconds ago (JSON), or a
        waiting board until the stream has run that long."""
        now = time.monotonic() if now is None else now
        shown = None
        for at, snapshot in self.overlay_history:
            if at > now - self.overlay_delay:
                break
            shown = snapshot
        if shown is None:
            return json.dumps({"waiting": True, "delay": round(self.overlay_delay),
                               "phase": self.texts("overlay_waiting", seconds=round(self.overlay_delay))},
                              ensure_ascii=False)
        return shown

    def wake(self) -> None:
        self._wake.set()

    async def pump(self) -> None:
        """Push the state on every change, and each second while a clock runs."""
        try:
            while True:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=1.0)
                except TimeoutError:
                    pass
                self._wake.clear()
                await self.push()
        except asyncio.CancelledError:
            pass

    async def push(self) -> None:
        table = json.dumps({"type": "state", "state": self.table_view()}, ensure_ascii=False)
        for ws in list(self.table_sockets):
            if not await _send(ws, table):
                self.table_sockets.discard(ws)
        self.record_overlay()
        if self.overlay_sockets:
            overlay = '{"type": "state", "state": ' + self.overlay_view() + "}"
            for ws in list(self.overlay_sockets):
                if not await _send(ws, overlay):
                    self.overlay_sockets.discard(ws)
        for ws, session in list(self.host_sockets.items()):
            if self.access is not None and session.id not in self.access.devices.paired:
                await ws.close(code=4401, message=b"revoked")
                self.host_sockets.pop(ws, None)
                continue
            if not await _send(ws, self.host_message(session)):
                self.host_sockets.pop(ws, None)


HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)


def judge_view(state: JSONOutObject) -> None:
    """What a read-only judge may not see: anything that tells a role (the night's
    answers, private lines, which roles live, the last input, whether a role can act)."""
    answers = state.get("answers")
    state["answers"] = {"night": answers.get("night", 0) if isinstance(answers, Mapping) else 0, "items": []}
    state["log"] = [line for line in _items(state.get("log")) if not line.get("private")]
    state["don_alive"] = state["sheriff_alive"] = None
    state["checked"] = []
    state["last_input"] = None
    window = state.get("window_action")
    if isinstance(window, Mapping) and window:
        state["window_action"] = {**window, "can_act": None}
    if "seats" in state:
        state["seats"] = [{k: v for k, v in seat.items() if k != "role"} for seat in _items(state["seats"])]


def _items(value: JSONOut) -> list[Mapping[str, JSONOut]]:
    """The objects of a list in a page's state (a line, a seat)."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


async def _send(ws: web.WebSocketResponse, text: str) -> bool:
    """False when the channel is gone (its owner then forgets it)."""
    try:
        await ws.send_str(text)
    except (ConnectionError, RuntimeError):
        return False
    return True


async def _socket(request: web.Request, *, host: bool, overlay: bool = False) -> web.WebSocketResponse:
    hub: Hub = request.app[HUB]
    session = require_session(request) if host else None
    tv = not host and not overlay and hub.access is not None and hmac.compare_digest(
        request.query.get("tv", "").encode("utf-8", "replace"), hub.access.devices.tv.encode())
    kind = "host" if host else ("overlay" if overlay else "tv" if tv else "table")
    if tv and hub.access is not None:
        hub.access.on_proven(request.remote or "")
    client = (kind, session.id if session else ("" if tv or overlay else (request.remote or "")))
    each, together = {"host": (HOST_SOCKETS_PER_DEVICE, HOST_SOCKETS_IN_ALL), "tv": (TV_SOCKETS, TV_SOCKETS),
                      "overlay": (OVERLAY_SOCKETS, OVERLAY_SOCKETS),
                      "table": (SOCKETS_PER_CLIENT, SOCKETS_IN_ALL)}[kind]
    if hub.clients[client] >= each or sum(n for (k, _), n in hub.clients.items() if k == kind) >= together:
        raise Refusal(429, "busy")
    # A host's channel is never compressed: padding that compresses away pads nothing.
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4096, compress=not host)
    await ws.prepare(request)
    hub.clients[client] += 1
    try:
        if session is not None:
            hub.host_sockets[ws] = session
            first = hub.host_message(session)
        elif overlay:
            hub.overlay_sockets.add(ws)
            first = '{"type": "state", "state": ' + hub.overlay_view() + "}"
        else:
            hub.table_sockets.add(ws)
            first = json.dumps({"type": "state", "state": hub.table_view()}, ensure_ascii=False)
        await ws.send_str(first)
        async for message in ws:
            if message.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                break
    finally:
        hub.host_sockets.pop(ws, None)
        hub.table_sockets.discard(ws)
        hub.overlay_sockets.discard(ws)
        hub.clients[client] -= 1
        if hub.clients[client] <= 0:
            del hub.clients[client]
    return ws


async def host_socket(request: web.Request) -> web.WebSocketResponse:
    return await _socket(request, host=True)


async def table_socket(request: web.Request) -> web.WebSocketResponse:
    return await _socket(request, host=False)


async def overlay_socket(request: web.Request) -> web.WebSocketResponse:
    """The stream's roles mode, delayed; only with its secret link's key."""
    if not request.app[HUB].overlay_key_ok(request.match_info["key"]):
        raise web.HTTPNotFound()
    return await _socket(request, host=False, overlay=True)


__all__ = ["ACCESS_KEY", "HUB", "Hub", "host_socket", "overlay_socket", "table_socket"]
