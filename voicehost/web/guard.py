"""The guard every request passes: the Host allowlist, the Origin check, a body
read whole, bounded in size and time before anything parses it, and a JSON
reason in the table's language for every refusal (never a 500)."""
from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from voicehost.jsontypes import JSONOut
from voicehost.web.access import ACCESS_KEY, BODY, HEADERS, Access
from voicehost.web.gate import SERVER
from voicehost.web.hub import HUB
from voicehost.web.padding import pad_response
from voicehost.web.pages import TLS_PORT
from voicehost.web.texts import TEXTS_KEY, Texts
from voicehost.web.validate import Refusal

log = logging.getLogger("voicehost.web.server")

HTTP_REASON = {404: "not_found", 405: "bad_method", 413: "too_large"}
# The largest body each way in takes (bytes), checked before a byte is parsed.
BODY_LIMITS = {"/pin": 512, "/pair/": 256, "/api/input": 8192}
BODY_LIMIT = 1024
BODY_SECONDS = 5.0       # a body that trickles in slower than this is dropped
# What plain HTTP still serves on the LAN: the public board (a TV browser often
# refuses a self-made certificate); it holds no secret. The rest redirects to HTTPS.
# The overlay's public mode is `/overlay` alone: its roles mode (`/overlay/<key>`)
# is secret, so over plain HTTP it is refused, never redirected.
PLAIN_PATHS = ("/table", "/api/table", "/api/table/ws", "/api/texts", "/api/epoch", "/static/")
PLAIN_EXACT = ("/overlay",)
# The API answers that hold nothing private are not padded (web/padding.py): the public
# board's and the overlay's (a TV fetches them), and the server's epoch.
UNPADDED = ("/api/table", "/api/overlay/", "/api/epoch")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)


def json_error(status: int, text: str, headers: dict[str, str] | None = None,
               **extra: JSONOut) -> web.Response:
    """A refusal as the page reads it: one line under "error" (plus `extra`)."""
    return web.json_response({"error": " ".join(text.split()), **extra}, status=status, dumps=dumps,
                             headers=headers)


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Host allowlist on everything; Origin on every POST and live channel; a JSON
    reason in the table's language for every refusal; headers on every answer."""
    access: Access = request.app[ACCESS_KEY]
    texts: Texts = request.app[TEXTS_KEY]
    response: web.StreamResponse
    if not access.host_allowed(request):
        response = web.Response(status=421, text=texts("bad_host") + "\n")
    elif (tls_port := request.app[TLS_PORT]()) and not request.secure and not _plain(request.path):
        response = _to_https(request, tls_port, texts)
    elif (request.method == "POST" or request.path.endswith("/ws")) and not access.origin_allowed(request):
        response = json_error(403, texts("foreign_origin"))
    elif request.path == "/pin" and (wait := access.pin_wait(request.remote or "")) > 0:
        response = json_error(429, texts("pin_wait", seconds=int(wait + 0.999)))  # not even read
    elif (refused := await _read_body(request, access)) is not None:
        response = json_error(refused[0], texts(refused[1]))
    else:
        try:
            response = await handler(request)
            if response.status >= 400 and isinstance(response, web.Response) and not response.body:
                response = web.Response(status=response.status,
                                        text=texts(HTTP_REASON.get(response.status, "bad_input")) + "\n")
        except Refusal as refusal:
            response = _refused(refusal, texts)
        except web.HTTPException as exc:
            if exc.status >= 400 and (request.path.startswith("/api/") or request.method == "POST"):
                response = json_error(exc.status, texts(HTTP_REASON.get(exc.status, "bad_input")))
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
            response = json_error(400, texts("unexpected"))
    if not response.prepared:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if request.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
            if not request.path.startswith(UNPADDED):
                pad_response(response)
    return response


HSTS = "max-age=31536000"   # on the HTTPS port: a phone that paired there never falls back to plain HTTP


async def last_headers(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """On every answer just before it is sent, live channels and files included."""
    response.headers["Server"] = SERVER
    if request.secure:
        response.headers.setdefault("Strict-Transport-Security", HSTS)


def _plain(path: str) -> bool:
    return path in PLAIN_EXACT or any(path == p or (p.endswith("/") and path.startswith(p)) or
                                      path.startswith(p + "/") or path.startswith(p + "?") for p in PLAIN_PATHS)


def _to_https(request: web.Request, port: int, texts: Texts) -> web.StreamResponse:
    """Plain HTTP on the LAN: a page is sent on to HTTPS; anything that would carry a
    secret (a POST, a host's API call) is refused, so nothing secret is answered in clear."""
    if request.method not in ("GET", "HEAD") or request.path.startswith(("/api/", "/overlay/")):
        return json_error(403, texts("https_only"))
    host = request.url.raw_host or "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    path = "/" if request.path.startswith("/pair/") else request.rel_url.path_qs
    return web.Response(status=308, headers={"Location": f"https://{host}:{port}{path}"})


def body_limit(path: str) -> int:
    for prefix, limit in BODY_LIMITS.items():
        if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
            return limit
    return BODY_LIMIT


async def _read_body(request: web.Request, access: Access) -> tuple[int, str] | None:
    """Read the body whole, within its limit and time, into request[BODY]; a
    refusal (status, key) otherwise. A bad body sent to the PIN counts as a wrong PIN."""
    request[BODY] = b""
    if request.method in ("GET", "HEAD", "OPTIONS") and not request.body_exists:
        return None
    limit = body_limit(request.path)
    refused: tuple[int, str] | None = None
    if request.headers.get("Content-Encoding", "identity").lower() != "identity":
        refused = (400, "bad_input")
    elif request.content_length is not None and request.content_length > limit:
        refused = (413, "too_large")
    else:
        request._client_max_size = limit  # the cap on what read() gathers, chunked bodies too
        try:
            request[BODY] = await asyncio.wait_for(request.read(), BODY_SECONDS)
        except web.HTTPRequestEntityTooLarge:
            refused = (413, "too_large")
        except TimeoutError:
            refused = (408, "too_slow")
    if refused is not None:
        if request.path == "/pin":
            access.pin_failed(request.remote or "")
        request.app[HUB].refused_bodies += 1
    return refused


def _refused(refusal: Refusal, texts: Texts) -> web.Response:
    if refusal.key == "raw":  # the moderator's own refusal, also under the core's name
        return web.json_response({"error": refusal.values["text"], "refusal": refusal.values["text"]},
                                 status=refusal.status, dumps=dumps)
    if refusal.key == "stopped":  # the journal failed: the page shows it loudly
        return json_error(refusal.status, str(refusal.values["text"]), stopped=True)
    if refusal.key == "no_proof":  # the page's request layer reads this server's epoch and signs again
        return json_error(refusal.status, texts("no_proof"), epoch=str(refusal.values["epoch"]))
    return json_error(refusal.status, texts(refusal.key, **refusal.values))
