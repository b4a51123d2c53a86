"""Issue 30, item 5: the page's server out of open files says so in one line, not a
traceback a second; its TLS has no CBC suites, its HTTPS answers carry HSTS, and
no answer names the server's version."""
from __future__ import annotations

import asyncio
import io
import os
import resource
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import run_async

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(tmp: Path, *args: str, files: int | None = None) -> tuple[subprocess.Popen[bytes], Path, int]:
    port, log = _free_port(), tmp / "serve.log"

    def limit() -> None:
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    proc = subprocess.Popen([sys.executable, "-m", "voicehost", "serve", "--port", str(port), "--journal",
                             str(tmp / "j.jsonl"), *args], stdout=log.open("w"), stderr=subprocess.STDOUT,
                            preexec_fn=limit, env={**os.environ, "PYTHONUNBUFFERED": "1"}, cwd=ROOT)
    deadline = time.monotonic() + 30
    while "Страница ведущего" not in log.read_text("utf-8"):
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text("utf-8")
        time.sleep(0.1)
    return proc, log, port


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_out_of_open_files_a_flood_prints_one_line_not_a_traceback_a_second(tmp_path):
    """The audit: at 1,024 open files a flood printed 88 six-line tracebacks. Here the
    server may open 120 files, and 200 silent connections hold them for 4 seconds:
    asyncio retries the failed accept each second."""
    proc, log, port = _serve(tmp_path, files=120)
    held = []
    try:
        for _ in range(200):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        deadline = time.monotonic() + 15
        while "open files" not in log.read_text("utf-8"):
            assert time.monotonic() < deadline, log.read_text("utf-8")[-2000:]
            time.sleep(0.1)
        time.sleep(3)   # three more failed accepts, each a traceback before
    finally:
        for connection in held:
            connection.close()
        _stop(proc)
    printed = log.read_text("utf-8")
    assert "Traceback" not in printed, printed[-2000:]
    assert sum("open files" in line for line in printed.splitlines()) == 1, printed[-2000:]


async def _lan_server(tmp: Path):
    from voicehost.config import Config
    from voicehost.live import AudioClock, LiveTable
    from voicehost.live.table import open_table
    from voicehost.rules import rules_for
    from voicehost.web.server import start_server

    game, writer, entries, _ = open_table(rules_for("4mafia"), tmp / "game.jsonl", resume=False)
    live = LiveTable(game, AudioClock(), journal=writer, entries=entries)
    out = io.StringIO()
    server = await start_server(live, Config(), lan=True, port=0, out=out)
    printed = out.getvalue()
    link = next(w for w in printed.split() if "/pair/" in w)
    table = next(w for w in printed.split() if "/table?tv=" in w)
    secure, plain = (f"{scheme}://127.0.0.1:{url.split('/')[2].rsplit(':', 1)[1]}"
                     for scheme, url in (("https", link), ("http", table)))
    return server, writer, secure, plain


def _client(ciphers: str | None = None, tls12: bool = False) -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    if tls12:
        context.maximum_version = ssl.TLSVersion.TLSv1_2
    if ciphers:
        context.set_ciphers(ciphers)
    return context


def test_https_offers_no_cbc_suite_and_still_shakes_hands_with_tls_1_2_aead(tmp_path):
    from voicehost.web.tls import table_certificate

    context, _ = table_certificate(None, ["127.0.0.1"])
    offered = [c["name"] for c in context.get_ciphers()]
    assert offered and all("GCM" in n or "CHACHA20" in n for n in offered), offered

    async def go():
        server, writer, secure, _ = await _lan_server(tmp_path)
        port = int(secure.rsplit(":", 1)[1])
        try:
            for ciphers in ("ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256:ECDHE-ECDSA-AES256-SHA384"
                            ":ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA",):
                with pytest.raises((ssl.SSLError, ConnectionError)):   # a client offering only CBC is refused
                    await asyncio.wait_for(asyncio.open_connection(
                        "127.0.0.1", port, ssl=_client(ciphers, tls12=True)), 10)
            _, tls = await asyncio.wait_for(asyncio.open_connection(
                "127.0.0.1", port, ssl=_client("ECDHE+AESGCM", tls12=True)), 10)
            assert "GCM" in tls.get_extra_info("ssl_object").cipher()[0]
            tls.close()
        finally:
            await server.cleanup()
            writer.close()
    run_async(go())


def test_https_answers_carry_hsts_and_no_answer_names_a_version(tmp_path):
    async def go():
        server, writer, secure, plain = await _lan_server(tmp_path)
        try:
            async with aiohttp.ClientSession() as session:
                answers = [await session.get(f"{secure}{path}", ssl=_client(), allow_redirects=False)
                           for path in ("/pin", "/api/epoch", "/static/style.css", "/nothing")]
                assert all(a.headers.get("Strict-Transport-Security", "").startswith("max-age=") for a in answers)
                async with session.ws_connect(f"{plain}/api/table/ws", headers={"Origin": plain}) as tv:
                    upgrade = tv._response.headers
                answers += [await session.get(f"{plain}{path}", allow_redirects=False) for path in ("/table", "/")]
                headers = [a.headers for a in answers] + [upgrade]
                assert all(h["Server"] == "voicehost" for h in headers), [h.get("Server") for h in headers]
                assert "Strict-Transport-Security" not in answers[-1].headers   # never on plain HTTP
            reader, raw = await asyncio.open_connection("127.0.0.1", int(plain.rsplit(":", 1)[1]))
            raw.write(b"BAD\x00LINE / HTTP/1.1\r\n\r\n")   # aiohttp's own refusal
            head = (await asyncio.wait_for(reader.read(4096), 5)).decode("latin-1")
            raw.close()
            assert " 400 " in head.split("\r\n")[0] and "Server: voicehost\r\n" in head, head
        finally:
            await server.cleanup()
            writer.close()
    run_async(go())
