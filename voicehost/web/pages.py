"""The pages themselves and the ways in: the host's and the table's pages, the
pairing link's landing page, the PIN form, and the page's own static files."""
from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import TextIO
from urllib.parse import parse_qs

from aiohttp import web

from voicehost.web.access import ACCESS_KEY, Access
from voicehost.web.hub import HUB
from voicehost.web.texts import TEXTS_KEY, Texts
from voicehost.web.validate import Refusal, read_json

STATIC = Path(__file__).resolve().parent / "static"
OUT: web.AppKey[TextIO] = web.AppKey("out")  # the terminal, for the pairing lines
PAIR_URL: web.AppKey[Callable[[], str]] = web.AppKey("pair_url")
BASE_URL: web.AppKey[Callable[[], str]] = web.AppKey("base_url")
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
ASSETS = {path.name for path in STATIC.iterdir() if path.suffix in (".js", ".css", ".svg")}


def render_page(name: str, texts: Texts) -> str:
    """A page with its {{key}} labels filled in from the table's phrasebook."""
    return PLACEHOLDER.sub(lambda m: html.escape(texts(m.group(1))), (STATIC / name).read_text("utf-8"))


def _page(request: web.Request, name: str, status: int = 200) -> web.Response:
    return web.Response(text=render_page(name, request.app[TEXTS_KEY]), status=status, content_type="text/html",
                        charset="utf-8", headers={"Cache-Control": "no-store"})


async def host_page(request: web.Request) -> web.StreamResponse:
    if request.app[ACCESS_KEY].session(request) is None:
        return _page(request, "unpaired.html", status=401)
    return _page(request, "host.html")


async def table_page(request: web.Request) -> web.StreamResponse:
    return _page(request, "table.html")


async def overlay_page(request: web.Request) -> web.StreamResponse:
    """The stream's overlay (an OBS browser source): the public board, transparent."""
    return _page(request, "overlay.html")


async def overlay_roles_page(request: web.Request) -> web.StreamResponse:
    """The stream's roles mode, only behind its secret link (printed to the host);
    any other key is a plain 404, as for an address that does not exist."""
    if not request.app[HUB].overlay_key_ok(request.match_info["key"]):
        raise web.HTTPNotFound()
    return _page(request, "overlay.html")


async def pair_page(request: web.Request) -> web.StreamResponse:
    """The link's landing page: same-origin, so the cookie it gets is sent on from
    there even when the link was opened from another app or site. The token is
    spent only by the page's POST, never by a link preview's GET."""
    return _page(request, "pair.html")


async def pair(request: web.Request) -> web.StreamResponse:
    access: Access = request.app[ACCESS_KEY]
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


async def static_file(request: web.Request) -> web.StreamResponse:
    """The page's own scripts, styles and icon: a fixed list, nothing else from disk."""
    name = request.match_info["name"]
    if name not in ASSETS:
        raise web.HTTPNotFound()
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


async def pin_page(request: web.Request) -> web.StreamResponse:
    return _page(request, "pin.html")


async def pin_submit(request: web.Request) -> web.StreamResponse:
    access: Access = request.app[ACCESS_KEY]
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


def add_pages(app: web.Application) -> None:
    app.router.add_get("/", host_page)
    app.router.add_get("/table", table_page)
    app.router.add_get("/overlay", overlay_page)
    app.router.add_get("/overlay/{key}", overlay_roles_page)
    app.router.add_get("/pair/{token}", pair_page)
    app.router.add_post("/pair/{token}", pair)
    app.router.add_get("/pin", pin_page)
    app.router.add_post("/pin", pin_submit)
    app.router.add_get("/static/{name:.*}", static_file)
