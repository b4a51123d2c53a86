"""Malformed requests to every host endpoint: never a 500, always a JSON 4xx
with a reason in the table's language, and the game exactly as it was. Also the
cases issue 9 names one by one, and the cap on live channels."""
from __future__ import annotations

import asyncio
import json
import random

from aiohttp import WSServerHandshakeError

from tests.conftest import run_async, until
from tests.webparts import in_words, page, paired
from voicehost.game.model import Phase

PER_ENDPOINT = 500
ENDPOINTS = ["/api/input", "/api/undo", "/api/reveal", "/api/answers/dismiss", "/api/suggestions/0/dismiss",
             "/api/devices/judge", "/api/devices/99/revoke", "/pin"]
SEATS = [0, -1, 11, 99, 1.5, "1.0", "²", "٣", "x", "", " ", None, True, False, [], {}, "9" * 5000,
         int("9" * 4000), 10 ** 30, -10 ** 30, 1e308, "NaN", "\u0000", "\ud800"]
TYPES = ["foul", "votes", "shot", "setup", "best_move", "lift_votes", "candidates", "word", "tick",
         "undo", "", None, [], {}, 1, True, "FOUL", "foul\u0000", "ф" * 3000]


def _body(rng: random.Random) -> tuple[bytes, dict[str, str]]:
    """One malformed (or oddly formed) request body with its headers."""
    kind = rng.randrange(12)
    headers = {"Content-Type": "application/json"}
    if kind == 0:
        text = "[" * rng.choice([20, 1000, 20000]) + "]" * rng.choice([0, 20])
    elif kind == 1:
        text = json.dumps({"type": rng.choice(TYPES), "seat": rng.choice(SEATS[:-1])})
    elif kind == 2:
        return '{"type": "foul", "seat": 1}'.encode("utf-16"), headers
    elif kind == 3:
        return b'{"show": "\xff\xfe\xc3"}', headers
    elif kind == 4:
        headers["Content-Type"] = f"application/json; charset={rng.choice(['klingon', 'utf-7', 'latin-1', 'utf-16'])}"
        text = '{"type": "foul", "seat": 1}'
    elif kind == 5:
        seat = rng.choice(["7", "²", "9" * 5000, "-1"])
        count = rng.choice(["9" * 5000, "-3", "1e999", "\"5\"", "[]"])
        text = f'{{"type": "votes", "counts": {{"{seat}": {count}}}}}'
    elif kind == 6:
        text = rng.choice(["", " ", "null", "true", "1", "\"foul\"", "[1,2]", "{", "}", "{\"type\":", "NaN",
                           "Infinity", "{\"show\": no}", "\u0000"])
    elif kind == 7:
        text = json.dumps({"show": rng.choice(["no", "yes", 0, 1, None, [], {}, "false"])})
    elif kind == 8:
        text = json.dumps({"type": "setup", "roles": rng.choice([{"1": "god"}, {"²": "don"}, {"1": 5}, [1, 2],
                                                                   {"9" * 5000: "don"}, "citizen"])})
    elif kind == 9:
        text = json.dumps({"type": rng.choice(["best_move", "candidates"]),
                           "seats": rng.choice([[1, 2, "²"], "1,2,3", [[1]], list(range(10000)), None])})
    elif kind == 10:
        text = json.dumps({"type": "foul", "seat": 1, "extra": "x" * rng.randrange(1, 70000)})
    else:
        headers["Content-Type"] = rng.choice(["multipart/form-data; boundary=zz", "text/plain", "application/x-www"
                                              "-form-urlencoded", "application/json; charset"])
        text = rng.choice(["--zz\r\nbroken", "pin=" + "9" * 5000, "a=b&" * 5000, '{"type": "foul"}'])
    return text.encode("utf-8", "surrogatepass"), headers


def _snapshot(live) -> tuple:
    game = live.game
    return (game.phase, game.paused_at, dict(game.fouls), sorted(game.alive), len(live.entries),
            list(game.checks), [e.seat for e in game.eliminated], list(game.today), list(game.votes))


def test_malformed_bodies_to_every_host_endpoint_never_500_and_change_nothing():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            until(live, Phase.SPEECH)
            live.hear([])
            before = _snapshot(live)
            rng = random.Random(9)
            statuses: dict[int, int] = {}
            sent = 0
            for endpoint in ENDPOINTS:
                for _ in range(PER_ENDPOINT):
                    body, headers = _body(rng)
                    response = await client.post(endpoint, data=body, headers={
                        **headers, "Origin": client.origin, "X-CSRF-Token": state["csrf"]})
                    sent += 1
                    statuses[response.status] = statuses.get(response.status, 0) + 1
                    assert response.status < 500, (endpoint, body[:80])
                    if response.status >= 400:
                        error = (await response.json())["error"]
                        assert in_words(error), (endpoint, body[:80], error)
                    else:  # only the endpoints that take no body may say yes to an empty object
                        assert endpoint in ("/api/answers/dismiss", "/api/devices/judge"), (endpoint, body[:80])
                        await response.read()
            assert sent == PER_ENDPOINT * len(ENDPOINTS)
            assert _snapshot(live) == before
            assert client.server.app[_hub_key()].unexpected == 0
            assert all(code < 500 for code in statuses)
            print("statuses", sorted(statuses.items()))
            assert len(statuses) >= 4  # refused for many different reasons, not one gate
    run_async(go())


def _hub_key():
    from voicehost.web.server import HUB

    return HUB


def test_the_issue_9_bodies_one_by_one():
    cases = [
        ("/api/input", b'{"type": []}', "application/json", 400, "Это не действие ведущего"),
        ("/api/input", b"{}", "application/json", 400, "Это не действие ведущего"),
        ("/api/input", '{"type": "foul", "seat": "²"}'.encode(), "application/json", 400, "Нужен номер игрока"),
        ("/api/input", b'{"type": "foul", "seat": "' + b"9" * 5000 + b'"}', "application/json", 400,
         "Нужен номер игрока"),
        ("/api/input", b'{"type": "foul", "seat": ' + b"9" * 5000 + b"}", "application/json", 400,
         "Слишком длинное число"),
        ("/api/input", b"[" * 4000 + b"]" * 4000, "application/json", 400, "слишком сложный"),
        ("/api/input", b"[" * 20000 + b"]" * 20000, "application/json", 413, "слишком большой"),  # before parsing
        ("/api/input", b'{"type": "foul", "seat": 1}', "application/json; charset=klingon", 415,
         "Неизвестная кодировка"),
        ("/api/reveal", b'{"show": "\xff"}', "application/json", 400, "не UTF-8"),
        ("/api/reveal", b'{"show": "no"}', "application/json", 400, "true или false"),
        ("/api/suggestions/" + "9" * 5000 + "/dismiss", b"{}", "application/json", 404, "Нет такой подсказки"),
        ("/api/nowhere", b"{}", "application/json", 404, "Нет такого адреса"),
    ]

    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            before = _snapshot(live)
            for path, body, kind, status, needle in cases:
                response = await client.post(path, data=body, headers={
                    "Content-Type": kind, "Origin": client.origin, "X-CSRF-Token": state["csrf"]})
                error = (await response.json())["error"]
                assert (response.status, needle in error) == (status, True), (path, body[:40], error)
            assert _snapshot(live) == before
            for path in ("/nowhere", "/static/nothing.js", "/static/../../etc/passwd"):
                missing = await client.get(path)
                assert missing.status == 404 and in_words(await missing.text()), path
            shown = await (await client.get("/api/state")).json()
            assert all("role" not in seat for seat in shown["seats"])  # {"show": "no"} revealed nothing
    run_async(go())


def test_idle_live_channels_are_capped_and_the_host_is_still_served():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            sockets, refused = [], 0
            for _ in range(40):
                try:
                    sockets.append(await client.ws_connect("/api/table/ws", headers={"Origin": client.origin}))
                except WSServerHandshakeError as exc:
                    assert exc.status == 429
                    refused += 1
            assert len(sockets) == 8 and refused == 32
            hub = client.server.app[_hub_key()]
            assert sum(hub.clients.values()) == 8
            # The host's own live channel is counted apart: still open to the paired device.
            host_ws = await client.ws_connect("/api/ws", headers={"Origin": client.origin})
            assert json.loads(await asyncio.wait_for(host_ws.receive_str(), 5))["type"] == "state"
            started = asyncio.get_running_loop().time()
            foul = await client.post("/api/input", json={"type": "foul", "seat": 3},
                                     headers={"Origin": client.origin, "X-CSRF-Token": state["csrf"]})
            assert foul.status == 200 and live.game.fouls[3] == 1
            assert asyncio.get_running_loop().time() - started < 5
            for ws in [*sockets, host_ws]:
                await ws.close()
    run_async(go())
