"""Benchmark: a POST on the host page -> the update on another host screen's live
channel, in ms (aiohttp test server on loopback). Run:
    .venv/bin/python -m tests.web.bench_push"""
from __future__ import annotations

import asyncio
import json
import statistics
import time

from tests.conftest import until
from tests.webparts import page, paired
from voicehost.game.model import Phase


async def main() -> None:
    async with page() as (client, live, access):
        state = await paired(client, access)
        until(live, Phase.SPEECH)
        ws = await client.ws_connect("/api/ws", headers={"Origin": client.origin})
        await asyncio.wait_for(ws.receive_str(), 5)
        times = []
        for i in range(40):
            seat = 1 + (i // 2) % 9
            kind = "foul" if i % 2 == 0 else "unfoul"
            start = time.perf_counter()
            response = await client.post("/api/input", json={"type": kind, "seat": seat},
                                         headers={"Origin": client.origin, "X-CSRF-Token": state["csrf"]})
            assert response.status == 200, await response.text()
            want = 1 if kind == "foul" else 0
            while True:
                pushed = json.loads(await asyncio.wait_for(ws.receive_str(), 5))["state"]
                if pushed["seats"][seat - 1]["fouls"] == want:
                    break
            times.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.02)
        times.sort()
        print(f"POST -> another host screen: median {statistics.median(times):.1f} ms, "
              f"max {times[-1]:.1f} ms over {len(times)}")
        await ws.close()

if __name__ == "__main__":
    asyncio.run(main())
