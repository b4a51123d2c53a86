"""The page's API: the host's inputs (through the live table, answered once they
are on disk), undo, the page's own settings, and the downloads (protocol and
the rating platforms' records)."""
from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from aiohttp import web

from voicehost.errors import GameError, InputError, JournalWriteError
from voicehost.export import ExportError, export_text, host_text
from voicehost.game.events import HOST_INPUTS, Event, Names, parse_event
from voicehost.game.protocol import protocol
from voicehost.journal import dealt, last_host_input
from voicehost.jsontypes import JSONObject, JSONOut
from voicehost.live import LiveTable
from voicehost.live.commands import random_roles
from voicehost.live.ending import protocol_csv  # one writer for the page and the file
from voicehost.live.table import TableStopped
from voicehost.web.access import ACCESS_KEY, Access, Session, require_host, require_reader, require_session
from voicehost.web.guard import dumps, json_error
from voicehost.web.hub import HUB, Hub
from voicehost.web.pages import BASE_URL
from voicehost.web.texts import TEXTS_KEY
from voicehost.web.validate import Refusal, parse_input, read_json

log = logging.getLogger("voicehost.web.server")
# What the page may post as an input: the host's inputs, the deal, and the players' names.
PAGE_INPUTS = HOST_INPUTS | {"setup", "names"}
EXPORTS = ("mafiaratings", "polemica")
PAIRED_ONLY = ("answer_", "private_mark", "answers_only_you", "role_", "deal_")


async def api_state(request: web.Request) -> web.Response:
    session = require_session(request)
    return _state(request, session)


def _state(request: web.Request, session: Session, **extra: JSONOut) -> web.Response:
    state = request.app[HUB].host_view(session)
    return web.json_response({**state, **extra}, dumps=dumps)


async def api_table(request: web.Request) -> web.Response:
    return web.json_response(request.app[HUB].table_view(), dumps=dumps)


# In a series, the seats' names as the roster spells them (an InputError for a
# name it lacks): set by the series' routes (web/series.py).
NAMES_CHECK: web.AppKey[Callable[[dict[int, str]], dict[int, str]]] = web.AppKey("names_check")


async def api_input(request: web.Request) -> web.Response:
    session = require_host(request)
    hub: Hub = request.app[HUB]
    data = await read_json(request)
    event, suggestion = parse_input(data, PAGE_INPUTS, hub.live.game.max_seat, hub.live.game.book)
    if isinstance(event, Names) and NAMES_CHECK in request.app:
        try:
            event = Names(request.app[NAMES_CHECK](event.names))
        except InputError as exc:
            raise Refusal(400, "raw", text=str(exc)) from None
    await _apply(hub, event)
    if suggestion is not None and 0 <= suggestion < len(hub.suggestions):
        hub.suggestions[suggestion]["open"] = False
    return _state(request, session)


async def _apply(hub: Hub, event: Event) -> None:
    """One input applied, answered once it is on disk; a refusal in the table's words."""
    try:
        hub.live.apply(event)
    except (TableStopped, JournalWriteError):
        raise _stopped(hub) from None
    except GameError as exc:
        log.info("refused %s: %s", type(event).__name__, exc)  # the English reason, for the log only
        raise _refusal(hub, exc) from None
    except InputError:
        raise Refusal(400, "bad_input") from None
    await _synced(hub)


async def api_deal(request: web.Request) -> web.Response:
    """1.5: the roles dealt at random, as typed /deal does (POST /api/deal, body
    `{}`). The answer is the state with the roles shown to the device that
    asked (its "Показать роли" turned on), plus `"deal": {"1": "citizen", …}`;
    the city's party deal is entered by hand."""
    session = require_host(request)
    hub: Hub = request.app[HUB]
    await _object(request)
    game = hub.live.game
    if game.variant.kind != "sports" or len(game.seats()) != len(random_roles()):
        raise Refusal(409, "deal_random_sports")
    roles = random_roles()
    await _apply(hub, parse_event({"type": "setup", "roles": roles}, game.max_seat))
    access: Access = request.app[ACCESS_KEY]
    access.reveal[session.id] = session.reveal_roles = True
    hub.wake()
    return _state(request, session, deal=roles)


async def _synced(hub: Hub) -> None:
    """Answer only once the input is on disk; a journal that failed refuses it loudly."""
    try:
        await hub.live.synced()
    except (TableStopped, JournalWriteError):
        raise _stopped(hub) from None
    if hub.live.failure is not None:
        raise _stopped(hub)


def _stopped(hub: Hub) -> Refusal:
    """The journal cannot be written: no input counts any more (the table's own words)."""
    return Refusal(409, "stopped", text=hub.live.texts.text("stopped"))


def _refusal(hub: Hub, exc: GameError) -> Refusal:
    """The moderator's refusal in the table's words: the phrasebook's [refuse] text
    for its key, else the page's general line naming the phase."""
    if hub.live.undoing:  # the live table's own refusal, already in the table's words
        return Refusal(409, "raw", text=exc.reason)
    book = hub.live.game.book
    if exc.key in getattr(book, "refuse", {}):
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
    live = hub.live
    if live.failure is not None:  # nothing is taken back unrecorded either
        raise _stopped(hub)
    index = last_host_input(live.entries)
    if index is None:
        raise Refusal(409, "undo_nothing_dealt" if dealt(live.entries) else "undo_nothing")
    what = hub.texts.input(live.entries[index].event)
    if expected is not None and expected != index:
        raise Refusal(409, "undo_stale", what=what)
    try:
        undone = await live.undo_async()  # the game is rebuilt off the loop
    except (TableStopped, JournalWriteError):
        raise _stopped(hub) from None
    except GameError as exc:  # one undo at a time: the live table's words
        raise Refusal(409, "raw", text=exc.reason) from None
    except InputError:
        raise Refusal(409, "undo_nothing") from None
    await _synced(hub)
    return web.json_response({"undone": undone, "message": hub.texts("undone", what=what),
                              "state": hub.host_view(session)}, dumps=dumps)


async def _object(request: web.Request) -> JSONObject:
    """A body that must be empty or a JSON object."""
    data = await read_json(request, allow_empty=True)
    if not isinstance(data, dict):
        raise Refusal(400, "not_object")
    return data


async def api_reveal(request: web.Request) -> web.Response:
    session = require_host(request)
    data = await read_json(request)
    show = data.get("show") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(show, bool) or set(data) - {"show"}:
        raise Refusal(400, "bad_bool")
    access: Access = request.app[ACCESS_KEY]
    access.reveal[session.id] = show
    session.reveal_roles = show
    request.app[HUB].wake()   # the device's live channels show it too
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
        hub.answers_dismissed = max([c.night for c in hub.live.game.checks], default=0)
    hub.wake()
    return _state(request, session)


async def api_judge(request: web.Request) -> web.Response:
    """A one-time link for an assistant judge: a paired, read-only view."""
    session = require_host(request)
    await _object(request)
    access: Access = request.app[ACCESS_KEY]
    url = f"{request.app[BASE_URL]()}{access.new_judge_link()}"
    return _state(request, session, judge_link=url)


async def api_approve(request: web.Request) -> web.Response:
    """A paired host device lets a waiting device in (or turns it away)."""
    session = require_host(request)
    await _object(request)
    access: Access = request.app[ACCESS_KEY]
    if not access.approve(request.match_info["id"], request.match_info["verdict"] == "approve"):
        raise Refusal(404, "no_device")
    request.app[HUB].wake()
    return _state(request, session)


async def api_epoch(request: web.Request) -> web.Response:
    """This server's epoch, which every proof names (no secret: it only ends replays across restarts)."""
    return web.json_response({"epoch": request.app[ACCESS_KEY].epoch})


async def api_revoke(request: web.Request) -> web.Response:
    session = require_host(request)
    await _object(request)
    device = request.match_info["id"]
    access: Access = request.app[ACCESS_KEY]
    if len(device) > 12 or not access.revoke(device):
        raise Refusal(404, "no_device")
    request.app[HUB].wake()
    return _state(request, session, message=request.app[TEXTS_KEY]("revoked", id=device))


async def api_protocol(request: web.Request) -> web.StreamResponse:
    require_reader(request)  # the roles: never to a judge's device
    live: LiveTable = request.app[HUB].live
    with live.lock:
        if request.match_info["fmt"] == "csv":
            return web.Response(text=protocol_csv(live), content_type="text/csv", charset="utf-8",
                                headers={"Content-Disposition": 'attachment; filename="protocol.csv"'})
        return web.json_response(protocol(live.game), dumps=dumps,
                                 headers={"Content-Disposition": 'attachment; filename="protocol.json"'})


async def api_export(request: web.Request) -> web.StreamResponse:
    """The finished game as a rating platform's record (mafiaratings, Polemica): it names roles."""
    require_reader(request)
    live: LiveTable = request.app[HUB].live
    fmt = request.match_info["fmt"]
    with live.lock:  # the journaled game as it stands: nothing moves while it is read
        try:
            text = export_text(live.journaled, fmt, datetime.now(UTC))
        except ExportError as exc:
            return json_error(409, host_text(exc, live.game.rules.phrasebook))
    return web.Response(text=text, content_type="application/json", charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="game.{fmt}.json"'})


async def api_texts(request: web.Request) -> web.Response:
    """The page's words in the table's language. No game data; even the wording of
    private answers goes only to a paired device."""
    words = request.app[TEXTS_KEY].words
    if request.app[ACCESS_KEY].session(request) is None:
        words = {k: v for k, v in words.items() if not k.startswith(PAIRED_ONLY)}
    return web.json_response(words, dumps=lambda d: json.dumps(d, ensure_ascii=False),
                             headers={"Cache-Control": "no-store"})


def add_api(app: web.Application) -> None:
    app.router.add_get("/api/texts", api_texts)
    app.router.add_get("/api/state", api_state)
    app.router.add_get("/api/table", api_table)
    app.router.add_post("/api/input", api_input)
    app.router.add_post("/api/undo", api_undo)
    app.router.add_post("/api/deal", api_deal)
    app.router.add_post("/api/reveal", api_reveal)
    app.router.add_post("/api/answers/dismiss", api_answers_dismiss)
    app.router.add_post("/api/suggestions/{id}/dismiss", api_dismiss)
    app.router.add_post("/api/devices/judge", api_judge)
    app.router.add_post("/api/devices/{id}/revoke", api_revoke)
    app.router.add_post("/api/devices/pending/{id}/{verdict:approve|refuse}", api_approve)
    app.router.add_get("/api/epoch", api_epoch)
    app.router.add_get("/api/protocol.{fmt:json|csv}", api_protocol)
    app.router.add_get("/api/export.{fmt:mafiaratings|polemica}", api_export)
