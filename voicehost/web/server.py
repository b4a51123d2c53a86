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
import ssl
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from aiohttp import web

from voicehost.errors import VoicehostError
from voicehost.live import LiveTable
from voicehost.web.access import ACCESS_KEY, Access, allowed_hosts
from voicehost.web.api import PAGE_INPUTS, add_api
from voicehost.web.devices import Devices, devices_file
from voicehost.web.gate import Gate, GatedSite
from voicehost.web.guard import guard, last_headers
from voicehost.web.hub import HUB, Hub, host_socket, overlay_socket, table_socket
from voicehost.web.lan import lan_address, local_names
from voicehost.web.pages import BASE_URL, FINGERPRINT, GATE, OUT, PAIR_URL, STATIC, TLS_PORT, add_pages, render_page
from voicehost.web.series import SeriesDesk, add_series
from voicehost.web.texts import TEXTS_KEY, Texts
from voicehost.web.tls import table_certificate, tls_file

if TYPE_CHECKING:
    from voicehost.config import Config


def make_app(live: LiveTable, access: Access, hub: Hub, out: TextIO, pair_url: Callable[[], str],
             base_url: Callable[[], str] | None = None, gate: Gate | None = None,
             tls_port: Callable[[], int] | None = None) -> web.Application:
    """The page's app. With `tls_port` (the LAN), only the public board is served over
    plain HTTP; everything else there redirects to HTTPS on that port."""
    app = web.Application(middlewares=[guard], client_max_size=16 * 1024)
    app.on_response_prepare.append(last_headers)
    app[ACCESS_KEY], app[HUB], app[OUT], app[PAIR_URL] = access, hub, out, pair_url
    app[TEXTS_KEY] = hub.texts
    app[BASE_URL] = base_url or (lambda: pair_url().rsplit("/pair/", 1)[0])
    app[GATE] = gate or Gate(hub.texts)
    app[TLS_PORT] = tls_port or (lambda: 0)
    access.on_proven = app[GATE].trust
    hub.access = access
    access.announce = lambda what: _announce(out, hub.texts, access, pair_url, what)
    add_pages(app)
    add_api(app)
    add_series(app)   # a club's evening (web/series.py): 204 until start_server names its desk
    app.router.add_get("/api/ws", host_socket)
    app.router.add_get("/api/table/ws", table_socket)
    app.router.add_get("/api/overlay/{key}/ws", overlay_socket)
    return app


def _announce(out: TextIO, texts: Texts, access: Access, pair_url: Callable[[], str], what: str) -> None:
    """A pairing event, for whoever sits at the terminal: the next link and PIN,
    a PIN replaced after wrong tries, a device waiting for approval."""
    if what == "paired":
        line = texts("term_paired", url=pair_url(), pin=access.pin_shown())
    elif what == "pin_replaced":
        line = texts("term_pin_replaced", pin=access.pin_shown())
    else:
        line = texts("term_pending", url=pair_url(), pin=access.pin_shown())
    out.write(line + "\n")
    out.flush()


def print_pairing(out: TextIO, url: str, pin: str, table_url: str, texts: Texts | None = None,
                  fingerprint: str = "", qr: bool = True) -> None:
    """The link, the PIN and the link's QR code, written at once: whoever reads the
    terminal (or its log) finds the link and its code together. On the LAN, the
    certificate's fingerprint too, to compare with the phone's browser."""
    texts = texts or Texts()
    lines = io.StringIO()
    base = url.split("/pair/", 1)[0]
    lines.write(texts("term_pairing", url=url, base=base, pin=pin, table=table_url) + "\n")
    if fingerprint:
        lines.write(texts("term_fingerprint", fingerprint=fingerprint) + "\n")
    if qr:   # not with --no-qr, nor typed play whose output is no terminal
        _print_qr(lines, url)
    out.write(lines.getvalue())
    out.flush()


def _print_qr(lines: io.StringIO, url: str) -> None:
    try:
        import qrcode  # no stubs; only QRCode, add_data, print_ascii are used
    except ImportError:
        return
    code = qrcode.QRCode(border=1)
    code.add_data(url)
    code.print_ascii(out=lines, invert=True)


def print_overlay(out: TextIO, public: str, secure: str, hub: Hub) -> None:
    """The stream overlay's two links: the public board (plain HTTP, as the TV's),
    and the roles mode's secret one (HTTPS on the LAN; the host's streaming machine
    only, delayed)."""
    out.write(hub.texts("term_overlay", url=f"{public}/overlay", roles=f"{secure}/overlay/{hub.overlay_token}",
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


async def _listen(runner: web.AppRunner, bind: str, ports: dict[str, int], gate: Gate,
                  context: ssl.SSLContext | None) -> None:
    """Plain HTTP on ports["http"] and, with a TLS `context` (--lan), HTTPS on
    ports["https"] (the host's page), or any free ones with --port 0; the
    ports bound are written back. A port taken is one clear line."""
    lan = context is not None
    trying = ports["http"]
    try:
        plain = GatedSite(runner, bind, ports["http"], gate)
        await plain.start()
        ports["http"] = plain.bound
        if lan:
            trying = ports["https"]
            secure = GatedSite(runner, bind, ports["https"], gate, ssl_context=context)
            await secure.start()
            ports["https"] = secure.bound
    except OSError as exc:
        await runner.cleanup()
        raise VoicehostError(f"cannot serve the page on {bind}:{trying} ({exc.strerror}): "
                             f"choose another with --port" + (" (--lan uses it and the next one)" if lan else "")
                             ) from None


async def start_server(live: LiveTable, config: Config, *, lan: bool = False, port: int | None = None,
                       out: TextIO = sys.stdout, desk: SeriesDesk | None = None, qr: bool = True) -> PageServer:
    """Serve the page: on this machine over plain HTTP, or (lan) on every interface
    over HTTPS with the table's own certificate on port + 1, the plain HTTP port
    keeping only the public board and redirecting the rest. With a series' `desk`,
    the page serves the whole evening: its devices and certificate live in the
    series' folder, not beside one game's journal."""
    _more_descriptors()
    port = config.web.port if port is None else port
    bind = "0.0.0.0" if lan else config.web.host
    shown = lan_address() if lan else (bind if bind not in ("0.0.0.0", "") else "127.0.0.1")
    names = (*config.web.allowed_hosts, *(local_names() if lan or bind == "0.0.0.0" else ()), shown)
    keep = desk.keep if desk is not None else live.journal_path
    devices = Devices(devices_file(keep))
    access = Access(set(), devices)
    hub = Hub(live, asyncio.get_running_loop(), access=access, overlay_delay=config.web.overlay_delay)
    gate = Gate(hub.texts)
    gate.quiet_loop_errors(asyncio.get_running_loop())
    context, print_fp = (table_certificate(tls_file(keep), ("localhost", "127.0.0.1", *names))
                         if lan else (None, ""))
    ports = {"http": port, "https": port + 1 if lan and port else 0}

    def base() -> str:
        return f"https://{shown}:{ports['https']}" if lan else f"http://{shown}:{ports['http']}"

    def pair_url() -> str:
        return f"{base()}{access.link_path()}"

    app = make_app(live, access, hub, out, pair_url, base, gate, tls_port=(lambda: ports["https"]) if lan else None)
    app[FINGERPRINT] = print_fp
    if desk is not None:
        add_series(app, desk)
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=15)
    await runner.setup()
    await _listen(runner, bind, ports, gate, context)
    hosts = allowed_hosts(bind, ports["http"], names)
    if lan:
        secure_hosts = allowed_hosts(bind, ports["https"], names)
        hosts |= secure_hosts
        access.origins = ({f"https://{h.lower()}" for h in secure_hosts} |
                          {f"http://{h.lower()}" for h in allowed_hosts(bind, ports["http"], names)})
    access.hosts = {host.lower() for host in hosts}
    pump = asyncio.create_task(hub.pump(), name="web-pump")
    public = f"http://{shown}:{ports['http']}"
    table = f"{public}/table?tv={devices.tv}"
    print_pairing(out, pair_url(), access.pin_shown(), table, hub.texts, print_fp, qr=qr)
    print_overlay(out, public, base(), hub)
    return PageServer(runner, pump, access, base())


__all__ = ["HUB", "PAGE_INPUTS", "STATIC", "Hub", "PageServer", "lan_address", "make_app", "render_page",
           "start_server"]
