"""The companion page under aiohttp's test client, as the tests drive it:
a page with a live table, a client that signs like secure.js, pairing by link
or PIN, posting as the page does, and what no public answer may carry."""
from __future__ import annotations

import asyncio
import contextlib
import io
import re

from aiohttp.test_utils import TestClient, TestServer
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.conftest import ROLES
from voicehost.game.moderator import Moderator
from voicehost.journal import Table
from voicehost.live import AudioClock, LiveTable
from voicehost.rules import rules_for
from voicehost.web.access import PROOF_HEADER, Access, allowed_hosts
from voicehost.web.devices import b64, pin_key, proof_mac, unb64
from voicehost.web.server import Hub, make_app

SECRETS = re.compile(r"\b(citizen|sheriff|not_sheriff|mafia|don|black|red)\b|Шериф —|— чёрный|— красный"
                     r"|только вам|\"role\"")


def signing_client(server) -> TestClient:
    """A test client that signs like the page's secure.js: once `paired` gave it the
    device's key, every /api/ request (and a pairing wait) carries its proof; a
    refusal naming a new epoch (a restarted server) is signed again once."""
    box: dict = {"key": None, "epoch": "", "n": 0}

    async def sign(request, handler):
        path = request.url.raw_path
        if box["key"] is None or PROOF_HEADER in request.headers or not path.startswith(("/api/", "/pair/wait/")):
            return await handler(request)
        body = request.body if isinstance(request.body, bytes) else await request.body.as_bytes()
        for attempt in range(2):
            box["n"] += 1
            mac = proof_mac(box["key"], box["epoch"], box["n"], request.method, path, body)
            request.headers[PROOF_HEADER] = f"{box['epoch']}.{box['n']}.{mac}"
            response = await handler(request)
            if response.status != 401 or attempt or response.content_type != "application/json":
                return response
            epoch = (await response.json()).get("epoch")
            if not epoch:
                return response
            box["epoch"] = epoch
        return response

    client = TestClient(server, middlewares=(sign,))
    client.vh = box
    return client


def keep_key(client, key: bytes, access) -> None:
    client.vh.update(key=key, epoch=access.epoch)


def judge_token(client, link: str, access) -> str:
    """A judge's link as its page reads it: the token to post, the key (its fragment) kept."""
    token, _, fragment = link.rsplit("/pair/", 1)[1].partition("#")
    keep_key(client, unb64(fragment), access)
    return token


@contextlib.asynccontextmanager
async def page(setup: bool = True):
    clock = AudioClock()
    live = LiveTable(Table(Moderator.for_rules(rules_for("4mafia"))), clock)
    if setup:
        live.apply_json({"type": "setup", "roles": ROLES})
    access = Access(set())
    hub = Hub(live, asyncio.get_running_loop())
    app = make_app(live, access, hub, io.StringIO(), lambda: f"/pair/{access.token}")
    server = TestServer(app, host="127.0.0.1")
    client = signing_client(server)
    await client.start_server()
    access.hosts = allowed_hosts("127.0.0.1", server.port)
    client.origin = f"http://127.0.0.1:{server.port}"
    pump = asyncio.create_task(hub.pump())
    try:
        yield client, live, access
    finally:
        pump.cancel()
        await client.close()


async def paired(client, access, approver=None) -> dict:
    """Pair the client with the terminal's link, as its page would: the key is the
    link's fragment. A later host device waits until `approver` (a paired client) approves it."""
    token, key = access.token, access.link_key
    landing = await client.get(f"/pair/{token}", allow_redirects=False)
    assert landing.status == 200 and "Set-Cookie" not in landing.headers  # a link preview spends nothing
    response = await client.post(f"/pair/{token}", headers={"Origin": client.origin})
    if response.status == 202:
        assert approver is not None, "a later device waits for a host's approval"
        waiting = (await response.json())["pending"]
        state = await (await approver.get("/api/state")).json()
        approved = await approver.post(f"/api/devices/pending/{waiting}/approve", json={},
                                       headers={"Origin": approver.origin, "X-CSRF-Token": state["csrf"]})
        assert approved.status == 200, await approved.text()
        client.vh.update(key=key, epoch=access.epoch)
        response = await client.get(f"/pair/wait/{waiting}")
    assert response.status == 200, await response.text()
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    keep_key(client, key, access)
    state = await (await client.get("/api/state")).json()
    return state


async def pin_request(client, pin: str):
    """POST /pin as pin.js does: the PIN and an ECDH public key. The answer, and the
    device key both sides derive (None when the PIN was refused)."""
    mine = ec.generate_private_key(ec.SECP256R1())
    public = mine.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    response = await client.post("/pin", json={"pin": pin, "pub": b64(public)}, headers={"Origin": client.origin})
    if response.status not in (200, 202):
        return response, None
    theirs = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64((await response.json())["pub"]))
    key = pin_key(mine.exchange(ec.ECDH(), theirs))
    if response.status == 200:
        client.vh.update(key=key, epoch=client.vh["epoch"] or "")
    return response, key


def post(client, path: str, body, csrf: str | None = None, origin: str | None = None):
    headers = {"Origin": origin or client.origin}
    if csrf is not None:
        headers["X-CSRF-Token"] = csrf
    return client.post(path, json=body, headers=headers)


def in_words(text: str) -> bool:
    """A message in the table's language: Cyrillic, no English words (PIN, JSON, UTF-8, https aside)."""
    text = re.sub("«[^»]*»", "", text)  # what the client sent, quoted back
    english = [w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in ("PIN", "JSON", "UTF", "true", "false",
                                                                          "show", "https", "SHA")]
    return bool(re.search("[а-яА-ЯіїєІЇЄ]", text)) and not english
