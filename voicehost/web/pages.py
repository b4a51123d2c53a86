"""The pages themselves and the ways in: the host's and the table's pages, the
pairing link's landing page, the PIN form, and the page's own static files."""
from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from voicehost.jsontypes import JSONOutObject
from voicehost.web.access import ACCESS_KEY, LONG_PIN_DIGITS, PIN_DIGITS, Access, Grant
from voicehost.web.devices import b64, decode_key, pin_key
from voicehost.web.gate import Gate
from voicehost.web.hub import HUB
from voicehost.web.texts import TEXTS_KEY, Texts
from voicehost.web.validate import Refusal, read_json

STATIC = Path(__file__).resolve().parent / "static"
OUT: web.AppKey[TextIO] = web.AppKey("out")  # the terminal, for the pairing lines
PAIR_URL: web.AppKey[Callable[[], str]] = web.AppKey("pair_url")
BASE_URL: web.AppKey[Callable[[], str]] = web.AppKey("base_url")
GATE: web.AppKey[Gate] = web.AppKey("gate", Gate)
TLS_PORT: web.AppKey[Callable[[], int]] = web.AppKey("tls_port")   # 0: plain HTTP only (this machine)
FINGERPRINT: web.AppKey[str] = web.AppKey("fingerprint", str)  # the certificate's, on the pairing pages
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
ASSETS = {path.name for path in STATIC.iterdir() if path.suffix in (".js", ".css", ".svg")}


def render_page(name: str, texts: Texts, values: dict[str, str] | None = None) -> str:
    """A page with its {{key}} labels filled in from the table's phrasebook (or `values`)."""
    values = values or {}
    return PLACEHOLDER.sub(lambda m: html.escape(values[m.group(1)] if m.group(1) in values else texts(m.group(1))),
                           (STATIC / name).read_text("utf-8"))


def _page(request: web.Request, name: str, status: int = 200) -> web.Response:
    texts: Texts = request.app[TEXTS_KEY]
    fingerprint = request.app.get(FINGERPRINT, "")
    values = {"cert_line": texts("cert_line", fingerprint=fingerprint) if fingerprint else ""}
    return web.Response(text=render_page(name, texts, values), status=status, content_type="text/html",
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
    """The landing page's POST spends the link. Its key is the link's fragment,
    which the page keeps and this request never carries."""
    access: Access = request.app[ACCESS_KEY]
    token = request.match_info["token"]
    grant = access.use_token(token) if len(token) <= 64 else None
    if grant is None:
        raise Refusal(401, "token_spent")
    return _granted(request, grant, {})


def _granted(request: web.Request, grant: Grant, extra: JSONOutObject) -> web.Response:
    """A cookie now, or (a later device) the place in the queue for a host's approval."""
    access: Access = request.app[ACCESS_KEY]
    if grant.pending is not None:
        return web.json_response({"pending": grant.pending, "code": grant.code, **extra}, status=202)
    response = web.json_response({"ok": True, **extra})
    access.set_cookie(response, grant.cookie or "", secure=request.secure)
    return response


async def pair_wait(request: web.Request) -> web.StreamResponse:
    """A waiting device asks whether a host approved it, proving it holds its key."""
    access: Access = request.app[ACCESS_KEY]
    waiting = access.pending.get(request.match_info["id"])
    if waiting is None or waiting.refused or not access.proof_ok(request, waiting.key, waiting.counters):
        raise Refusal(401, "pair_refused")
    if waiting.cookie is None:
        return web.json_response({"pending": request.match_info["id"], "code": waiting.code}, status=202)
    response = web.json_response({"ok": True})
    access.set_cookie(response, waiting.cookie, secure=request.secure)
    access.pending.pop(request.match_info["id"], None)
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
    """The PIN and the page's ECDH public key: a right PIN pairs one device whose key
    both sides derive and neither sends; anything else counts as a wrong PIN."""
    access: Access = request.app[ACCESS_KEY]
    client = request.remote or ""
    wait = access.pin_wait(client)
    if wait > 0:
        raise Refusal(429, "pin_wait", seconds=int(wait + 0.999))
    try:
        pin, public = await _pin_from(request)
    except Refusal:
        access.pin_failed(client)
        raise
    mine = ec.generate_private_key(ec.SECP256R1())
    try:
        theirs = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), public)
        key: bytes | None = pin_key(mine.exchange(ec.ECDH(), theirs))
    except ValueError:
        key = None
    grant = access.use_pin(pin, client, key)
    if grant is None:
        wait = access.pin_wait(client)
        if wait > 0:
            raise Refusal(429, "pin_wait", seconds=int(wait + 0.999))
        raise Refusal(401, "pin_wrong", count=access.pin_tries_left(client))
    ours = mine.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return _granted(request, grant, {"pub": b64(ours)})


async def _pin_from(request: web.Request) -> tuple[str, bytes]:
    """The PIN and the page's public key from a JSON body; anything else is a clear refusal."""
    if request.content_type != "application/json":
        raise Refusal(400, "pin_format")
    data = await read_json(request)
    pin = data.get("pin") if isinstance(data, dict) else None
    public = decode_key(data.get("pub")) if isinstance(data, dict) else None
    typed = "".join(pin.split()) if isinstance(pin, str) and len(pin) <= 32 else ""
    if len(typed) not in (PIN_DIGITS, LONG_PIN_DIGITS) or not typed.isascii() or not typed.isdigit():
        raise Refusal(400, "pin_format")
    if public is None or len(public) != 65:
        raise Refusal(400, "pin_format")
    return typed, public


def add_pages(app: web.Application) -> None:
    app.router.add_get("/", host_page)
    app.router.add_get("/table", table_page)
    app.router.add_get("/overlay", overlay_page)
    app.router.add_get("/overlay/{key}", overlay_roles_page)
    app.router.add_get("/pair/{token}", pair_page)
    app.router.add_post("/pair/{token}", pair)
    app.router.add_get("/pair/wait/{id}", pair_wait)
    app.router.add_get("/pin", pin_page)
    app.router.add_post("/pin", pin_submit)
    app.router.add_get("/static/{name:.*}", static_file)
