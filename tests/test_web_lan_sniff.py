"""A listener on the table's LAN (issue 18, S1): the two namespaces and veth pair
of the LAN browser test, a raw packet socket on the phone's side of the wire
(what a laptop on the club's Wi-Fi sees), and `voicehost run --text --lan` in
the computer's namespace. The phone pairs with the printed link, a laptop with
the PIN (approved from the phone), the deal and the night's shot and checks are
entered, the roles are shown and the protocol downloaded. The capture then
holds no PIN, no cookie, no CSRF token, no night answer and no role, and the two
answers of each check (each entered twice, an undo between) come in TLS records
of the same sizes; replaying
every captured stream and trying every number seen in the clear pairs nothing
and changes nothing in the journal."""
from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

from tests.lanparts import PHONE_IP, SERVER_IP, lan  # noqa: F401  (the fixture)
from voicehost.web.padding import BUCKET

ROOT = Path(__file__).resolve().parent.parent
PORT = 18775
SETTINGS = ["speech_seconds=1", "warning_seconds=0", "mafia_meet_seconds=1", "don_seconds=8", "sheriff_seconds=8",
            "number_call_seconds=0.1", "vote_seconds=0.2", "last_word_seconds=1", "tie_speech_seconds=1"]


def _streams(capture: Path) -> dict[tuple[str, int, str, int], bytes]:
    """TCP payloads by (source, source port, destination, destination port), from raw Ethernet frames."""
    data, at, flows = capture.read_bytes(), 0, {}
    seen: set[tuple] = set()
    while at + 4 <= len(data):
        (size,) = struct.unpack("!I", data[at:at + 4])
        frame = data[at + 4:at + 4 + size]
        at += 4 + size
        if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
            continue
        ip = frame[14:]
        header, total = (ip[0] & 0x0F) * 4, struct.unpack("!H", ip[2:4])[0]
        tcp = ip[header:total]
        sport, dport, seq = struct.unpack("!HHI", tcp[:8])
        payload = tcp[(tcp[12] >> 4) * 4:]
        key = (".".join(map(str, ip[12:16])), sport, ".".join(map(str, ip[16:20])), dport)
        if payload and (key, seq) not in seen:  # a frame seen twice on the wire is counted once
            seen.add((key, seq))
            flows[key] = flows.get(key, b"") + payload
    return flows


def _answer_records(stream: bytes) -> list[int]:
    """The lengths of the TLS records a server sent on one connection after its
    handshake: the application-data records after the four that TLS 1.3 encrypts
    into the handshake (extensions, certificate, its signature, whose ECDSA length
    varies by a byte, and finished)."""
    at, sizes = 0, []
    while at + 5 <= len(stream):
        size = struct.unpack("!H", stream[at + 3:at + 5])[0]
        if stream[at] == 23:
            sizes.append(size)
        at += 5 + size
    return sizes[4:]


def test_a_listener_on_the_lan_learns_no_secret_and_cannot_pair_or_act(lan, tmp_path):  # noqa: F811
    server_ns, phone_ns = lan
    tag = f"vh{os.getpid() % 100000}"
    capture, stop = tmp_path / "capture.bin", tmp_path / "stop"
    sniffer = subprocess.Popen(["ip", "netns", "exec", phone_ns, sys.executable, str(ROOT / "tests/web/sniff.py"),
                                f"{tag}b", str(capture), str(stop), "150"])
    journal, log = tmp_path / "game.jsonl", tmp_path / "server.log"
    config = tmp_path / "config.toml"
    config.write_text("[web]\noverlay_delay = 0.0\n", "utf-8")  # the stream's roles mode at once, to sniff it
    command = ["ip", "netns", "exec", server_ns, sys.executable, "-m", "voicehost", "run", "--text", "--mute",
               "--lan", "--port", str(PORT), "--journal", str(journal), "--config", str(config)]
    for pair in SETTINGS:
        command += ["--set", pair]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=log.open("w"), stderr=subprocess.STDOUT,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 30
        link = None
        while link is None and time.monotonic() < deadline:
            match = re.search(r"Страница ведущего: (\S+)", log.read_text("utf-8"))
            link = match.group(1) if match else None
            assert server.poll() is None, log.read_text("utf-8")
            time.sleep(0.1)
        assert link and link.startswith(f"https://{SERVER_IP}:{PORT + 1}/pair/") and "#" in link, link
        while not Path(str(capture) + ".ready").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        first_pin = re.search(r"введите PIN (\d{6})", log.read_text("utf-8")).group(1)

        seen_file = tmp_path / "seen.json"
        phone = subprocess.run(["ip", "netns", "exec", phone_ns, sys.executable, str(ROOT / "tests/web/lan_phone.py"),
                                link, str(log), str(seen_file)], capture_output=True, text=True, timeout=150,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert phone.returncode == 0, phone.stderr[-3000:] + log.read_text("utf-8")[-2000:]
        seen = json.loads(seen_file.read_text("utf-8"))
        assert seen["answers"] and seen["roles"]["6"] == "sheriff" and "шериф" in seen["protocol"]
        assert seen["overlay_roles"]["6"] == "sheriff"  # the stream's roles mode was read (over HTTPS)

        stop.touch()
        sniffer.wait(timeout=10)
        flows = _streams(capture)
        to_server = {k: v for k, v in flows.items() if k[2] == SERVER_IP}
        heard = b"".join(flows.values())
        assert sum(len(v) for k, v in to_server.items() if k[3] == PORT + 1) > 2000  # the phone's TLS was heard
        assert all(v[:1] == b"\x16" for k, v in to_server.items() if k[3] == PORT + 1)  # each a TLS handshake

        # Each check's two answers (Шериф / не Шериф, чёрный / красный), each read on a
        # connection of its own: the listener sees records of the same sizes.
        for kind, ports in seen["alone"].items():
            first, second = (_answer_records(flows[(SERVER_IP, PORT + 1, PHONE_IP, port)]) for port in ports)
            assert first == second and max(first) >= BUCKET, (kind, first, second)

        token, _, fragment = link.split("/pair/", 1)[1].partition("#")
        cookies = [c.split("=", 1)[1] for c in (seen["phone_cookie"], seen["laptop_cookie"])]
        assert b"GET /overlay HTTP/1.1" in heard  # the public overlay went over plain HTTP, and was heard
        secrets = [first_pin, seen["pin"], token, fragment, seen["csrf"], *cookies, *seen["answers"],
                   seen["overlay_key"], "sheriff_check", "don_check", '"role"', '"role_name"', '"roles_mode"',
                   "6,sheriff", "6,шериф", "чёрный", "Шериф", "vh_session"]
        # The public board's lines are what the room hears aloud (they name the Sheriff's
        # wake-up, never a seat): those alone are taken out before looking for a role's name.
        public = heard
        for line in ("Просыпается Дон и ищет Шерифа", "Просыпается Шериф", "Шериф засыпает"):
            public = public.replace(f'"text": "{line}"'.encode(), b"")
        for secret in secrets:
            assert secret.encode() not in public, secret

        # The listener acts: every captured stream replayed, every 6-digit number seen in clear tried.
        before = journal.read_bytes()
        pins = sorted(set(re.findall(rb"(?<!\d)\d{6}(?!\d)", heard)))[:50]
        board = (b"GET /overlay HTTP/1.1", b"GET /api/table/ws HTTP/1.1")  # public, answered by design
        streams = {"replay": [{"port": k[3], "data": v.hex()} for k, v in to_server.items() if not v.startswith(board)],
                   "pins": [p.decode() for p in pins] + [first_pin]}
        (tmp_path / "streams.json").write_text(json.dumps(streams))
        attack = subprocess.run(["ip", "netns", "exec", phone_ns, sys.executable, str(ROOT / "tests/web/replay.py"),
                                 str(tmp_path / "streams.json"), SERVER_IP, str(PORT), str(PORT + 1)],
                                capture_output=True, text=True, timeout=120)
        assert attack.returncode == 0, attack.stderr
        result = json.loads(attack.stdout)
        for reply in result["replies"]:
            answer = bytes.fromhex(reply)
            assert not answer.startswith(b"HTTP/1.1 200") and b"vh_session" not in answer, answer[:80]
        assert all(not status.startswith("HTTP/1.1 2") for status in result["pins"]), result["pins"]
        assert journal.read_bytes() == before
        printed = log.read_text("utf-8")
        assert printed.count("Устройство подключено") == 1 and printed.count("просит подключения") == 1
        devices = json.loads(journal.with_name(journal.name + ".devices").read_text())["devices"]
        assert len(devices) == 2  # exactly the phone and the laptop it approved
    finally:
        stop.touch()
        if sniffer.poll() is None:
            sniffer.kill()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
