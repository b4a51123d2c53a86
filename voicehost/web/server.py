"""The companion page server: aiohttp in the same asyncio loop as the game.

Every host input goes through the moderator; an input that does not fit gets
a 4xx with a reason in the table's language and changes nothing. Whatever a
client sends, the answer is a JSON 4xx, never a 500.

The parts: `guard` (every request's checks and refusals), `pages` (the pages
and the ways in), `api` (inputs, undo, downloads), `hub` (the page's memory and
its live channels); this module puts them together and starts them."""
from __future__ import annotations

import asyncio
import io
import resource
import sys
from collections.abc import Callable
from typing import Any, TextIO

from aiohttp import web

from voicehost.errors import VoicehostError
from voicehost.live import LiveTable
from voicehost.web.access import ACCESS_KEY, Access, Devices, allowed_hosts, devices_file
from voicehost.web.api import PAGE_INPUTS, add_api
from voicehost.web.guard import guard
from voicehost.web.hub import HUB, Hub, host_socket, overlay_socket, table_socket
from voicehost.web.lan import lan_address, local_names
from voicehost.web.pages import BASE_URL, OUT, PAIR_URL, STATIC, add_pages, render_page
from voicehost.web.texts import TEXTS_KEY, Texts

ACCESS = ACCESS_KEY


def make_app(live: LiveTable, access: Access, hub: Hub, out: TextIO, pair_url: Callable[[], str],
             base_url: Callable[[], str] | None = None) -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=64 * 1024)
    app[ACCESS_KEY], app[HUB], app[OUT], app[PAIR_URL] = access, hub, out, pair_url
    app[TEXTS_KEY] = hub.texts
    app[BASE_URL] = base_url or (lambda: pair_url().rsplit("/pair/", 1)[0])
    hub.access = access
    add_pages(app)
    add_api(app)
    app.router.add_get("/api/ws", host_socket)
    app.router.add_get("/api/table/ws", table_socket)
    app.router.add_get("/api/overlay/{key}/ws", overlay_socket)
    return app


def print_pairing(out: TextIO, url: str, pin: str, table_url: str, texts: Texts | None = None) -> None:
    """The link, the PIN and the link's QR code, written at once: whoever reads the
    terminal (or its log) finds the link and its code together."""
    texts = texts or Texts()
    lines = io.StringIO()
    lines.write(texts("term_pairing", url=url, base=url.rsplit("/pair/", 1)[0], pin=pin, table=table_url) + "\n")
    try:
        import qrcode  # no stubs; only QRCode, add_data, print_ascii are used

        code = qrcode.QRCode(border=1)
        code.add_data(url)
        code.print_ascii(out=lines, invert=True)
    except ImportError:
        pass
    out.write(lines.getvalue())
    out.flush()


def print_overlay(out: TextIO, base: str, hub: Hub) -> None:
    """The stream overlay's two links: the public board, and the roles mode's
    secret one (for the host's streaming machine only, delayed)."""
    out.write(hub.texts("term_overlay", url=f"{base}/overlay", roles=f"{base}/overlay/{hub.overlay_token}",
                        seconds=round(hub.overlay_delay)) + "\n")
    out.flush()


class PageServer:
    """The running page: its aiohttp runner and the task that pushes updates."""

    def __init__(self, runner: web.AppRunner, pump: asyncio.Task[None], access: Access, url: str) -> None:
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


async def start_server(live: LiveTable, config: Any, *, lan: bool = False, port: int | None = None,
                       out: TextIO = sys.stdout) -> PageServer:
    """Serve the page: on this machine, or (lan) on every interface, with the link
    naming the LAN address a phone can reach."""
    _more_descriptors()
    port = config.web.port if port is None else port
    bind = "0.0.0.0" if lan else config.web.host
    shown = lan_address() if lan else (bind if bind not in ("0.0.0.0", "") else "127.0.0.1")
    names = (*config.web.allowed_hosts, *(local_names() if lan or bind == "0.0.0.0" else ()), shown)
    access = Access(allowed_hosts(bind, port, names), Devices(devices_file(live.journal_path)))
    hub = Hub(live, asyncio.get_running_loop(), access=access, overlay_delay=config.web.overlay_delay)
    base = f"http://{shown}:{port}"

    def pair_url() -> str:
        return f"{base}/pair/{access.token}"

    app = make_app(live, access, hub, out, pair_url, lambda: base)
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=15)
    await runner.setup()
    try:
        await web.TCPSite(runner, bind, port).start()
    except OSError as exc:
        await runner.cleanup()
        raise VoicehostError(f"cannot serve the page on {bind}:{port} ({exc.strerror}): "
                             f"choose another with --port") from None
    if port == 0:  # any free port: the links and the allowed hosts name the one the system gave
        port = runner.addresses[0][1]
        access.hosts = {host.lower() for host in allowed_hosts(bind, port, names)}
        base = f"http://{shown}:{port}"
    pump = asyncio.create_task(hub.pump(), name="web-pump")
    print_pairing(out, pair_url(), access.pin, f"{base}/table", hub.texts)
    print_overlay(out, base, hub)
    return PageServer(runner, pump, access, base)


__all__ = ["ACCESS", "HUB", "PAGE_INPUTS", "STATIC", "Hub", "PageServer", "lan_address", "make_app", "render_page",
           "start_server"]
