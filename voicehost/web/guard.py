"""The guard every request passes: the Host allowlist, the Origin check, and a
JSON reason in the table's language for every refusal (never a 500)."""
from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from voicehost.web.access import ACCESS_KEY, HEADERS, Access
from voicehost.web.hub import HUB
from voicehost.web.texts import TEXTS_KEY, Texts
from voicehost.web.validate import Refusal

log = logging.getLogger("voicehost.web.server")

HTTP_REASON = {404: "not_found", 405: "bad_method", 413: "too_large"}
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def json_error(status: int, text: str, headers: dict[str, str] | None = None, **extra: Any) -> web.Response:
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
    elif (request.method == "POST" or request.path.endswith("/ws")) and not access.origin_allowed(request):
        response = json_error(403, texts("foreign_origin"))
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
    return response


def _refused(refusal: Refusal, texts: Texts) -> web.Response:
    if refusal.key == "raw":  # the moderator's own refusal, also under the core's name
        return web.json_response({"error": refusal.values["text"], "refusal": refusal.values["text"]},
                                 status=refusal.status, dumps=dumps)
    if refusal.key == "stopped":  # the journal failed: the page shows it loudly
        return json_error(refusal.status, refusal.values["text"], stopped=True)
    return json_error(refusal.status, texts(refusal.key, **refusal.values))
