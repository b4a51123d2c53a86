"""The page's part of a club's evening (`voicehost run --serve|--lan --series
NAME`, SPEC §6): one page server for all the evening's games, the seating
from the roster before the deal, the protest and "Следующая игра" after the
end, and the standings on the host page and the TV board between games.

The desk is what the page asks the evening for; the session fills in its two
hands: `refile` (the finished game back into the series after a protest, as
typed /protest does) and `next_game` (the same as typed /new). The seating
and the protest go through the live table like every other input."""
from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from voicehost.errors import GameError, InputError, JournalWriteError
from voicehost.game.events import Event, parse_event, parse_protest
from voicehost.game.model import Phase
from voicehost.jsontypes import JSONOut, JSONOutObject
from voicehost.live import LiveTable
from voicehost.live.evening import Evening, roster_names
from voicehost.live.table import TableStopped
from voicehost.series.standings import Row
from voicehost.web.access import require_host, require_session
from voicehost.web.api import NAMES_CHECK, _refusal, _stopped, _synced
from voicehost.web.guard import dumps
from voicehost.web.hub import HUB, Hub
from voicehost.web.validate import Refusal, read_json

log = logging.getLogger("voicehost.web.server")
EVENING_FILE = "evening"        # series/NAME/evening.devices and evening.tls.pem: the page's keys for an evening
EVENING_HOURS = 12.0            # a devices file untouched longer than this belongs to an evening gone by
PUBLIC_COLUMNS = ("place", "name", "games", "wins", "points", "coefficient", "bests", "worsts", "best_moves",
                  "decided_by")


@dataclass
class SeriesDesk:
    evening: Evening
    refile: Callable[[], object] = lambda: None
    next_game: Callable[[], object] = lambda: None
    _cache: tuple[object, list[JSONOutObject]] | None = field(default=None, repr=False)
    _next_for: LiveTable | None = field(default=None, repr=False)   # the game whose successor was asked for

    def roster_names(self, names: dict[int, str]) -> dict[int, str]:
        """The page's seat names as the roster spells them; one it lacks is refused."""
        return roster_names(names, self.evening.series, self.evening.texts, "seating_unknown_page")

    def next_after(self, live: LiveTable) -> None:
        """Ask for the next game once per game: a second tap while it starts is not a second /new."""
        if self._next_for is not live:
            self._next_for = live
            self.next_game()

    @property
    def keep(self) -> Path:
        """The path the page's devices file and certificate are named after, for the whole evening."""
        return self.evening.series.folder / EVENING_FILE

    def standings(self) -> list[JSONOutObject]:
        """The series' rows as `voicehost standings` computes them; read again only when a game file changed."""
        series = self.evening.series
        files = series.game_files()
        stamp = (tuple((p.name, p.stat().st_mtime_ns) for p in files), len(series.roster))
        if self._cache is None or self._cache[0] != stamp:
            self._cache = (stamp, [_public(row) for row in series.standings()])
        return self._cache[1]


DESK: web.AppKey[SeriesDesk] = web.AppKey("series_desk", SeriesDesk)


def _public(row: Row) -> JSONOutObject:
    data = row.to_json()
    return {key: data[key] for key in PUBLIC_COLUMNS}


def fresh_evening(keep: Path, now: float) -> None:
    """The phones paired on another evening are forgotten: a devices file nobody
    touched for EVENING_HOURS starts the evening's pairing afresh (the certificate
    stays, so a phone that trusted it once still does)."""
    devices = keep.with_name(keep.name + ".devices")
    try:
        if now - devices.stat().st_mtime > EVENING_HOURS * 3600:
            devices.unlink()
            log.info("%s is from an earlier evening: pairing starts afresh", devices)
    except FileNotFoundError:
        pass


def switch_table(hub: Hub, live: LiveTable) -> None:
    """The page goes on with the evening's next game: the same server, devices and
    keys; the announcements and suggestions of the game before are dropped."""
    old = hub.live
    if old is live:
        return
    if hub.on_outputs in old.listeners:
        old.listeners.remove(hub.on_outputs)
    hub.live = live
    hub.log.clear()            # the numbering (hub.said) goes on: a page never takes a new line for an old one
    hub.suggestions.clear()
    hub.answers_dismissed = 0
    live.listeners.append(hub.on_outputs)
    hub.wake()


def _between(live: LiveTable) -> bool:
    return live.game.phase in (Phase.SETUP, Phase.GAME_OVER)


# ---------------------------------------------------------------- routes

Handler = Callable[[web.Request], Awaitable[web.Response]]


def _with_desk(handler: Handler) -> Handler:
    """A table that plays one game has no desk: 204, nothing to show, and the page stops asking."""
    @functools.wraps(handler)
    async def answer(request: web.Request) -> web.Response:
        if request.app.get(DESK) is None:
            return web.Response(status=204)
        return await handler(request)
    return answer


@_with_desk
async def api_series_table(request: web.Request) -> web.Response:
    """Public (the TV board): the standings, and whether the table is between games."""
    desk, hub = request.app[DESK], request.app[HUB]
    with hub.live.lock:
        between = _between(hub.live)
    return web.json_response({"name": desk.evening.series.name, "count": len(desk.evening.series.game_files()),
                              "between": between, "rows": desk.standings()}, dumps=dumps)


@_with_desk
async def api_series_desk(request: web.Request) -> web.Response:
    session = require_session(request)
    return _desk(request, session.csrf, session.readonly)


def _desk(request: web.Request, csrf: str, readonly: bool = False, **extra: JSONOut) -> web.Response:
    desk, hub = request.app[DESK], request.app[HUB]
    series = desk.evening.series
    live = hub.live
    with live.lock:
        game = live.game
        protest = game.state.record.protest
        state = {"phase_id": game.phase.value, "over": live.over, "between": _between(live),
                 "seats": len(game.seats()), "seated": {str(s): n for s, n in sorted(game.state.record.names.items())},
                 "protest": None if protest is None else protest.to_json()}
    body = {"name": series.name, "count": len(series.game_files()), "roster": list(series.roster),
            "rows": desk.standings(), "csrf": csrf, "readonly": readonly, **state, **extra}
    return web.json_response(body, dumps=dumps)


@_with_desk
async def api_series_seating(request: web.Request) -> web.Response:
    """1.2: the ten players present, in their seats by lot or as the host set them."""
    session = require_host(request)
    desk, hub = request.app[DESK], request.app[HUB]
    data = await read_json(request)
    given = data.get("names") if isinstance(data, dict) else None
    draw = data.get("draw") if isinstance(data, dict) else None
    names = [n for n in given if isinstance(n, str)] if isinstance(given, list) else []
    if (not isinstance(data, dict) or not isinstance(given, list) or len(names) != len(given) or len(names) > 40
            or not isinstance(draw, bool) or set(data) - {"names", "draw"}):
        raise Refusal(400, "series_seating_bad")
    try:
        event = parse_event(desk.evening.seating(names, draw, len(hub.live.game.seats())), hub.live.game.max_seat)
    except InputError as exc:
        raise Refusal(400, "raw", text=_words(hub, exc)) from None
    await _apply(hub, event)
    return _desk(request, session.csrf, message=hub.texts("series_seated"))


@_with_desk
async def api_series_newcomer(request: web.Request) -> web.Response:
    """A player new to the club joins the roster (kept at once, whole)."""
    session = require_host(request)
    desk, hub = request.app[DESK], request.app[HUB]
    data = await read_json(request)
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(data, dict) or set(data) - {"name"}:
        raise Refusal(400, "series_newcomer_bad")
    series = desk.evening.series
    try:
        new = series.enrol([name])  # type: ignore[list-item]  # check_name refuses what is not text
    except InputError as exc:
        raise Refusal(400, "raw", text=_words(hub, exc)) from None
    if not new:
        raise Refusal(409, "series_newcomer_twice", name=series.find(str(name)) or name)
    try:
        series.save()
    except OSError as exc:
        series.roster.remove(new[0])
        log.warning("cannot keep the roster of %s: %s", series.name, exc)
        raise Refusal(409, "series_not_kept") from None
    return _desk(request, session.csrf, message=hub.texts("series_newcomer_added", name=new[0]))


@_with_desk
async def api_series_protest(request: web.Request) -> web.Response:
    """1.8, SPEC §6.3: after the end only (the moderator refuses it before); the
    series then holds the game as the protest leaves it."""
    session = require_host(request)
    desk, hub = request.app[DESK], request.app[HUB]
    data = await read_json(request)
    if not isinstance(data, dict) or set(data) - {"team", "votes", "outcome"}:
        raise Refusal(400, "series_protest_bad")
    try:
        event = parse_protest(data)
    except InputError as exc:
        raise Refusal(400, "raw", text=_words(hub, exc)) from None
    await _apply(hub, event)
    desk.refile()
    return _desk(request, session.csrf)


@_with_desk
async def api_series_next(request: web.Request) -> web.Response:
    """"Следующая игра": the same as typed /new, and only once this game has ended."""
    session = require_host(request)
    desk, hub = request.app[DESK], request.app[HUB]
    data = await read_json(request, allow_empty=True)
    if not isinstance(data, dict) or data:
        raise Refusal(400, "not_object")
    if not hub.live.over:
        raise Refusal(409, "series_not_over")
    desk.next_after(hub.live)
    # The new game starts a moment later: the message is of its first phase, not of this game's end.
    return _desk(request, session.csrf, message=hub.texts("series_next_started"), message_phase=Phase.SETUP.value)


async def _apply(hub: Hub, event: Event) -> None:
    try:
        hub.live.apply(event)
    except (TableStopped, JournalWriteError):
        raise _stopped(hub) from None
    except GameError as exc:
        log.info("refused %s: %s", type(event).__name__, exc)
        raise _refusal(hub, exc) from None
    except InputError as exc:
        raise Refusal(400, "raw", text=_words(hub, exc)) from None
    await _synced(hub)


def _words(hub: Hub, exc: InputError) -> str:
    """An input refusal in the table's words: the phrasebook's for its key, else its own (already in them)."""
    if exc.key:
        try:
            return " ".join(hub.live.game.book.refusal(exc).split())
        except (KeyError, ValueError, TypeError, IndexError):
            log.debug("no refusal text for %r", exc)
    return " ".join(str(exc).split())


def add_series(app: web.Application, desk: SeriesDesk | None = None) -> None:
    """The series' routes, on every page server (answering 204 without a series); `desk` names the evening."""
    if desk is not None:
        app[DESK] = desk
        app[NAMES_CHECK] = desk.roster_names
    if any(r.resource is not None and r.resource.canonical == "/api/series" for r in app.router.routes()):
        return   # make_app has them already
    app.router.add_get("/api/table/series", api_series_table)   # under /api/table: plain HTTP serves it on the LAN
    app.router.add_get("/api/series", api_series_desk)
    app.router.add_post("/api/series/seating", api_series_seating)
    app.router.add_post("/api/series/newcomer", api_series_newcomer)
    app.router.add_post("/api/series/protest", api_series_protest)
    app.router.add_post("/api/series/next", api_series_next)
