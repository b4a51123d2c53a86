"""Paired devices outlive a restart (signed cookies, key beside the journal,
0600); the host can revoke a device and pair a read-only judge; the LAN address
is found from the interfaces when the hostname says 127.0.1.1."""
from __future__ import annotations

import asyncio
import io
import stat

from aiohttp.test_utils import TestServer

from tests.conftest import ROLES, run_async
from tests.webparts import in_words, judge_token, page, paired, signing_client
from voicehost.game.moderator import Moderator
from voicehost.journal import Table
from voicehost.live import AudioClock, LiveTable
from voicehost.rules import rules_for
from voicehost.web.access import COOKIE, Access, allowed_hosts
from voicehost.web.devices import Devices, devices_file
from voicehost.web.lan import lan_address, local_names
from voicehost.web.server import Hub, make_app


async def _served(devices: Devices):
    live = LiveTable(Table(Moderator.for_rules(rules_for("4mafia"))), AudioClock())
    live.apply_json({"type": "setup", "roles": ROLES})
    access = Access(set(), devices)
    hub = Hub(live, asyncio.get_running_loop())
    app = make_app(live, access, hub, io.StringIO(), lambda: f"/pair/{access.token}")
    client = signing_client(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    access.hosts = allowed_hosts("127.0.0.1", client.server.port)
    client.origin = f"http://127.0.0.1:{client.server.port}"
    return client, access


def test_a_paired_device_stays_paired_after_a_restart(tmp_path):
    journal = tmp_path / "game.jsonl"
    path = devices_file(journal)

    async def go():
        first, access = await _served(Devices(path))
        state = await paired(first, access)
        cookie = first.session.cookie_jar.filter_cookies(first.make_url("/"))[COOKIE].value
        await first.close()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert access.devices.key.hex() in path.read_text()

        # The same game resumed: a new process, a new PIN, the same key file.
        second, access2 = await _served(Devices(path))
        assert access2.pin is not None and access2.token != access.token
        second.vh.update(key=first.vh["key"])   # the page's key, kept in its storage; a new epoch
        second.session.cookie_jar.update_cookies({COOKIE: cookie})
        again = await (await second.get("/api/state")).json()
        assert again["csrf"] == state["csrf"] and again["readonly"] is False
        foul = await second.post("/api/input", json={"type": "foul", "seat": 1},
                                 headers={"Origin": second.origin, "X-CSRF-Token": again["csrf"]})
        assert foul.status == 200
        await second.close()

        # A forged or foreign-key cookie is not a session.
        third, _ = await _served(Devices(tmp_path / "other.devices"))
        third.vh.update(key=first.vh["key"])
        third.session.cookie_jar.update_cookies({COOKIE: cookie})
        refused = await third.get("/api/state")
        assert refused.status == 401 and in_words((await refused.json())["error"])
        third.session.cookie_jar.update_cookies({COOKIE: "1.forged"})
        assert (await third.get("/api/state")).status == 401
        await third.close()
    run_async(go())


def test_host_revokes_a_device_and_its_live_channel_closes():
    async def go():
        async with page() as (client, live, access):
            await paired(client, access)
            ws = await client.ws_connect("/api/ws", headers={"Origin": client.origin})
            await asyncio.wait_for(ws.receive_str(), 5)
            laptop = signing_client(client.server)
            await laptop.start_server()
            laptop.origin = client.origin
            state = await paired(laptop, access, approver=client)
            assert [d["id"] for d in state["devices"]] == ["1", "2"] and state["devices"][1]["current"]
            revoked = await laptop.post("/api/devices/1/revoke", json={},
                                        headers={"Origin": client.origin, "X-CSRF-Token": state["csrf"]})
            body = await revoked.json()
            assert revoked.status == 200 and body["message"] == "Устройство 1 отключено"
            assert [d["id"] for d in body["devices"]] == ["2"]
            deadline = asyncio.get_running_loop().time() + 5
            closed = await asyncio.wait_for(ws.receive(), 5)
            while closed.type.name == "TEXT" and asyncio.get_running_loop().time() < deadline:
                closed = await asyncio.wait_for(ws.receive(), 5)
            assert ws.close_code == 4401
            assert (await client.get("/api/state")).status == 401
            await laptop.close()
    run_async(go())


def test_judge_link_gives_a_read_only_paired_view():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            made = await client.post("/api/devices/judge", json={},
                                     headers={"Origin": client.origin, "X-CSRF-Token": state["csrf"]})
            link = (await made.json())["judge_link"]
            assert link.startswith("/pair/") or link.startswith("http://")
            token = judge_token(client, link, access)
            client.session.cookie_jar.clear()
            judged = await client.post(f"/pair/{token}", headers={"Origin": client.origin})
            assert judged.status == 200
            view = await (await client.get("/api/state")).json()
            assert view["readonly"] is True and view["devices"] == []
            for path, body in [("/api/input", {"type": "foul", "seat": 1}), ("/api/undo", {}),
                               ("/api/reveal", {"show": True}), ("/api/devices/1/revoke", {})]:
                refused = await client.post(path, json=body, headers={"Origin": client.origin,
                                                                      "X-CSRF-Token": view["csrf"]})
                assert refused.status == 403, path
                assert (await refused.json())["error"] == "Это устройство только для просмотра"
            assert live.game.fouls[1] == 0
            # The judge token is one-time too.
            client.session.cookie_jar.clear()
            assert (await client.post(f"/pair/{token}", headers={"Origin": client.origin})).status == 401
    run_async(go())


def test_lan_address_skips_127_0_1_1_and_uses_the_interfaces():
    # Stock Debian / Raspberry Pi OS: the hostname resolves to 127.0.1.1.
    found = lan_address(hostname=lambda: "raspberrypi", lookup=lambda name: ["127.0.1.1"],
                        route=lambda: [], interfaces=lambda: ["127.0.0.1", "192.168.1.23"])
    assert found == "192.168.1.23"
    # The route's source address counts too; a private address wins over a public one.
    assert lan_address(hostname=lambda: "pi", lookup=lambda name: ["127.0.1.1", "93.184.216.34"],
                       route=lambda: ["10.77.0.1"], interfaces=lambda: []) == "10.77.0.1"
    # No network at all: still served on this machine.
    assert lan_address(hostname=lambda: "pi", lookup=lambda name: [], route=lambda: [],
                       interfaces=lambda: ["127.0.0.1"]) == "127.0.0.1"
    names = local_names(hostname=lambda: "raspberrypi", interfaces=lambda: ["127.0.0.1", "192.168.1.23"],
                        route=lambda: ["192.168.1.23"])
    assert {"192.168.1.23", "raspberrypi", "raspberrypi.local", "127.0.1.1"} <= set(names)
    hosts = allowed_hosts("0.0.0.0", 8765, names)
    assert "raspberrypi.local:8765" in hosts and "192.168.1.23:8765" in hosts and "0.0.0.0:8765" not in hosts


def test_the_table_view_shows_the_winner_at_the_end():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            for _ in range(4):
                for seat in (2, 4, 7):
                    await client.post("/api/input", json={"type": "foul", "seat": seat},
                                      headers={"Origin": client.origin, "X-CSRF-Token": state["csrf"]})
            table = await (await client.get("/api/table")).json()
            assert table["over"] and table["winner"] == live.game.result_text() and table["winner"]
    run_async(go())


def test_the_link_pairs_but_without_its_fragment_key_the_cookie_does_nothing():
    """S1: the key is the link's #fragment, which no request carries: whoever spends a
    sniffed link (or steals the cookie) holds a cookie that neither reads nor acts."""
    async def go():
        async with page() as (client, live, access):
            landing = await client.get(f"/pair/{access.token}")
            assert 'method="post"' in await landing.text()
            posted = await client.post(f"/pair/{access.token}", json={}, headers={"Origin": client.origin})
            assert posted.status == 200 and COOKIE in posted.headers["Set-Cookie"]
            for path in ("/api/state", "/api/protocol.csv", "/api/protocol.json"):
                refused = await client.get(path)
                assert refused.status == 401 and in_words((await refused.json())["error"]), path
            csrf = access.devices.sign("csrf", "1")
            act = await client.post("/api/input", json={"type": "foul", "seat": 1},
                                    headers={"Origin": client.origin, "X-CSRF-Token": csrf})
            assert act.status == 401 and live.game.fouls[1] == 0
            assert (await client.get("/api/ws", headers={"Origin": client.origin})).status == 401
    run_async(go())


def test_an_unwritable_place_keeps_devices_in_memory(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    devices = Devices(blocker / "game.jsonl.devices")  # even root cannot create a file under a file
    assert devices.path is None
    assert devices.add("host", "pin") == "1" and "1" in devices.paired


def test_port_0_serves_on_a_free_port_and_names_it_everywhere(tmp_path):
    """[web] port = 0 (or --port 0): the system picks a free port; the links
    printed and the allowed Host both name that port, so the page answers."""
    import aiohttp

    from voicehost.config import Config
    from voicehost.live.table import open_table
    from voicehost.web.server import start_server

    async def go():
        game, writer, entries, _ = open_table(rules_for("4mafia"), tmp_path / "j.jsonl", resume=False)
        live = LiveTable(game, AudioClock(), journal=writer, entries=entries)
        out = io.StringIO()
        server = await start_server(live, Config(), port=0, out=out)
        try:
            port = int(server.url.rsplit(":", 1)[1])
            assert port != 0 and f"127.0.0.1:{port}/table" in out.getvalue()
            async with aiohttp.ClientSession() as session:
                async with session.get(f"{server.url}/table") as answer:
                    assert answer.status == 200
        finally:
            await server.cleanup()
            writer.close()

    run_async(go())
