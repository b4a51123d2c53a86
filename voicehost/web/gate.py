"""Bounded work per connection, below aiohttp's request handling.

Every connection counts for its address: past PER_ADDRESS open ones, or once
the server holds IN_ALL, a new one is closed at once (the last RESERVED places
go only to addresses that recently proved a paired device or the TV). A
connection that has not sent a whole request head within HEADER_SECONDS is
closed. aiohttp's own refusals of what is not HTTP (a bad request line, a huge
header) answer as JSON in the table's language, never echoing the request,
and are counted, not logged line by line."""
from __future__ import annotations

import asyncio
import errno
import json
import logging
import resource
import ssl
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any, cast

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from voicehost.web.texts import Texts

log = logging.getLogger("voicehost.web.server")

PER_ADDRESS = 24
RESERVED = 48
HEADER_SECONDS = 5.0
HANDSHAKE_SECONDS = 10.0
TRUSTED_REMEMBERED = 64
QUIET_SECONDS = 60.0     # at most one log line per minute about refused connections
# What accept() fails with when the process or the system is out of files or memory:
# asyncio logs each with a traceback and tries again a second later.
SERVER = "voicehost"   # the Server header: no version of Python or aiohttp for a scanner to match
OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def connections_in_all() -> int:
    """What the open-files limit leaves for sockets, with room for the game's own files."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ValueError, OSError):
        soft = 1024
    if soft == resource.RLIM_INFINITY:
        soft = 65536
    return max(RESERVED * 2, min(4096, soft - 128))


class Gate:
    def __init__(self, texts: Texts, in_all: int | None = None, per_address: int = PER_ADDRESS,
                 header_seconds: float = HEADER_SECONDS) -> None:
        self.texts = texts
        self.in_all = in_all or connections_in_all()
        self.per_address = per_address
        self.header_seconds = header_seconds
        self.open: Counter[str] = Counter()
        self.total = 0
        self.trusted: OrderedDict[str, float] = OrderedDict()
        self.refused = 0
        self.timed_out = 0
        self.bad_requests = 0
        self._said = 0.0

    def quiet_loop_errors(self, loop: asyncio.AbstractEventLoop) -> None:
        """Out of open files, say so in one line a minute, not a traceback a second
        (asyncio's accept loop reports each failed accept); other errors as before."""
        previous = loop.get_exception_handler()
        said, since = [-QUIET_SECONDS], [0]

        def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            exc = context.get("exception")
            if isinstance(exc, OSError) and exc.errno in OUT_OF_RESOURCES:
                since[0] += 1
                now = time.monotonic()
                if now - said[0] >= QUIET_SECONDS:
                    log.warning("out of open files (%s): new connections wait; %d accepts failed since the "
                                "last such line", exc.strerror, since[0])
                    said[0], since[0] = now, 0
            elif previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)
        loop.set_exception_handler(handler)

    def trust(self, address: str) -> None:
        """An address that proved a paired device (or named the TV's key): it may use the reserve."""
        self.trusted[address] = time.monotonic()
        self.trusted.move_to_end(address)
        while len(self.trusted) > TRUSTED_REMEMBERED:
            self.trusted.popitem(last=False)

    def admit(self, address: str) -> bool:
        if self.open[address] >= self.per_address or self.total >= self.in_all or (
                self.total >= self.in_all - RESERVED and address not in self.trusted):
            self.refused += 1
            now = time.monotonic()
            if now - self._said > QUIET_SECONDS:
                self._said = now
                log.warning("refusing connections: %d from %s open, %d in all (%d refused so far)",
                            self.open[address], address, self.total, self.refused)
            return False
        self.open[address] += 1
        self.total += 1
        return True

    def release(self, address: str) -> None:
        self.open[address] -= 1
        self.total -= 1
        if self.open[address] <= 0:
            del self.open[address]

    def factory(self, server: web.Server) -> Callable[[], RequestHandler]:
        """The protocol factory for a site: aiohttp's handler, gated."""
        def make() -> RequestHandler:
            return GatedHandler(self, server, loop=server._loop, **server._kwargs)
        return make


class GatedHandler(RequestHandler):
    def __init__(self, gate: Gate, manager: web.Server, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self.gate = gate
        self.address = ""
        self.admitted = False
        self.deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if peer else ""
        if not self.gate.admit(self.address):
            cast(asyncio.Transport, transport).abort()
            return
        self.admitted = True
        super().connection_made(transport)
        self.deadline = asyncio.get_running_loop().call_later(self.gate.header_seconds, self._no_request)

    def _no_request(self) -> None:
        if self._request_count == 0 and self.transport is not None:
            self.gate.timed_out += 1
            self.transport.abort()

    def connection_lost(self, exc: BaseException | None) -> None:
        if not self.admitted:
            return
        self.admitted = False
        if self.deadline is not None:
            self.deadline.cancel()
        self.gate.release(self.address)
        super().connection_lost(exc)

    def handle_error(self, request: BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """aiohttp's own refusal (what is not HTTP, a head too big): one JSON line in the
        table's language, the connection closed; logged only at debug level."""
        self.gate.bad_requests += 1
        log.debug("refused a request aiohttp could not read from %s: %s", self.address, exc)
        if request.writer.output_size > 0:
            raise ConnectionError("response already sent")
        key = {413: "too_large", 431: "too_large"}.get(status, "bad_request" if status < 500 else "unexpected")
        body = json.dumps({"error": self.texts(key)}, ensure_ascii=False)
        response = web.Response(status=status if 400 <= status < 500 else 400, text=body,
                                content_type="application/json")
        response.force_close()
        response.headers["Server"] = SERVER
        return response

    @property
    def texts(self) -> Texts:
        return self.gate.texts


class GatedSite(web.BaseSite):
    """A TCP site whose connections pass the gate (and, with a context, TLS)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, gate: Gate, *,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        super().__init__(runner, ssl_context=ssl_context)
        self._host, self._port, self.gate = host, port, gate
        self.bound = port

    @property
    def name(self) -> str:
        return f"{'https' if self._ssl_context else 'http'}://{self._host}:{self.bound}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        loop = asyncio.get_running_loop()
        factory = self.gate.factory(server)
        if self._ssl_context is not None:
            listening = await loop.create_server(factory, self._host, self._port, ssl=self._ssl_context,
                                                 backlog=self._backlog, reuse_address=True,
                                                 ssl_handshake_timeout=HANDSHAKE_SECONDS)
        else:
            listening = await loop.create_server(factory, self._host, self._port, backlog=self._backlog,
                                                 reuse_address=True)
        self._server = listening
        if listening.sockets:
            self.bound = listening.sockets[0].getsockname()[1]
