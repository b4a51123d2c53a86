"""The host's phone (and a laptop) on the LAN, as a script run inside the phone's
network namespace by tests/test_web_lan_sniff.py: it pairs with the printed
link (its key is the fragment), pairs a second device with the PIN (ECDH, then
the phone approves it), deals, enters the night's shot and checks, and reads
the roles and the answers (each check entered twice, an undo between, each on
a connection of its own, so that the listener's capture holds the two answers
of each check apart), and (a streaming machine) the overlay's public board
over plain HTTP and its roles mode over HTTPS — everything a listener must not learn. It writes
what it saw (cookies, PIN, answers, roles) as JSON for the test to look for in
the capture.

    python tests/web/lan_phone.py LINK SERVER_LOG OUT.json"""
from __future__ import annotations

import asyncio
import json
import re
import socket
import ssl
import sys
import time
from pathlib import Path

import aiohttp
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from voicehost.web.access import PROOF_HEADER
from voicehost.web.devices import b64, pin_key, proof_mac, unb64

ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen", "6": "sheriff", "7": "mafia",
         "8": "citizen", "9": "citizen", "10": "citizen"}


class Device:
    def __init__(self, base: str, context: ssl.SSLContext) -> None:
        self.base, self.context = base, context
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        self.key: bytes | None = None
        self.epoch, self.n = "", int(time.time())

    async def call(self, method: str, path: str, body: dict | None = None, key: bytes | None = None,
                   csrf: str = "", session: aiohttp.ClientSession | None = None) -> aiohttp.ClientResponse:
        data = json.dumps(body).encode() if body is not None else b""
        headers = {"Origin": self.base, "Content-Type": "application/json"}
        if csrf:
            headers["X-CSRF-Token"] = csrf
        key = key or self.key
        if key is not None:
            if not self.epoch:
                async with self.session.get(f"{self.base}/api/epoch", ssl=self.context) as got:
                    self.epoch = (await got.json())["epoch"]
            self.n += 1
            headers[PROOF_HEADER] = f"{self.epoch}.{self.n}.{proof_mac(key, self.epoch, self.n, method, path, data)}"
        response = await (session or self.session).request(method, f"{self.base}{path}", data=data or None,
                                                           headers=headers, ssl=self.context)
        await response.read()
        return response

    async def alone(self, path: str, body: dict, csrf: str) -> tuple[dict, int]:
        """A POST on a connection of its own: its answer, and this side's port."""
        with socket.socket() as free:
            free.bind(("0.0.0.0", 0))
            port = free.getsockname()[1]
        connector = aiohttp.TCPConnector(force_close=True, local_addr=("0.0.0.0", port))
        async with aiohttp.ClientSession(cookie_jar=self.session.cookie_jar, connector=connector) as session:
            response = await self.call("POST", path, body, csrf=csrf, session=session)
            assert response.status == 200, await response.text()
            return await response.json(), port

    async def state(self) -> dict:
        response = await self.call("GET", "/api/state")
        assert response.status == 200, await response.text()
        return await response.json()

    def cookie(self) -> str:
        return "; ".join(f"{c.key}={c.value}" for c in self.session.cookie_jar)


async def stream(printed: str, context: ssl.SSLContext) -> dict:
    """The streaming machine (no pairing, no cookie): the public overlay over plain
    HTTP, as a TV browser would, and the roles mode over HTTPS with its printed link."""
    public = re.search(r"Оверлей для трансляции: (\S+)", printed).group(1)
    roles_link = re.search(r"Оверлей с ролями[^\n]*?: (\S+)", printed).group(1)
    assert public.startswith("http://") and roles_link.startswith("https://"), (public, roles_link)
    plain, secure = public.rsplit("/overlay", 1)[0], roles_link.split("/overlay/", 1)[0]
    key = roles_link.rsplit("/", 1)[1]
    async with aiohttp.ClientSession() as session:
        board = await session.get(public)
        assert board.status == 200, board.status
        async with session.ws_connect(f"{plain}/api/table/ws", headers={"Origin": plain}) as ws:
            assert "role" not in json.loads((await ws.receive(timeout=10)).data)["state"]["seats"][5]
        shown = await session.get(roles_link, ssl=context)
        assert shown.status == 200, shown.status
        async with session.ws_connect(f"{secure}/api/overlay/{key}/ws", ssl=context, headers={"Origin": secure}) as ws:
            overlay = json.loads((await ws.receive(timeout=10)).data)["state"]
    assert overlay.get("roles_mode"), overlay  # the config's overlay_delay is 0 here
    return {"overlay_key": key, "overlay_roles": {str(s["seat"]): s.get("role") for s in overlay["seats"]}}


async def both_answers(phone: Device, kind: str, seats: list[int], csrf: str) -> list[int]:
    """A check entered, taken back and entered again on another seat, each answer on a
    connection of its own: the ports the listener finds them under."""
    answered, first = await phone.alone("/api/input", {"type": kind, "seat": seats[0]}, csrf)
    undone = await phone.call("POST", "/api/undo", {"n": answered["last_input"]["n"]}, csrf=csrf)
    assert undone.status == 200, await undone.text()
    _, second = await phone.alone("/api/input", {"type": kind, "seat": seats[1]}, csrf)
    return [first, second]


async def main(link: str, log: Path, out: Path) -> None:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    base, rest = link.split("/pair/", 1)
    token, _, fragment = rest.partition("#")
    seen: dict = {}
    phone, laptop = Device(base, context), Device(base, context)
    try:
        paired = await phone.call("POST", f"/pair/{token}", {})
        assert paired.status == 200, await paired.text()
        phone.key = unb64(fragment)
        state = await phone.state()
        await phone.call("POST", "/api/reveal", {"show": True}, csrf=state["csrf"])

        # The laptop types the PIN the terminal printed after the phone paired; the phone approves it.
        pin = re.findall(r"(?:новым PIN|или PIN) (\d{6})", log.read_text("utf-8"))[-1]
        mine = ec.generate_private_key(ec.SECP256R1())
        public = mine.public_key().public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.UncompressedPoint)
        asked = await laptop.call("POST", "/pin", {"pin": pin, "pub": b64(public)})
        assert asked.status == 202, await asked.text()
        answer = await asked.json()
        theirs = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(answer["pub"]))
        laptop_key = pin_key(mine.exchange(ec.ECDH(), theirs))
        state = await phone.state()
        approved = await phone.call("POST", f"/api/devices/pending/{state['pending'][0]['id']}/approve", {},
                                    csrf=state["csrf"])
        assert approved.status == 200, await approved.text()
        waited = await laptop.call("GET", f"/pair/wait/{answer['pending']}", key=laptop_key)
        assert waited.status == 200, await waited.text()
        laptop.key = laptop_key
        assert (await laptop.state())["readonly"] is False

        # The deal, then the night's inputs as their windows open.
        dealt = await phone.call("POST", "/api/input", {"type": "setup", "roles": ROLES}, csrf=state["csrf"])
        assert dealt.status == 200, await dealt.text()
        night = {"hunt": [1], "don_check": [6, 5], "sheriff_check": [2, 3]}  # Шериф / не Шериф, чёрный / красный
        deadline = time.monotonic() + 90
        seen["alone"] = {}
        while night and time.monotonic() < deadline:
            state = await phone.state()
            if state["phase_id"] == "hunt" and "hunt" in night:
                sent = await phone.call("POST", "/api/input", {"type": "shot", "seat": night.pop("hunt")[0]},
                                        csrf=state["csrf"])
                assert sent.status == 200, await sent.text()
            elif state["phase_id"] in night:
                seen["alone"][state["phase_id"]] = await both_answers(phone, state["phase_id"],
                                                                      night.pop(state["phase_id"]), state["csrf"])
            await asyncio.sleep(0.2)
        assert not night, f"the night's windows never opened: {state['phase_id']}"
        while not state["answers"]["items"] and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            state = await phone.state()
        protocol = await phone.call("GET", "/api/protocol.csv")
        seen.update(pin=pin, phone_cookie=phone.cookie(), laptop_cookie=laptop.cookie(), csrf=state["csrf"],
                    answers=state["answers"]["items"], roles={s["seat"]: s.get("role") for s in state["seats"]},
                    protocol=await protocol.text())
        seen.update(await stream(log.read_text("utf-8"), context))
    finally:
        await phone.session.close()
        await laptop.session.close()
    out.write_text(json.dumps(seen, ensure_ascii=False), "utf-8")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])))
