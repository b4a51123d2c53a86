"""Issue 18's secrets and access findings, one test each: a pairing nobody can
reuse (S3), a PIN limit no address churn escapes (S4), a judge that never reads
a role (S5), proofs a captured cookie or request cannot forge or replay (S1),
bounded work per request and per connection (H1, H2), the TV's own live
channel and aiohttp's own refusals in the table's words (H3), and the LAN's
HTTPS with the table's own certificate, plain HTTP keeping only the board (S1)."""
from __future__ import annotations

import asyncio
import io
import json
import ssl
import stat

import aiohttp
from aiohttp import web

from tests.conftest import run_async, until
from tests.webparts import SECRETS, in_words, judge_token, page, paired, pin_request, post, signing_client
from voicehost.game.model import Phase
from voicehost.web import hub as hub_module
from voicehost.web.access import (
    CLIENTS_REMEMBERED,
    LONG_PIN_DIGITS,
    PIN_TRIES_IN_ALL,
    PROOF_HEADER,
    Access,
    allowed_hosts,
)
from voicehost.web.devices import Devices, proof_mac
from voicehost.web.gate import Gate, GatedSite
from voicehost.web.texts import TEXTS_KEY


async def _second(client):
    other = signing_client(client.server)
    await other.start_server()
    other.origin = client.origin
    return other


# ----------------------------------------------------------------- S3


def test_a_pin_pairs_one_device_then_later_ones_wait_for_a_hosts_approval():
    async def go():
        async with page() as (client, live, access):
            pin, token = access.pin, access.token
            response, key = await pin_request(client, pin)
            assert response.status == 200 and key is not None
            state = await (await client.get("/api/state")).json()
            assert state["readonly"] is False and state["pending"] == []
            # Both the PIN and the link were used up by that one pairing.
            assert access.pin != pin and access.token != token
            intruder = await _second(client)
            spent, _ = await pin_request(intruder, pin)
            assert spent.status == 401 and in_words((await spent.json())["error"])
            old_link = await intruder.post(f"/pair/{token}", json={}, headers={"Origin": client.origin})
            assert old_link.status == 401
            # The new PIN only puts a device in the queue; it holds nothing until a host says yes.
            waiting, their_key = await pin_request(intruder, access.pin)
            body = await waiting.json()
            assert waiting.status == 202 and "Set-Cookie" not in waiting.headers and len(body["code"]) == 4
            intruder.vh.update(key=their_key, epoch=access.epoch)
            assert (await intruder.get(f"/pair/wait/{body['pending']}")).status == 202
            assert (await intruder.get("/api/state")).status == 401
            host_view = await (await client.get("/api/state")).json()
            assert [p["code"] for p in host_view["pending"]] == [body["code"]]
            # A wait without the device's own key is refused too.
            stranger = await _second(client)
            assert (await stranger.get(f"/pair/wait/{body['pending']}")).status == 401
            # The host refuses: the device is turned away for good.
            refused = await post(client, f"/api/devices/pending/{body['pending']}/refuse", {}, host_view["csrf"])
            assert refused.status == 200 and (await refused.json())["pending"] == []
            turned = await intruder.get(f"/pair/wait/{body['pending']}")
            assert turned.status == 401 and in_words((await turned.json())["error"])
            assert len(access.devices.paired) == 1
            # The next device (the new link) is approved and pairs.
            laptop = await _second(client)
            state = await paired(laptop, access, approver=client)
            assert state["readonly"] is False and len(access.devices.paired) == 2
            for other in (intruder, stranger, laptop):
                await other.close()
    run_async(go())


def test_a_judge_cannot_approve_a_waiting_device():
    async def go():
        async with page() as (client, live, access):
            csrf = (await paired(client, access))["csrf"]
            link = (await (await post(client, "/api/devices/judge", {}, csrf)).json())["judge_link"]
            judge = await _second(client)
            assert (await judge.post(f"/pair/{judge_token(judge, link, access)}", json={},
                                     headers={"Origin": client.origin})).status == 200
            phone = await _second(client)
            waiting, _ = await pin_request(phone, access.pin)
            ident = (await waiting.json())["pending"]
            view = await (await judge.get("/api/state")).json()
            assert view["pending"] == []
            tried = await post(judge, f"/api/devices/pending/{ident}/approve", {}, view["csrf"])
            assert tried.status == 403 and access.pending[ident].cookie is None
            await judge.close()
            await phone.close()
    run_async(go())


# ----------------------------------------------------------------- S4


def test_wrong_pins_from_any_number_of_addresses_make_the_pin_long_and_close_it_to_nobody():
    now = [1000.0]
    access = Access(set(), clock=lambda: now[0])
    said: list[str] = []
    access.announce = said.append
    first = access.pin
    for n in range(PIN_TRIES_IN_ALL):  # one try each from fresh addresses: no address is ever paused
        assert access.pin_wait(f"10.1.0.{n}") == 0
        assert access.use_pin("000000" if first != "000000" else "111111", f"10.1.0.{n}", b"k" * 32) is None
    assert len(access.pin) == LONG_PIN_DIGITS and said == ["pin_replaced"]
    # Nobody waits: an address never seen may try at once.
    assert access.pin_wait("10.9.9.9") == 0
    # More churn than the per-address memory holds neither replaces the long PIN nor closes it.
    long_pin = access.pin
    for n in range(CLIENTS_REMEMBERED + 10):
        access.pin_failed(f"10.2.{n // 250}.{n % 250}")
    assert access.pin == long_pin and said == ["pin_replaced"] and access.pin_wait("10.200.0.1") == 0
    grouped = access.pin_shown()
    assert grouped.replace(" ", "") == long_pin and len(grouped.split()) == 3
    grant = access.use_pin(grouped, "10.9.9.9", b"k" * 32)
    assert grant is not None and grant.cookie is not None
    assert len(access.pin) == 6  # the next device pairs with a short PIN again


def test_three_rounds_of_strangers_wrong_pins_never_refuse_the_hosts_right_pin():
    """The audit's reproducer (issue 30): five wrong PINs from strangers' addresses, then
    the host's right PIN (the one the terminal printed last), three times over. The PIN
    was closed to everyone for 10 s, 20 s, 40 s: the host's right PIN was refused (429)."""
    async def go():
        async with page() as (client, live, access):
            printed: list[str] = []
            access.announce = lambda what: printed.append(access.pin_shown())
            answers = []
            for round_ in range(3):
                for n in range(PIN_TRIES_IN_ALL):
                    stranger = f"192.168.{round_}.{n + 10}"
                    assert access.use_pin("000000", stranger, b"k" * 32) is None
                response, _ = await pin_request(client, printed[-1])
                answers.append(response.status)
            assert answers == [200, 202, 202], answers  # paired, then two more waiting for the host's approval
    run_async(go())


def test_the_global_limit_holds_over_http_whatever_the_client_address():
    async def go():
        async with page() as (client, live, access):
            for n in range(PIN_TRIES_IN_ALL - 1):
                access.pin_failed(f"192.168.7.{n}")
            pin = access.pin
            response, _ = await pin_request(client, "000000" if pin != "000000" else "111111")
            assert response.status == 401 and len(access.pin) == LONG_PIN_DIGITS  # this try ended the short PIN
            assert (await pin_request(client, pin))[0].status == 401  # the old PIN is gone
            assert (await pin_request(client, access.pin_shown()))[0].status == 200
    run_async(go())


# ----------------------------------------------------------------- S5


def test_the_judge_device_never_reads_a_role():
    async def go():
        async with page() as (client, live, access):
            csrf = (await paired(client, access))["csrf"]
            await post(client, "/api/reveal", {"show": True}, csrf)
            link = (await (await post(client, "/api/devices/judge", {}, csrf)).json())["judge_link"]
            judge = await _second(client)
            assert (await judge.post(f"/pair/{judge_token(judge, link, access)}", json={},
                                     headers={"Origin": client.origin})).status == 200
            until(live, Phase.HUNT)
            await post(client, "/api/input", {"type": "shot", "seat": 5}, csrf)
            until(live, Phase.DON_CHECK)
            await post(client, "/api/input", {"type": "don_check", "seat": 6}, csrf)
            until(live, Phase.SHERIFF_CHECK)   # the don's window runs its full time (SPEC §5)
            assert (await post(client, "/api/input", {"type": "sheriff_check", "seat": 2}, csrf)).status == 200
            for path in ("/api/protocol.csv", "/api/protocol.json", "/api/export.mafiaratings",
                         "/api/export.polemica"):
                refused = await judge.get(path)
                text = await refused.text()
                assert refused.status == 403 and not SECRETS.search(text), (path, text)
            seen = [await (await judge.get("/api/state")).text()]
            ws = await judge.ws_connect("/api/ws", headers={"Origin": client.origin})
            seen.append(await asyncio.wait_for(ws.receive_str(), 5))
            until(live, Phase.LAST_WORD)
            await ws.close()
            seen.append(await (await judge.get("/api/state")).text())
            for text in seen:
                state = json.loads(text)
                state = state.get("state", state)
                assert state["readonly"] is True and state["answers"]["items"] == []
                assert all("role" not in seat for seat in state["seats"])
                assert state["don_alive"] is None and state["sheriff_alive"] is None
                assert not [line for line in state["log"] if line["private"]]
                assert not SECRETS.search(json.dumps(state, ensure_ascii=False).replace('"csrf"', "")), text
            host = await (await client.get("/api/state")).json()
            assert host["answers"]["items"]  # the host does see them
            await judge.close()
    run_async(go())


# ----------------------------------------------------------------- S1: proofs


def test_a_proof_is_for_one_request_once_and_this_server_only():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            key, epoch = client.vh["key"], access.epoch
            raw = aiohttp.ClientSession(cookie_jar=client.session.cookie_jar)
            url = client.make_url("/api/input")
            body = json.dumps({"type": "foul", "seat": 1}).encode()
            headers = {"Origin": client.origin, "X-CSRF-Token": state["csrf"], "Content-Type": "application/json"}
            proof = f"{epoch}.900.{proof_mac(key, epoch, 900, 'POST', '/api/input', body)}"
            first = await raw.post(url, data=body, headers={**headers, PROOF_HEADER: proof})
            assert first.status == 200 and live.game.fouls[1] == 1
            replay = await raw.post(url, data=body, headers={**headers, PROOF_HEADER: proof})
            assert replay.status == 401 and live.game.fouls[1] == 1  # a captured request cannot be sent again
            other = json.dumps({"type": "foul", "seat": 2}).encode()
            forged = await raw.post(url, data=other, headers={**headers, PROOF_HEADER: proof.replace(".900.", ".901.")})
            assert forged.status == 401 and live.game.fouls[2] == 0  # the proof covers the body
            stale = f"old.902.{proof_mac(key, 'old', 902, 'POST', '/api/input', body)}"
            refused = await raw.post(url, data=body, headers={**headers, PROOF_HEADER: stale})
            data = await refused.json()
            assert refused.status == 401 and data["epoch"] == epoch and in_words(data["error"])
            wrong_key = f"{epoch}.903.{proof_mac(b'x' * 32, epoch, 903, 'POST', '/api/input', body)}"
            assert (await raw.post(url, data=body, headers={**headers, PROOF_HEADER: wrong_key})).status == 401
            assert live.game.fouls[1] == 1
            await raw.close()
    run_async(go())


# ----------------------------------------------------------------- H1


def test_bodies_over_their_limit_are_refused_before_parsing():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            big = b'{"type": "foul", "seat": 1, "x": "' + b"a" * 20_000 + b'"}'
            refused = await post(client, "/api/reveal", {"show": True, "pad": "a" * 2000}, state["csrf"])
            assert refused.status == 413 and in_words((await refused.json())["error"])

            async def chunks():
                for _ in range(40):
                    yield b"a" * 1000

            chunked = await client.post("/api/input", data=chunks(), headers={
                "Origin": client.origin, "X-CSRF-Token": state["csrf"], "Content-Type": "application/json"})
            assert chunked.status == 413
            pin = await client.post("/pin", data=big, headers={"Origin": client.origin,
                                                               "Content-Type": "application/json"})
            assert pin.status == 413 and access.failures["127.0.0.1"][0] == 1
            assert live.game.fouls[1] == 0
    run_async(go())


# ----------------------------------------------------------------- H2, H3 (a real gated site)


async def _gated(live_page, gate: Gate):
    client, live, access = live_page
    runner = web.AppRunner(client.server.app, access_log=None)
    await runner.setup()
    site = GatedSite(runner, "127.0.0.1", 0, gate)
    await site.start()
    access.hosts |= allowed_hosts("127.0.0.1", site.bound)
    return runner, site.bound


async def _head(port: int, data: bytes, wait: float = 5.0) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(65536), wait)
    finally:
        writer.close()


def test_connections_are_capped_per_address_and_a_silent_one_is_closed():
    async def go():
        async with page() as live_page:
            client, live, access = live_page
            gate = Gate(client.server.app[TEXTS_KEY], in_all=200, per_address=4, header_seconds=0.5)
            runner, port = await _gated(live_page, gate)
            try:
                held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(4)]
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                assert await asyncio.wait_for(reader.read(100), 2) == b""  # the fifth is closed at once
                writer.close()
                assert gate.refused >= 1
                # Half-sent heads are dropped after the header time: room again for a real request.
                for r, _ in held:
                    assert await asyncio.wait_for(r.read(100), 3) == b""
                assert gate.timed_out >= 4 and gate.total == 0
                answer = await _head(port, f"GET /api/table HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                           "Connection: close\r\n\r\n".encode())
                assert answer.startswith(b"HTTP/1.1 200")
                for _, w in held:
                    w.close()
            finally:
                await runner.cleanup()
    run_async(go())


def test_aiohttps_own_refusals_are_json_in_the_tables_words_without_the_request_line():
    async def go():
        async with page() as live_page:
            client, live, access = live_page
            gate = Gate(client.server.app[TEXTS_KEY], in_all=200)
            runner, port = await _gated(live_page, gate)
            try:
                for garbage in (b"EVIL\x00 /secret-line HTTP/1.1\r\n\r\n", b"GET /x HTTP/9.9z\r\n\r\n",
                                b"GET / HTTP/1.1\r\nHost: " + b"h" * 20000 + b"\r\n\r\n"):
                    answer = await _head(port, garbage)
                    head, _, body = answer.partition(b"\r\n\r\n")
                    status = head.split(b"\r\n", 1)[0]
                    assert status.startswith(b"HTTP/1.") and status[9:10] == b"4", answer[:200]
                    assert b"application/json" in head, answer[:200]
                    error = json.loads(body)["error"]
                    assert in_words(error) and "secret-line" not in error and "HTTP" not in error, error
                assert gate.bad_requests >= 3
            finally:
                await runner.cleanup()
    run_async(go())


def test_the_tv_keeps_its_live_channel_when_the_public_slots_are_full(monkeypatch):
    monkeypatch.setattr(hub_module, "SOCKETS_IN_ALL", 2)
    monkeypatch.setattr(hub_module, "SOCKETS_PER_CLIENT", 2)

    async def go():
        async with page() as (client, live, access):
            crowd = [await client.ws_connect("/api/table/ws", headers={"Origin": client.origin}) for _ in range(2)]
            full = await client.get("/api/table/ws", headers={"Origin": client.origin, "Connection": "Upgrade",
                                                              "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                                              "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
            assert full.status == 429 and in_words((await full.json())["error"])
            tv = await client.ws_connect(f"/api/table/ws?tv={access.devices.tv}", headers={"Origin": client.origin})
            assert json.loads(await asyncio.wait_for(tv.receive_str(), 5))["type"] == "state"
            wrong = await client.get("/api/table/ws?tv=guess", headers={
                "Origin": client.origin, "Connection": "Upgrade", "Upgrade": "websocket",
                "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
            assert wrong.status == 429
            for ws in (*crowd, tv):
                await ws.close()
    run_async(go())


# ----------------------------------------------------------------- S1: HTTPS on the LAN


def test_lan_serves_https_with_the_tables_own_certificate_and_plain_http_keeps_only_the_board(tmp_path):
    from voicehost.config import Config
    from voicehost.live import AudioClock, LiveTable
    from voicehost.live.table import open_table
    from voicehost.rules import rules_for
    from voicehost.web.server import start_server
    from voicehost.web.tls import tls_file

    journal = tmp_path / "game.jsonl"

    async def serve_once(again: bool) -> tuple[str, str, str]:
        game, writer, entries, _ = open_table(rules_for("4mafia"), journal, resume=journal.exists())
        live = LiveTable(game, AudioClock(), journal=writer, entries=entries)
        out = io.StringIO()
        server = await start_server(live, Config(), lan=True, port=0, out=out)
        try:
            printed = out.getvalue()
            link = next(w for w in printed.split() if "/pair/" in w)
            table = next(w for w in printed.split() if "/table?tv=" in w)
            fingerprint = next(line for line in printed.splitlines() if "SHA-256" in line).split()[-1]
            assert link.startswith("https://") and "#" in link and table.startswith("http://")
            https_port = int(link.split("/pair/")[0].rsplit(":", 1)[1])
            http_port = int(table.split("/table")[0].rsplit(":", 1)[1])
            context = ssl.create_default_context()
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
            _, tls = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", https_port, ssl=context), 10)
            der = tls.get_extra_info("ssl_object").getpeercert(binary_form=True)
            tls.close()
            import hashlib
            assert ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest()) == fingerprint
            async with aiohttp.ClientSession() as session:
                secure = f"https://127.0.0.1:{https_port}"
                plain = f"http://127.0.0.1:{http_port}"
                pin_page = await session.get(f"{secure}/pin", ssl=context)
                assert pin_page.status == 200 and fingerprint in await pin_page.text()
                board = await session.get(f"{plain}/table")
                assert board.status == 200
                async with session.ws_connect(f"{plain}/api/table/ws", headers={"Origin": plain}) as tv:
                    assert json.loads((await tv.receive(timeout=5)).data)["type"] == "state"
                refused_ws = await session.get(f"{plain}/api/ws", headers={"Origin": plain})
                assert refused_ws.status == 403  # the host's channel is never on plain HTTP
                moved = await session.get(f"{plain}/", allow_redirects=False)
                assert moved.status == 308 and moved.headers["Location"] == f"https://127.0.0.1:{https_port}/"
                pair_moved = await session.get(f"{plain}/pair/abc", allow_redirects=False)
                assert pair_moved.headers["Location"].endswith(f":{https_port}/")
                for path in ("/pin", f"/pair/{server.access.token}"):
                    refused = await session.post(f"{plain}{path}", json={"pin": server.access.pin},
                                                 headers={"Origin": plain})
                    assert refused.status == 403 and in_words((await refused.json())["error"]), path
                assert (await session.get(f"{plain}/api/state")).status == 403
                # Over HTTPS the pairing works and its cookie is Secure (never sent over plain HTTP).
                token = link.split("/pair/")[1].split("#")[0]
                paired_now = await session.post(f"{secure}/pair/{token}", json={}, ssl=context,
                                                headers={"Origin": secure})
                if again:  # the first run's phone is still paired: this one waits for its approval
                    assert paired_now.status == 202
                else:
                    assert paired_now.status == 200 and "Secure" in paired_now.headers["Set-Cookie"]
        finally:
            await server.cleanup()
            writer.close()
        return fingerprint, link, table

    first, _, table = run_async(serve_once(False))
    kept = tls_file(journal)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and "PRIVATE KEY" in kept.read_text()
    again, _, table_again = run_async(serve_once(True))  # resumed: the same certificate, the same TV link
    assert again == first and table_again.split("?")[1] == table.split("?")[1]
    assert Devices(journal.with_name(journal.name + ".devices")).tv in table


def test_a_flood_after_the_pin_turned_long_never_replaces_it_again():
    """Found by tools/bench_pin: junk to /pin replaced the PIN 54 times in 20 s."""
    async def go():
        async with page() as (client, live, access):
            said: list[str] = []
            access.announce = said.append
            for n in range(PIN_TRIES_IN_ALL):
                access.pin_failed(f"10.4.0.{n}")
            pin = access.pin
            for _ in range(3 * PIN_TRIES_IN_ALL):
                junk = await client.post("/pin", data=b"{" + b"9" * 5000 + b"}", headers={
                    "Origin": client.origin, "Content-Type": "application/json"})
                assert junk.status in (413, 429) and in_words((await junk.json())["error"])
            assert access.pin == pin and said == ["pin_replaced"]
    run_async(go())


def test_the_last_connection_places_are_kept_for_paired_devices_and_the_tv():
    """H2: thousands of addresses holding connections leave the host (and the TV) room."""
    from voicehost.web.gate import RESERVED
    from voicehost.web.texts import Texts

    gate = Gate(Texts(), in_all=RESERVED + 20, per_address=2)
    gate.trust("10.0.0.5")  # the host's phone proved itself
    crowd = [f"10.8.{n // 200}.{n % 200}" for n in range(500)]
    admitted = sum(gate.admit(address) for address in crowd)
    assert admitted == 20 and gate.refused == 480
    assert all(gate.admit("10.0.0.5") for _ in range(2)) and not gate.admit("10.0.0.5")  # its own cap still
    for address in crowd[:3]:  # the host's two count too: three places free one for the crowd
        gate.release(address)
    assert gate.admit("10.8.0.99") and not gate.admit("10.8.0.98")


def test_on_the_lan_the_overlays_roles_mode_is_served_over_https_only_and_only_with_its_key(tmp_path):
    """Issue 17's roles overlay is secret: its link is printed on the HTTPS base; over
    plain HTTP its page and channel are refused (never redirected, never answered),
    while the public /overlay stays on plain HTTP beside the TV's board."""
    from voicehost.config import Config
    from voicehost.live import AudioClock, LiveTable
    from voicehost.live.table import open_table
    from voicehost.rules import rules_for
    from voicehost.web.server import start_server

    async def serve() -> None:
        game, writer, entries, _ = open_table(rules_for("4mafia"), tmp_path / "game.jsonl", resume=False)
        live = LiveTable(game, AudioClock(), journal=writer, entries=entries)
        out = io.StringIO()
        server = await start_server(live, Config(), lan=True, port=0, out=out)
        try:
            words = out.getvalue().split()
            roles = next(w for w in words if "/overlay/" in w)
            public = next(w for w in words if w.endswith("/overlay"))
            key = roles.rsplit("/", 1)[1]
            assert roles.startswith("https://") and public.startswith("http://")
            secure, plain = roles.split("/overlay/")[0], public.split("/overlay")[0]
            context = ssl.create_default_context()
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
            async with aiohttp.ClientSession() as session:
                board = await session.get(f"{plain}/overlay", allow_redirects=False)
                assert board.status == 200 and "overlay" in await board.text()
                for path in (f"/overlay/{key}", f"/api/overlay/{key}/ws", "/overlay/wrong"):
                    refused = await session.get(f"{plain}{path}", allow_redirects=False, headers={"Origin": plain})
                    body = await refused.text()
                    assert refused.status == 403 and "Location" not in refused.headers, path
                    assert key not in body and in_words(json.loads(body)["error"]), path
                shown = await session.get(f"{secure}/overlay/{key}", ssl=context)
                assert shown.status == 200
                other = "y" if key.endswith("x") else "x"   # a key one letter off (it may end in "x" itself)
                wrong = await session.get(f"{secure}/overlay/{key[:-1]}{other}", ssl=context)
                assert wrong.status == 404
                async with session.ws_connect(f"{secure}/api/overlay/{key}/ws", ssl=context,
                                              headers={"Origin": secure}) as ws:
                    state = json.loads((await ws.receive(timeout=5)).data)["state"]
                    assert state["waiting"] is True  # 60 s behind the table: nothing yet
        finally:
            await server.cleanup()
            writer.close()

    run_async(serve())
