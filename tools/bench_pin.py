"""A PIN brute force and a flood against `voicehost serve`, on loopback only,
bounded in count and time (issue 18, S4 and H1-H3). Prints figures; asserts nothing.

The server runs in its own process. The attack comes from many loopback source
addresses (127.2.x.y: address churn) at once:
  - guessers post wrong PINs as fast as the server answers (and well-formed ones
    only: malformed bodies count as wrong PINs too);
  - slow clients open connections and send half a request head, then nothing;
  - big bodies (64 KB) and garbage request lines.
Meanwhile the paired host (its link's key, signed requests) reads its state and
enters a foul and its undo every 100 ms; its answer times are measured.
Then the evening: the PIN rules themselves (voicehost.web.access.Access on a
virtual clock) against guesses at the flood's measured rate, each from a fresh
address, kept up for 4 hours: the chance that one of them was right.

    .venv/bin/python -m tools.bench_pin [SECONDS] [GUESSERS] [SLOW]
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

from voicehost.web.access import PROOF_HEADER, Access
from voicehost.web.devices import b64, proof_mac, unb64

ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen", "6": "sheriff", "7": "mafia",
         "8": "citizen", "9": "citizen", "10": "citizen"}
PUBLIC = b64(b"\x04" + bytes(64))  # any 65 bytes: a wrong PIN is refused before the key is looked at


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def source(n: int) -> str:
    return f"127.2.{(n // 250) % 250}.{n % 250 + 1}"


async def guesser(n: int, port: int, until: float, tally: Counter[str]) -> None:
    """Wrong PINs, each from a new source address, as fast as they are answered."""
    i = 0
    while time.monotonic() < until:
        i += 1
        connector = aiohttp.TCPConnector(local_addr=(source(n * 1000 + i), 0), force_close=True)
        try:
            async with aiohttp.ClientSession(connector=connector) as session:
                async with session.post(f"http://127.0.0.1:{port}/pin", json={"pin": f"{i % 10 ** 6:06d}",
                                                                               "pub": PUBLIC},
                                        headers={"Origin": f"http://127.0.0.1:{port}"},
                                        timeout=aiohttp.ClientTimeout(total=10)) as answer:
                    tally[str(answer.status)] += 1
        except (aiohttp.ClientError, OSError, TimeoutError):
            tally["failed"] += 1


async def slow(n: int, port: int, until: float, tally: Counter[str]) -> None:
    """Half a request head, then silence; again as soon as the server drops it."""
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source(500_000 + n), 0))
            writer.write(b"POST /pin HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            await writer.drain()
            await asyncio.wait_for(reader.read(100), max(0.1, until - time.monotonic()))
            tally["slow_dropped"] += 1
            writer.close()
        except TimeoutError:
            tally["slow_open_at_the_end"] += 1
        except OSError:
            tally["slow_refused"] += 1
            await asyncio.sleep(0.05)


async def junk(n: int, port: int, until: float, tally: Counter[str]) -> None:
    """64 KB bodies to /pin and garbage request lines."""
    big = b"{" + b"9" * 65536 + b"}"
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source(700_000 + n), 0))
            if n % 2:
                writer.write(b"BAD\x00LINE /secret HTTP/1.1\r\n\r\n")
            else:
                writer.write(f"POST /pin HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"
                             f"Content-Type: application/json\r\nContent-Length: {len(big)}\r\n\r\n".encode() + big)
            await writer.drain()
            head = await asyncio.wait_for(reader.read(64), 5)
            tally["junk_" + (head[9:12].decode("latin-1") or "closed")] += 1
            writer.close()
        except (OSError, TimeoutError):
            tally["junk_failed"] += 1
            await asyncio.sleep(0.05)


class Host:
    """The paired host's page: the link's key, a signed request each time."""

    def __init__(self, link: str, port: int) -> None:
        self.base, rest = link.split("/pair/", 1)
        self.token, _, fragment = rest.partition("#")
        self.key, self.counter, self.epoch = unb64(fragment), 0, ""
        self.origin = {"Origin": f"http://127.0.0.1:{port}"}
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))  # an IP address

    async def pair(self) -> None:
        async with self.session.post(f"{self.base}/pair/{self.token}", json={}, headers=self.origin) as paired:
            assert paired.status == 200, await paired.text()
        async with self.session.get(f"{self.base}/api/epoch") as got:
            self.epoch = (await got.json())["epoch"]
        state = await self.call("GET", "/api/state")
        if state["phase_id"] == "setup":
            await self.call("POST", "/api/input", {"type": "setup", "roles": ROLES}, state["csrf"])

    async def call(self, method: str, path: str, body: dict | None = None, csrf: str = "") -> dict:
        self.counter += 1
        data = json.dumps(body).encode() if body is not None else b""
        mac = proof_mac(self.key, self.epoch, self.counter, method, path, data)
        headers = {**self.origin, "Content-Type": "application/json", "X-CSRF-Token": csrf,
                   PROOF_HEADER: f"{self.epoch}.{self.counter}.{mac}"}
        async with self.session.request(method, f"{self.base}{path}", data=data or None, headers=headers,
                                        timeout=aiohttp.ClientTimeout(total=30)) as answer:
            return await answer.json()

    async def play(self, until: float, times: list[float]) -> None:
        """Read the state, enter a foul, undo it: every 100 ms, each answer timed."""
        while time.monotonic() < until:
            started = time.monotonic()
            try:
                state = await self.call("GET", "/api/state")
                await self.call("POST", "/api/input", {"type": "foul", "seat": 3}, state["csrf"])
                await self.call("POST", "/api/undo", {}, state["csrf"])
                times.append((time.monotonic() - started) / 3)
            except (aiohttp.ClientError, OSError, TimeoutError):
                times.append(30.0)
            await asyncio.sleep(max(0.0, 0.1 - (time.monotonic() - started)))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


async def attack(link: str, port: int, seconds: float, guessers: int, slow_clients: int) -> Counter[str]:
    quiet: list[float] = []
    host = Host(link, port)
    await host.pair()
    await host.play(time.monotonic() + 3, quiet)
    until = time.monotonic() + seconds
    tally: Counter[str] = Counter()
    times: list[float] = []
    tasks = [asyncio.create_task(host.play(until, times))]
    tasks += [asyncio.create_task(guesser(n, port, until, tally)) for n in range(guessers)]
    tasks += [asyncio.create_task(slow(n, port, until, tally)) for n in range(slow_clients)]
    tasks += [asyncio.create_task(junk(n, port, until, tally)) for n in range(4)]
    await asyncio.gather(*tasks, return_exceptions=True)
    await host.session.close()
    tally_text = ", ".join(f"{k}: {v}" for k, v in sorted(tally.items()))
    print(f"flood for {seconds:.0f} s: {guessers} guessers, {slow_clients} half-open clients, 4 junk senders")
    print(f"  answers: {tally_text}")
    print(f"  host answer times, quiet: p50 {statistics.median(quiet) * 1000:.1f} ms, "
          f"p95 {percentile(quiet, 0.95) * 1000:.1f} ms")
    print(f"  host answer times under the flood: p50 {statistics.median(times) * 1000:.1f} ms, "
          f"p95 {percentile(times, 0.95) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms ({len(times)} rounds)")
    return tally


EVENING = 4 * 3600.0


def evening_chance(rate: float, seconds: float = EVENING) -> tuple[float, int]:
    """The chance that guesses at `rate` a second, each from a fresh address, hit the PIN
    over `seconds`, under the PIN rules as they are (Access on a virtual clock): a try
    the rules turn away before it is weighed costs the attacker only time. Also the
    number of tries weighed."""
    now = [0.0]
    logging.getLogger("voicehost.web.access").setLevel(logging.ERROR)   # its warning a PIN, not the bench's
    access = Access(set(), clock=lambda: now[0])
    chance, weighed, n = 0.0, 0, 0
    while now[0] < seconds:
        n += 1
        client = f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"
        wait = access.pin_wait(client)
        if wait > 0:   # turned away before it is read: the attacker waits it out
            now[0] += wait
            continue
        space = 10 ** len(access.pin)
        wrong = f"{(int(access.pin) + 1) % space:0{len(access.pin)}d}"
        chance += 1 / space   # a guess the attacker cannot tell from the rest: one PIN in `space`
        weighed += 1
        access.use_pin(wrong, client, b"k" * 32)
        if weighed > 100_000 and len(access.pin) == len(wrong):   # steady: the rest of the evening alike
            rest = int((seconds - now[0]) * rate)
            return chance + rest / space, weighed + rest
        now[0] += 1 / rate
    return chance, weighed


def main(seconds: float = 20.0, guessers: int = 16, slow_clients: int = 200) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the attack's own sockets
    folder = Path(tempfile.mkdtemp(prefix="voicehost-bench-pin-"))
    port = free_port()
    log = folder / "serve.log"
    proc = subprocess.Popen([sys.executable, "-m", "voicehost", "serve", "--port", str(port), "--journal",
                             str(folder / "j.jsonl")], stdout=log.open("w"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline, link = time.monotonic() + 30, None
        while link is None and time.monotonic() < deadline:
            match = re.search(r"Страница ведущего: (\S+)", log.read_text("utf-8"))
            link = match.group(1) if match else None
            time.sleep(0.1)
        assert link, log.read_text("utf-8")
        tally = asyncio.run(attack(link, port, seconds, guessers, slow_clients))
        printed = log.read_text("utf-8")
        replaced = printed.count("Много неверных PIN")
        weighed = tally["401"]
        sent = sum(tally[k] for k in ("401", "429", "400", "failed"))
        rate = sent / seconds
        print(f"  PIN guesses sent: {sent}; weighed against a PIN: {weighed} "
              f"= {weighed * 60 / seconds:.1f} a minute, over {replaced + 1} PINs "
              f"(chance of a hit: {evening_chance(rate, seconds)[0]:.1e}); PINs replaced: {replaced}")
        chance, tried = evening_chance(rate)
        print(f"  a 4-hour evening of guesses at this rate ({rate:.0f} a second), each from a new address: "
              f"{tried} weighed, chance of a right guess {chance:.1e}")
        kinds = Counter(line[:50] for line in printed.splitlines())
        print(f"  terminal lines in all: {len(printed.splitlines())}; most written: "
              + "; ".join(f"{n}× {line!r}" for line, n in kinds.most_common(3)))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(*(float(a) if i == 0 else int(a) for i, a in enumerate(sys.argv[1:])))
