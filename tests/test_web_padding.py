"""Issue 30, item 1: a night's answer changes no message's length. Two tables play
the same night with deals that differ only in whom the checks find (the Don finds
the Sheriff or not, the Sheriff finds a black or a red), and every byte the host's
device receives is counted on the wire (a TCP relay between it and the table):
each HTTP answer and each live-channel frame is as long in both games, and
padded to its bucket."""
from __future__ import annotations

import asyncio
import contextlib
import io
import json

from aiohttp.test_utils import TestServer

from tests.conftest import ROLES, run_async, until
from tests.webparts import paired, post, signing_client
from voicehost.game.model import Phase
from voicehost.game.moderator import Moderator
from voicehost.journal import Table
from voicehost.live import AudioClock, LiveTable
from voicehost.rules import rules_for
from voicehost.web.access import Access, allowed_hosts
from voicehost.web.padding import BUCKET
from voicehost.web.server import Hub, make_app

FOUND = ROLES  # the Don's check (seat 6) finds the Sheriff, the Sheriff's (seat 2) a black
MISSED = {**ROLES, "2": "citizen", "3": "mafia", "5": "sheriff", "6": "citizen"}  # not the Sheriff, a red


class Relay:
    """A TCP relay that counts what the table sends each connection, as a listener would."""

    def __init__(self, port: int) -> None:
        self.port, self.received, self.server = port, [], None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader, writer) -> None:
        upstream_reader, upstream = await asyncio.open_connection("127.0.0.1", self.port)
        received = bytearray()
        self.received.append(received)

        async def pipe(source, sink, seen) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await source.read(65536):
                    if seen is not None:
                        seen.extend(data)
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, upstream, None), pipe(upstream_reader, writer, received))

    def close(self) -> None:
        self.server.close()


def frames(data: bytes) -> list[int]:
    """The sizes on the wire of the WebSocket data frames a server sent (after its 101 answer)."""
    at, sizes = data.index(b"\r\n\r\n") + 4, []
    while at + 2 <= len(data):
        size, head = data[at + 1] & 0x7F, 2
        if size == 126:
            size, head = int.from_bytes(data[at + 2:at + 4], "big"), 4
        elif size == 127:
            size, head = int.from_bytes(data[at + 2:at + 10], "big"), 10
        if data[at] & 0x0F < 8:  # not a control frame (the close)
            sizes.append(head + size)
        at += head + size
    return sizes


async def night(deal: dict[str, str]) -> tuple[list[int], list[int], list[str]]:
    """The host's night on a table with `deal`: the sizes of the HTTP answers and of the
    live channel's frames on the wire, and the answers the page showed."""
    live = LiveTable(Table(Moderator.for_rules(rules_for("4mafia"))), AudioClock())
    live.apply_json({"type": "setup", "roles": deal})
    access = Access(set())
    hub = Hub(live, asyncio.get_running_loop())  # no pump: every push is this test's own
    server = TestServer(make_app(live, access, hub, io.StringIO(), lambda: f"/pair/{access.token}"), host="127.0.0.1")
    client = signing_client(server)
    await client.start_server()
    relay = Relay(server.port)
    relay_port = await relay.start()
    access.hosts = allowed_hosts("127.0.0.1", server.port) | allowed_hosts("127.0.0.1", relay_port)
    client.origin = f"http://127.0.0.1:{server.port}"
    try:
        csrf = (await paired(client, access))["csrf"]
        await post(client, "/api/reveal", {"show": True}, csrf)
        wire = f"http://127.0.0.1:{relay_port}"
        ws = await client.session.ws_connect(f"{wire}/api/ws", headers={"Origin": client.origin})
        await ws.receive_str(timeout=5)
        answers: list[str] = []
        http: list[int] = []

        def counted() -> int:  # what the table sent on the page's HTTP connections so far
            return sum(len(received) for received in relay.received[1:])

        until(live, Phase.HUNT)
        await post(client, "/api/input", {"type": "shot", "seat": 1}, csrf)
        for phase, check in ((Phase.DON_CHECK, {"type": "don_check", "seat": 6}),
                             (Phase.SHERIFF_CHECK, {"type": "sheriff_check", "seat": 2})):
            until(live, phase)
            before = counted()
            answer = await client.session.post(f"{wire}/api/input", json=check,
                                               headers={"Origin": client.origin, "X-CSRF-Token": csrf})
            assert answer.status == 200, await answer.text()
            answers.append((await answer.json())["answers"]["items"][-1])
            http.append(counted() - before)
            await hub.push()
            json.loads(await ws.receive_str(timeout=5))
        before = counted()
        state = await client.session.get(f"{wire}/api/state")
        assert state.status == 200
        await state.read()
        http.append(counted() - before)
        await ws.close()
        return frames(bytes(relay.received[0])), http, answers
    finally:
        relay.close()
        await client.close()


def test_the_two_answers_of_each_check_take_the_same_bytes_on_the_wire():
    async def go():
        found_frames, found_http, found = await night(FOUND)
        missed_frames, missed_http, missed = await night(MISSED)
        assert found == ["Дон: игрок 6 — Шериф", "Шериф: игрок 2 — чёрный"], found
        assert missed == ["Дон: игрок 6 — не Шериф", "Шериф: игрок 2 — красный"], missed
        assert found_frames == missed_frames and len(found_frames) == 3, (found_frames, missed_frames)
        assert found_http == missed_http and len(found_http) == 3, (found_http, missed_http)
        for size in found_frames:  # a frame: its header (4 or 10 bytes) and a payload of whole buckets
            assert (size - 4) % BUCKET == 0 or (size - 10) % BUCKET == 0, size
    run_async(go())
