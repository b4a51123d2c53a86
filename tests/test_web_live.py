"""The page over the live runtime: undo rebuilds off the loop, an input is
answered only once it is on disk, a journal that cannot be written stops the
table loudly, the rating platforms' records download from the host page, and
the host names the players."""
from __future__ import annotations

import asyncio
import contextlib
import io
import json
import threading
import time
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from tests.conftest import ROLES, run_async
from tests.webparts import judge_token, paired, post, signing_client
from voicehost.cli import main
from voicehost.game.model import Phase
from voicehost.game.moderator import Moderator
from voicehost.journal import Journal, Table, replay_entries
from voicehost.live import AudioClock, JournalWriter, LiveTable
from voicehost.rules import rules_for
from voicehost.web.access import Access, allowed_hosts
from voicehost.web.server import Hub, make_app

ROOT = Path(__file__).resolve().parent.parent
STOPPED = "Ввод не принимается: журнал не записывается, игра остановлена"


@contextlib.asynccontextmanager
async def serve(live: LiveTable):
    live.bind(asyncio.get_running_loop())
    access = Access(set())
    hub = Hub(live, asyncio.get_running_loop())
    app = make_app(live, access, hub, io.StringIO(), lambda: f"/pair/{access.token}")
    server = TestServer(app, host="127.0.0.1")
    client = signing_client(server)
    await client.start_server()
    access.hosts = allowed_hosts("127.0.0.1", server.port)
    client.origin = f"http://127.0.0.1:{server.port}"
    try:
        yield client, access, hub
    finally:
        await client.close()
        if live.journal is not None:
            live.journal.close()


def _table(preset: str = "4mafia", setup: bool = True) -> LiveTable:
    live = LiveTable(Table(Moderator.for_rules(rules_for(preset))), AudioClock())
    if setup:
        live.apply_json({"type": "setup", "roles": ROLES})
    return live


def _journaled(path: Path) -> LiveTable:
    rules = rules_for("4mafia")
    return LiveTable(Moderator.for_rules(rules), AudioClock(), journal=JournalWriter(path, rules))


def _finished(tmp_path: Path) -> LiveTable:
    """A sports game played to its end (black wins at parity), as its journal holds it."""
    journal = tmp_path / "game.jsonl"
    script = ROOT / "tests" / "games" / "black_wins_parity.jsonl"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["simulate", str(script), "--journal", str(journal)]) == 0
    game, _, entries = replay_entries(journal)
    assert game.phase is Phase.GAME_OVER
    return LiveTable(Table(game, None, entries), AudioClock())


def _events(path: Path) -> list[dict]:
    """The inputs a journal holds on disk now."""
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return [line["event"] for line in lines if "event" in line]


# ------------------------------------------------------------ undo and the disk


def test_undo_rebuilds_off_the_loop_and_the_page_stays_answering(monkeypatch):
    import voicehost.live.table as live_table

    real = live_table.rebuild
    started = threading.Event()

    def slow_rebuild(rules, kept):
        started.set()
        time.sleep(0.6)
        return real(rules, kept)

    monkeypatch.setattr(live_table, "rebuild", slow_rebuild)

    async def go():
        live = _table()
        async with serve(live) as (client, access, hub):
            csrf = (await paired(client, access))["csrf"]
            assert (await post(client, "/api/input", {"type": "foul", "seat": 2}, csrf)).status == 200
            undo = asyncio.create_task(post(client, "/api/undo", {}, csrf))
            assert await asyncio.wait_for(asyncio.to_thread(started.wait, 5), 6)
            begun = time.monotonic()
            # While the game is rebuilt, the page answers, and a second host input waits its turn.
            table = await asyncio.wait_for(client.get("/api/table"), 5)
            assert table.status == 200 and time.monotonic() - begun < 0.5
            busy = await asyncio.wait_for(post(client, "/api/input", {"type": "foul", "seat": 3}, csrf), 5)
            body = await busy.json()
            assert busy.status == 409 and body["error"] and "Traceback" not in body["error"]
            assert live.game.fouls[3] == 0
            done = await asyncio.wait_for(undo, 10)
            assert done.status == 200 and (await done.json())["message"] == "Отменено: фол игроку 2"
            assert live.game.fouls[2] == 0 and not live.undoing
    run_async(go())


def test_an_input_is_answered_only_once_it_is_on_disk(tmp_path, monkeypatch):
    real = Journal.write_entry

    def slow_write(self, t, event):
        time.sleep(0.3)
        real(self, t, event)

    monkeypatch.setattr(Journal, "write_entry", slow_write)
    path = tmp_path / "game.jsonl"

    async def go():
        live = _journaled(path)
        async with serve(live) as (client, access, hub):
            csrf = (await paired(client, access))["csrf"]
            answer = await asyncio.wait_for(post(client, "/api/input", {"type": "setup", "roles": ROLES}, csrf), 10)
            assert answer.status == 200
            assert any(e["type"] == "setup" for e in _events(path))  # already on disk
            answer = await asyncio.wait_for(post(client, "/api/input", {"type": "foul", "seat": 5}, csrf), 10)
            assert answer.status == 200 and any(e["type"] == "foul" for e in _events(path))
            undo = await asyncio.wait_for(post(client, "/api/undo", {}, csrf), 10)
            assert undo.status == 200 and _events(path)[-1]["type"] == "undo"
    run_async(go())


def test_a_journal_that_cannot_be_written_stops_the_table_loudly(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the journal's folder should be")

    async def go():
        live = _journaled(blocker / "game.jsonl")
        async with serve(live) as (client, access, hub):
            csrf = (await paired(client, access))["csrf"]
            first = await asyncio.wait_for(post(client, "/api/input", {"type": "setup", "roles": ROLES}, csrf), 10)
            body = await first.json()
            assert first.status == 409 and body == {"error": STOPPED, "stopped": True}
            state = await (await client.get("/api/state")).json()
            assert state["failure"].startswith("ВНИМАНИЕ: журнал не записывается")
            for path, data in (("/api/input", {"type": "pause"}), ("/api/input", {"type": "foul", "seat": 1}),
                               ("/api/undo", {})):
                again = await asyncio.wait_for(post(client, path, data, csrf), 10)
                assert again.status == 409 and (await again.json())["error"] == STOPPED, path
            assert hub.unexpected == 0
    run_async(go())


# ------------------------------------------------------------ rating-platform records


def test_the_host_downloads_both_rating_platform_records(tmp_path):
    async def go():
        live = _finished(tmp_path)
        async with serve(live) as (client, access, hub):
            for fmt in ("mafiaratings", "polemica"):
                assert (await client.get(f"/api/export.{fmt}")).status == 401  # paired devices only
            csrf = (await paired(client, access))["csrf"]
            named = await post(client, "/api/input", {"type": "names", "names": {"3": "Алиса", "10": "Вера"}}, csrf)
            assert named.status == 200
            for fmt in ("mafiaratings", "polemica"):
                response = await client.get(f"/api/export.{fmt}")
                assert response.status == 200, await response.text()
                assert f'filename="game.{fmt}.json"' in response.headers["Content-Disposition"]
                text = await response.text()
                record = json.loads(text)
                assert isinstance(record, dict) and "Алиса" in text and "Вера" in text
            assert (await client.get("/api/export.csv")).status == 404
    run_async(go())


@pytest.mark.parametrize(("preset", "text"), [
    ("4mafia", "Игра ещё не окончена: выгрузка будет после её конца"),
    ("city", "Городскую мафию нельзя выгрузить: рейтинговые платформы ведут только спортивную мафию"),
])
def test_an_export_the_platforms_cannot_take_is_a_409_in_the_tables_words(preset, text):
    async def go():
        live = _table(preset, setup=False)
        async with serve(live) as (client, access, hub):
            await paired(client, access)
            for fmt in ("mafiaratings", "polemica"):
                response = await client.get(f"/api/export.{fmt}")
                assert response.status == 409 and (await response.json()) == {"error": text}
    run_async(go())


def test_the_host_page_offers_both_records_next_to_the_protocol():
    async def go():
        async with serve(_table()) as (client, access, hub):
            await paired(client, access)
            page = await (await client.get("/")).text()
            protocol = page.index('href="/api/protocol.csv"')
            for fmt, label in (("mafiaratings", "Скачать для mafiaratings"), ("polemica", "Скачать для Polemica")):
                at = page.index(f'href="/api/export.{fmt}" download>{label}</a>')
                assert 0 < at - protocol < 300
    run_async(go())


# ------------------------------------------------------------ players' names


def test_the_host_names_players_on_the_page_and_everyone_sees_the_names():
    async def go():
        live = _table(setup=False)
        async with serve(live) as (client, access, hub):
            csrf = (await paired(client, access))["csrf"]
            # Names are taken even before the deal, and go into the accepted inputs (the journal).
            answer = await post(client, "/api/input", {"type": "names", "names": {"3": "  Алиса "}}, csrf)
            assert answer.status == 200
            seats = {s["seat"]: s for s in (await answer.json())["seats"]}
            assert seats[3]["name"] == "Алиса" and seats[4]["name"] == ""
            assert live.entries[-1].event == {"type": "names", "names": {"3": "Алиса"}}
            assert (await post(client, "/api/input", {"type": "setup", "roles": ROLES}, csrf)).status == 200
            table = await (await client.get("/api/table")).json()
            assert table["names"] == {"3": "Алиса"}
            # An empty name takes it back; undo never takes a name back (not a game input).
            answer = await post(client, "/api/input", {"type": "names", "names": {"3": "", "7": "Вера"}}, csrf)
            seats = {s["seat"]: s for s in (await answer.json())["seats"]}
            assert seats[3]["name"] == "" and seats[7]["name"] == "Вера"
            assert (await (await client.get("/api/table")).json())["names"] == {"7": "Вера"}
    run_async(go())


@pytest.mark.parametrize(("names", "error"), [
    ({"11": "Алиса"}, "Нужен номер игрока от 1 до 10, а не «11»"),
    ({"3": 5}, "Имя — одна строка не длиннее 40 знаков, а не «5»"),
    ({"3": "две\nстроки"}, "Имя — одна строка не длиннее 40 знаков, а не «две\nстроки»"),
    ({"3": "я" * 41}, "Имя — одна строка не длиннее 40 знаков, а не «яяяяяяяяяяяя…»"),
    ({}, "Имена — это номера мест и имена"),
    ([], "Имена — это номера мест и имена"),
])
def test_a_bad_name_is_one_clear_line_and_changes_nothing(names, error):
    async def go():
        live = _table()
        async with serve(live) as (client, access, hub):
            csrf = (await paired(client, access))["csrf"]
            before = list(live.entries)
            answer = await post(client, "/api/input", {"type": "names", "names": names}, csrf)
            assert answer.status == 400
            assert (await answer.json())["error"] == " ".join(error.split())
            assert live.entries == before and hub.unexpected == 0
    run_async(go())


def test_a_judge_cannot_name_players():
    async def go():
        live = _table()
        async with serve(live) as (client, access, hub):
            csrf = (await paired(client, access))["csrf"]
            link = (await (await post(client, "/api/devices/judge", {}, csrf)).json())["judge_link"]
            client.session.cookie_jar.clear()
            token = judge_token(client, link, access)
            assert (await client.post(f"/pair/{token}", headers={"Origin": client.origin})).status == 200
            judge = await (await client.get("/api/state")).json()
            answer = await post(client, "/api/input", {"type": "names", "names": {"1": "Алиса"}}, judge["csrf"])
            assert answer.status == 403 and not any(e.event.get("type") == "names" for e in live.entries)
    run_async(go())
