"""The page's part of a club's evening (SPEC §6, issue 16): the standings on the
host page and the TV board's API, the seating from the roster before the deal,
a newcomer, the protest and "Следующая игра" after the end — every refusal one
line in the table's words, nothing changed — and one page server for the whole
evening: the next game and a restart keep the phones paired."""
from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import time

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from yarl import URL

from tests.conftest import ROLES, async_wait_for, run_async, series_protocol
from tests.webparts import SECRETS, in_words, judge_token, paired, post, signing_client
from voicehost.errors import InputError
from voicehost.game.model import Phase
from voicehost.game.moderator import Moderator
from voicehost.journal import Journal, Table
from voicehost.live import AudioClock, LiveTable
from voicehost.live.evening import Evening
from voicehost.live.texts import live_texts
from voicehost.rules import rules_for
from voicehost.series.store import Series
from voicehost.web.access import PROOF_HEADER, Access, allowed_hosts
from voicehost.web.devices import proof_mac
from voicehost.web.evening import EveningPage
from voicehost.web.series import EVENING_HOURS, SeriesDesk, add_series, fresh_evening, switch_table
from voicehost.web.server import Hub, make_app
from voicehost.web.state import table_state

ROSTER = ["Алиса", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Зоя", "Илья", "Кира", "Лёва"]
REDS_OUT = (1, 3, 5, 6)   # four reds disqualified: the mafia wins at once


def club(tmp_path, ruleset: str = "4mafia", games: int = 1) -> Evening:
    series = Series.create(tmp_path / "series", "vecher", ROSTER, ruleset)
    roles = ["citizen", "mafia", "citizen", "don", "citizen", "sheriff", "mafia", "citizen", "citizen", "citizen"]
    for n in range(games):
        protocol = series_protocol("red", dict(zip(ROSTER[n:n + 10], roles, strict=True)), best=ROSTER[n])
        series.put(f"game-{n + 1:03d}", {**protocol, "ruleset": ruleset})
    rules = rules_for(ruleset)
    return Evening(series, live_texts(rules.phrasebook))


def new_live(ruleset: str = "4mafia", journal=None) -> LiveTable:
    rules = rules_for(ruleset)
    return LiveTable(Table(Moderator.for_rules(rules), Journal(journal, rules) if journal else None), AudioClock())


@contextlib.asynccontextmanager
async def desk_page(evening: Evening, live: LiveTable | None = None):
    live = live or new_live()
    access = Access(set())
    hub = Hub(live, asyncio.get_running_loop())
    calls: list[str] = []
    desk = SeriesDesk(evening, refile=lambda: calls.append("refile"), next_game=lambda: calls.append("new"))
    app = make_app(live, access, hub, io.StringIO(), lambda: f"/pair/{access.token}")
    add_series(app, desk)
    server = TestServer(app, host="127.0.0.1")
    client = signing_client(server)
    await client.start_server()
    access.hosts = allowed_hosts("127.0.0.1", server.port)
    client.origin = f"http://127.0.0.1:{server.port}"
    try:
        yield client, hub, access, calls
    finally:
        await client.close()


async def refused(response, status: int, *, keywords: bool = False) -> str:
    """One line in the table's words (`keywords`: it may quote the typed command's English keywords)."""
    assert response.status == status, await response.text()
    line = (await response.json())["error"]
    assert "\n" not in line and (re.search("[а-яА-Я]", line) if keywords else in_words(line)), line
    return line


def test_the_standings_are_public_between_games_and_carry_no_secret(tmp_path):
    evening = club(tmp_path, games=2)

    async def go():
        async with desk_page(evening) as (client, hub, access, _):
            response = await client.get("/api/table/series")   # no cookie, no proof: the TV's board
            assert response.status == 200
            text = await response.text()
            data = json.loads(text)
            assert data["name"] == "vecher" and data["count"] == 2 and data["between"] is True
            expected = [row.to_json() for row in evening.series.standings()]
            assert [(r["place"], r["name"], r["points"], r["coefficient"], r["decided_by"]) for r in data["rows"]] \
                == [(r["place"], r["name"], r["points"], r["coefficient"], r["decided_by"]) for r in expected]
            assert data["rows"][0]["name"] in ("Алиса", "Борис")   # a game won as red with the best player's bonus
            assert not SECRETS.search(json.dumps(data, ensure_ascii=False))
            for path in ("/static/standings.js", "/static/series.css"):
                assert not SECRETS.search(await (await client.get(path)).text())
            assert (await client.get("/api/series")).status == 401   # the host's desk is a paired device's
            hub.live.apply_json({"type": "setup", "roles": ROLES})
            assert (await (await client.get("/api/table/series")).json())["between"] is False
    run_async(go())


def test_seating_from_the_roster_by_lot_and_in_order(tmp_path):
    evening = club(tmp_path)

    async def go():
        async with desk_page(evening) as (client, hub, access, _):
            state = await paired(client, access)
            desk = await (await client.get("/api/series")).json()
            assert desk["roster"] == ROSTER and desk["seats"] == 10 and desk["phase_id"] == "setup"
            csrf = state["csrf"]
            present = ["алиса", "БОРИС", *ROSTER[2:9], "лева"]   # any case, ё as е: the roster's spelling is kept
            entries = len(hub.live.entries)
            short = await post(client, "/api/series/seating", {"names": present[:9], "draw": True}, csrf)
            assert "10" in await refused(short, 400) and len(hub.live.entries) == entries
            twice = await post(client, "/api/series/seating", {"names": present[:9] + ["Алиса"], "draw": False}, csrf)
            assert "Алиса" in await refused(twice, 409) and hub.live.game.state.record.names == {}
            bad = await post(client, "/api/series/seating", {"names": present, "draw": "yes"}, csrf)
            await refused(bad, 400)
            no_csrf = await post(client, "/api/series/seating", {"names": present, "draw": False})
            assert no_csrf.status == 403 and hub.live.game.state.record.names == {}

            done = await post(client, "/api/series/seating", {"names": present, "draw": False}, csrf)
            assert done.status == 200, await done.text()
            body = await done.json()
            assert body["seated"] == {str(i): n for i, n in enumerate(ROSTER[:9] + ["Лёва"], start=1)}
            assert in_words(body["message"])
            assert hub.live.entries[-1].event["type"] == "seating"   # journaled as any input

            drawn = await post(client, "/api/series/seating", {"names": ROSTER[1:], "draw": True}, csrf)
            assert drawn.status == 200
            assert sorted(hub.live.game.state.record.names.values()) == sorted(ROSTER[1:])
            names = hub.live.game.state.record.names
            board = table_state(hub.live, hub.texts)   # what the TV and the overlay draw
            assert {tile["seat"]: tile["name"] for tile in board["seats"]} == names
            host = await (await client.get("/api/state")).json()
            assert {tile["seat"]: tile["name"] for tile in host["seats"]} == names
            await post(client, "/api/input", {"type": "setup", "roles": ROLES}, csrf)
            late = await post(client, "/api/series/seating", {"names": ROSTER[:10], "draw": True}, csrf)
            assert "раздачи" in await refused(late, 409)
            assert sorted(hub.live.game.state.record.names.values()) == sorted(ROSTER[1:])
    run_async(go())


def test_a_newcomer_joins_the_roster_once(tmp_path):
    evening = club(tmp_path)

    async def go():
        async with desk_page(evening) as (client, hub, access, _):
            csrf = (await paired(client, access))["csrf"]
            added = await post(client, "/api/series/newcomer", {"name": "  Мирон  "}, csrf)
            assert added.status == 200 and (await added.json())["roster"][-1] == "Мирон"
            assert Series.open(tmp_path / "series", "vecher").roster[-1] == "Мирон"   # kept on disk at once
            again = await post(client, "/api/series/newcomer", {"name": "мирон"}, csrf)
            assert "Мирон" in await refused(again, 409)
            lyova = await post(client, "/api/series/newcomer", {"name": "Лева"}, csrf)
            assert "Лёва" in await refused(lyova, 409)
            for bad in ({"name": "<script>"}, {"name": ""}, {"name": 5}, {"name": "x" * 41}, {"who": "Аня"}):
                await refused(await post(client, "/api/series/newcomer", bad, csrf), 400)
            assert Series.open(tmp_path / "series", "vecher").roster == [*ROSTER, "Мирон"]
    run_async(go())


def test_protest_and_next_game_only_after_the_end(tmp_path):
    evening = club(tmp_path)

    async def go():
        async with desk_page(evening) as (client, hub, access, calls):
            csrf = (await paired(client, access))["csrf"]
            await post(client, "/api/input", {"type": "setup", "roles": ROLES}, csrf)
            protest = {"team": "red", "votes": 8, "outcome": "changed"}
            early = await post(client, "/api/series/protest", protest, csrf)
            assert "после окончания" in await refused(early, 409)
            assert "Следующая игра" in await refused(await post(client, "/api/series/next", {}, csrf), 409)
            assert calls == [] and hub.live.game.state.record.protest is None
            for seat in REDS_OUT:
                await post(client, "/api/input", {"type": "disqualify", "seat": seat}, csrf)
            assert hub.live.over
            desk = await (await client.get("/api/series")).json()
            assert desk["over"] is True and desk["between"] is True and desk["protest"] is None
            for bad in ({"team": "green", "votes": 8, "outcome": "changed"}, {"team": "red", "votes": 11,
                        "outcome": "changed"}, {"team": "red", "votes": 8, "outcome": "won"}, {"team": "red"}):
                await refused(await post(client, "/api/series/protest", bad, csrf), 400, keywords=True)
            assert calls == []
            done = await post(client, "/api/series/protest", protest, csrf)
            assert done.status == 200 and (await done.json())["protest"] == protest
            assert calls == ["refile"]   # the series follows the protest, as typed /protest does
            assert "уже записан" in await refused(await post(client, "/api/series/protest", protest, csrf), 409)
            nxt = await post(client, "/api/series/next", {}, csrf)
            assert nxt.status == 200 and in_words((await nxt.json())["message"])
            assert calls == ["refile", "new"]
            assert (await post(client, "/api/series/next", {}, csrf)).status == 200   # a second tap while it starts
            assert calls == ["refile", "new"]
    run_async(go())


def test_a_judge_reads_the_desk_but_changes_nothing(tmp_path):
    evening = club(tmp_path)

    async def go():
        async with desk_page(evening) as (client, hub, access, calls):
            state = await paired(client, access)
            link = (await (await post(client, "/api/devices/judge", {}, state["csrf"])).json())["judge_link"]
            client.session.cookie_jar.clear()
            token = judge_token(client, link, access)
            assert (await client.post(f"/pair/{token}", headers={"Origin": client.origin})).status == 200
            desk = await (await client.get("/api/series")).json()
            assert desk["readonly"] is True and desk["roster"] == ROSTER
            for path, body in [("/api/series/seating", {"names": ROSTER[:10], "draw": True}),
                               ("/api/series/newcomer", {"name": "Мирон"}), ("/api/series/next", {}),
                               ("/api/series/protest", {"team": "red", "votes": 8, "outcome": "annulled"})]:
                assert (await post(client, path, body, desk["csrf"])).status == 403, path
            assert hub.live.game.state.record.names == {} and calls == [] and "Мирон" not in evening.series.roster
    run_async(go())


def test_the_next_game_is_served_by_the_same_page(tmp_path):
    evening = club(tmp_path)

    async def go():
        first, second = new_live(), new_live()
        async with desk_page(evening, first) as (client, hub, access, _):
            csrf = (await paired(client, access))["csrf"]
            await post(client, "/api/input", {"type": "setup", "roles": ROLES}, csrf)
            await post(client, "/api/reveal", {"show": True}, csrf)
            assert (await (await client.get("/api/state")).json())["phase_id"] != "setup"
            switch_table(hub, second)
            state = await (await client.get("/api/state")).json()   # the same device, no pairing again
            assert state["phase_id"] == "setup" and state["log"] == []
            assert all("role" not in seat for seat in state["seats"])   # game 2's deal starts empty
            said = hub.said
            first.apply_json({"type": "pause"}) if first.game.phase is not Phase.GAME_OVER else None
            assert hub.said == said   # the old game no longer speaks to the page
            good = await post(client, "/api/series/seating", {"names": ROSTER[:10], "draw": True}, state["csrf"])
            assert good.status == 200 and second.game.state.record.names and not first.game.state.record.names
            dealt = await (await post(client, "/api/deal", {}, state["csrf"])).json()   # or at random
            assert dealt["deal"] == {str(s): r.value for s, r in second.game.roles.items()}
    run_async(go())


class Phone:
    """A paired phone as secure.js is: its cookie and its key, every request proven."""

    def __init__(self, base: str) -> None:
        self.base, self.key, self.n = base, b"", 0
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def pair(self, access: Access) -> None:
        token, self.key = access.token, access.link_key
        answer = await self.http.post(f"{self.base}/pair/{token}", headers={"Origin": self.base})
        assert answer.status == 200, await answer.text()

    async def get(self, path: str) -> aiohttp.ClientResponse:
        epoch = (await (await self.http.get(f"{self.base}/api/epoch")).json())["epoch"]
        self.n += 1
        proof = f"{epoch}.{self.n}.{proof_mac(self.key, epoch, self.n, 'GET', path, b'')}"
        return await self.http.get(f"{self.base}{path}", headers={PROOF_HEADER: proof})


def test_one_page_server_all_evening_and_a_restart_keeps_the_phone(tmp_path):
    from voicehost.config import load_settings

    evening = club(tmp_path)
    evening.journals.mkdir()
    config, _ = load_settings(None)
    lines: asyncio.Queue = asyncio.Queue()

    async def go():
        out = io.StringIO()
        page = EveningPage(evening, config, lan=False, port=0, out=out, lines=lines)
        first = new_live(journal=evening.journals / "game-001.jsonl")
        refiled: list[str] = []
        server = await page.attach(first, lambda: refiled.append("refile"))
        phone = Phone(server.url)
        try:
            await phone.pair(server.access)
            assert (await phone.get("/api/state")).status == 200
            first.apply_json({"type": "setup", "roles": ROLES})
            for seat in REDS_OUT:
                first.apply_json({"type": "disqualify", "seat": seat})
            first.apply_json({"type": "protest", "team": "red", "votes": 8, "outcome": "annulled"})
            # The protest taken back: the series must hold the game without it.
            await asyncio.wait_for(first.undo_async(), 10)
            await async_wait_for(lambda: bool(refiled))
            assert refiled == ["refile"] and first.game.state.record.protest is None
            devices = evening.series.folder / "evening.devices"
            assert devices.is_file() and not (evening.journals / "game-001.jsonl.devices").exists()
            page.desk.next_game()
            assert lines.get_nowait() == "/new"   # "Следующая игра" is the host typing /new

            second = new_live(journal=evening.journals / "game-002.jsonl")
            assert await page.attach(second, lambda: None) is server   # the same server for the next game
            second.apply_json({"type": "setup", "roles": ROLES})
            state = await (await phone.get("/api/state")).json()
            assert state["phase_id"] != "setup" and out.getvalue().count("Страница ведущего") == 1
            await page.close()

            # a crash, and `run --series` again: a new server, the same devices file
            again = EveningPage(evening, config, lan=False, port=0, out=io.StringIO(), lines=lines)
            third = new_live(journal=evening.journals / "game-003.jsonl")
            restarted = await again.attach(third, lambda: None)
            phone.base = restarted.url
            response = await phone.get("/api/series")
            assert response.status == 200, await response.text()   # still paired: no link, no PIN
            assert (await response.json())["name"] == "vecher"
            await again.close()
        finally:
            await phone.http.close()
            await page.close()

    run_async(go())


def test_an_earlier_evenings_devices_are_forgotten(tmp_path):
    keep = tmp_path / "evening"
    devices = tmp_path / "evening.devices"
    devices.write_text("{}", "utf-8")
    fresh_evening(keep, time.time())
    assert devices.exists()   # tonight's: kept across a crash
    old = time.time() - EVENING_HOURS * 3600 - 60
    os.utime(devices, (old, old))
    fresh_evening(keep, time.time())
    assert not devices.exists()
    fresh_evening(keep, time.time())   # nothing to forget: no error


def test_tonights_game_never_takes_the_name_of_a_game_already_in_the_series(tmp_path):
    """A series fed by `series add game-001.protocol.json` from another table: the
    evening's first journal must not be game-001, or filing it would replace that game."""
    evening = club(tmp_path, games=2)   # game-001 and game-002 came from elsewhere
    journal, resume = evening.next_journal()
    assert not resume and journal.stem not in {p.stem for p in evening.series.game_files()}
    assert journal.name == "game-003.jsonl"


def test_every_host_input_names_itself_on_the_undo_button_in_both_languages():
    """The page's undo button says what it takes back: a protest or a seating too."""
    from voicehost.game.events import HOST_INPUTS
    from voicehost.web.texts import load_web_texts

    for book in ("phrasebook.ru", "phrasebook.uk"):
        words = load_web_texts(book)
        missing = sorted(kind for kind in HOST_INPUTS if f"input_{kind}" not in words)
        assert missing == [], (book, missing)


def test_a_table_without_a_series_answers_204_and_the_page_asks_no_more():
    from tests.webparts import page

    async def go():
        async with page() as (client, live, access):
            assert (await client.get("/api/table/series")).status == 204
            csrf = (await paired(client, access))["csrf"]
            assert (await client.get("/api/series")).status == 204
            assert (await post(client, "/api/series/next", {}, csrf)).status == 204
            assert live.game.phase is not Phase.SETUP   # nothing else changed
    run_async(go())


def test_the_ukrainian_table_reads_its_standings_in_ukrainian(tmp_path):
    evening = club(tmp_path, ruleset="ua-club", games=1)

    async def go():
        async with desk_page(evening, new_live("ua-club")) as (client, hub, access, _):
            words = await (await client.get("/api/texts")).json()
            assert words["series_caption"] == "Таблиця серії «{name}», ігор: {count}"
            assert words["series_col_coefficient"] == "Коеф." and words["series_by_lot"] == "жереб"
            data = await (await client.get("/api/table/series")).json()
            assert data["count"] == 1 and len(data["rows"]) == 10
    run_async(go())


def test_the_tv_reads_the_standings_over_plain_http_on_the_lan():
    from voicehost.web.guard import _plain

    assert _plain("/api/table/series") and not _plain("/api/series") and not _plain("/api/series/next")


def test_a_crash_and_run_series_again_keep_the_phone_paired(tmp_path):
    """The real program: `run --text --serve --series`, a phone paired, SIGKILL in the
    middle of a game, the same command again: the phone's next request is answered."""
    import signal
    import subprocess
    import sys

    from tests.browserparts import free_port

    Series.create(tmp_path / "series", "vecher", ROSTER, "4mafia")
    (tmp_path / "config.toml").write_text(f'series_dir = "{tmp_path / "series"}"\n', "utf-8")

    def start(log_name: str) -> tuple[subprocess.Popen, str, str]:
        port = free_port()
        log = tmp_path / log_name
        proc = subprocess.Popen([sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--serve", "--port",
                                 str(port), "--series", "vecher", "--config", str(tmp_path / "config.toml")],
                                cwd=tmp_path, stdin=subprocess.PIPE, stdout=log.open("w"), stderr=subprocess.STDOUT,
                                text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = re.search(r"Страница ведущего: (\S+)", log.read_text("utf-8"))
            if found:
                return proc, found.group(1), f"http://127.0.0.1:{port}"
            time.sleep(0.1)
        proc.kill()
        raise AssertionError(log.read_text("utf-8"))

    async def pair(url: str, base: str) -> Phone:
        phone = Phone(base)
        path, _, fragment = url.partition("#")
        from voicehost.web.devices import unb64

        phone.key = unb64(fragment)
        answer = await phone.http.post(path, headers={"Origin": base})
        assert answer.status == 200, await answer.text()
        return phone

    first, url, base = start("first.log")
    try:
        async def before() -> tuple[dict, dict, bytes]:
            phone = await pair(url, base)   # paired during the evening's first game
            try:
                first.stdin.write("/seating " + ", ".join(ROSTER[:10]) + "\n/roles d4 m2 m7 s6\n"
                                  + "".join(f"/dq {seat}\n" for seat in REDS_OUT) + "-\n-\n/new\n"
                                  + "/seating " + ", ".join(ROSTER[1:]) + "\n/roles d4 m2 m7 s6\n")
                first.stdin.flush()
                for _ in range(300):   # the second game, dealt: the same phone, the same server
                    response = await phone.get("/api/series")
                    assert response.status == 200, await response.text()
                    desk = await response.json()
                    if desk["count"] == 1 and desk["phase_id"] != "setup" and not desk["over"]:
                        break
                    await asyncio.sleep(0.1)
                else:
                    raise AssertionError(desk)
                cookies = phone.http.cookie_jar.filter_cookies(URL(base))
                return desk, {k: v.value for k, v in cookies.items()}, phone.key
            finally:
                await phone.http.close()

        desk, cookies, key = run_async(before())
        assert sorted(desk["seated"].values()) == sorted(ROSTER[1:])
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
    second, _, base2 = start("second.log")
    try:
        async def after() -> dict:
            again = Phone(base2)
            again.key = key
            again.http.cookie_jar.update_cookies(cookies)
            try:
                response = await again.get("/api/series")
                assert response.status == 200, await response.text()   # no link, no PIN: still paired
                return await response.json()
            finally:
                await again.http.close()

        resumed = run_async(after())
        assert resumed["seated"] == desk["seated"] and resumed["phase_id"] != "setup"   # the same game goes on
        assert "Игра продолжена по журналу" in (tmp_path / "second.log").read_text("utf-8")
    finally:
        second.kill()
        second.wait(timeout=10)


def test_the_seated_names_reach_every_tile_and_an_undo_in_the_game_keeps_them(tmp_path):
    """Issue 32: after a seating by lot the host page, the TV board and the
    overlay read the names; the undo button never offers the seating once the
    roles are dealt, and an undo with nothing left says why."""
    evening = club(tmp_path)

    async def go():
        async with desk_page(evening) as (client, hub, access, _):
            state = await paired(client, access)
            csrf = state["csrf"]
            seated = await post(client, "/api/series/seating", {"names": ROSTER[:10], "draw": True}, csrf)
            assert seated.status == 200
            names = {str(s): n for s, n in hub.live.game.state.record.names.items()}
            await post(client, "/api/input", {"type": "setup", "roles": ROLES}, csrf)
            host = await (await client.get("/api/state")).json()
            table = await (await client.get("/api/table")).json()
            hub.overlay_delay = 0
            hub.record_overlay()
            overlay = json.loads(hub.overlay_view())
            for view in (host, table, overlay):
                assert {str(s["seat"]): s["name"] for s in view["seats"]} == names
            assert table["names"] == names
            assert host["last_input"] is None               # the seating is out of an undo's reach
            nothing = await post(client, "/api/undo", {}, csrf)
            assert "рассадка" in await refused(nothing, 409)
            assert {str(s): n for s, n in hub.live.game.state.record.names.items()} == names
    run_async(go())


def test_a_name_the_roster_lacks_is_refused_with_the_nearest_offered_unless_marked_new(tmp_path):
    """Issue 32: «Алса» in a seating silently became a new player of the roster
    and the standings. Now it is refused with the nearest roster name offered;
    a newcomer is marked "+Лев" (typed) or added first (the page's newcomer)."""
    evening = club(tmp_path)
    present = ROSTER[1:10]
    with pytest.raises(InputError) as slip:
        evening.seating(["Алса", *present], False, 10)
    assert str(slip.value) == "Нет в составе: Алса. Может быть, Алиса? Новый игрок — со знаком «+»: +Алса"
    with pytest.raises(InputError) as far:
        evening.seating(["Щукин", *present], False, 10)
    assert str(far.value) == "Нет в составе: Щукин. Новый игрок — со знаком «+»: +Щукин"
    event = evening.seating(["+Лев", *present], False, 10)
    assert event["names"]["1"] == "Лев" and evening.series.find("Лев") is None   # joins when the game is filed
    assert evening.seating(["+алиса", *present], False, 10)["names"]["1"] == "Алиса"   # the roster's spelling
    uk = Evening(evening.series, live_texts(rules_for("ua-club").phrasebook))
    with pytest.raises(InputError) as ukrainian:
        uk.seating(["Алса", *present], False, 10)
    assert str(ukrainian.value).startswith("Немає в складі: Алса. Може, Алиса?")

    async def go():
        async with desk_page(evening) as (client, hub, access, _):
            csrf = (await paired(client, access))["csrf"]
            refusal = await post(client, "/api/series/seating", {"names": ["Алса", *present], "draw": True}, csrf)
            assert "Может быть, Алиса?" in await refused(refusal, 400)
            assert hub.live.game.state.record.names == {} and "Алса" not in evening.series.roster
    run_async(go())


def test_a_seat_named_on_the_page_in_a_series_is_the_rosters_name(tmp_path):
    """The page's seat names go by the roster as its seating does: a slip is
    refused with the nearest roster name and changes nothing; a roster name
    takes the roster's spelling. Without a series any name is taken."""
    evening = club(tmp_path)

    async def go():
        async with desk_page(evening) as (client, hub, access, _):
            csrf = (await paired(client, access))["csrf"]
            slip = await post(client, "/api/input", {"type": "names", "names": {"3": "Алса"}}, csrf)
            assert await refused(slip, 400) == ("Нет в составе: Алса. Может быть, Алиса? Нового игрока сначала "
                                                 "добавьте в состав: «Новый игрок»")
            assert hub.live.game.state.record.names == {}
            taken = await post(client, "/api/input", {"type": "names", "names": {"3": "лёва", "4": ""}}, csrf)
            assert taken.status == 200, await taken.text()
            assert hub.live.game.state.record.names == {3: "Лёва"}
    run_async(go())
