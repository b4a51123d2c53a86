"""The listener acts on what it captured: each client-to-server TCP stream is sent
again on a fresh connection (a replay), and every PIN-like number seen in the
clear is tried on the plain HTTP port. Prints one JSON line of what came back.

    python tests/web/replay.py STREAMS.json HOST HTTP_PORT HTTPS_PORT"""
from __future__ import annotations

import json
import socket
import sys


def exchange(host: str, port: int, data: bytes) -> bytes:
    try:
        with socket.create_connection((host, port), timeout=3) as conn:
            conn.sendall(data)
            conn.settimeout(3)
            answer = b""
            while len(answer) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                answer += chunk
            return answer
    except OSError:
        return b""


def main(streams_file: str, host: str, http_port: int, https_port: int) -> None:
    streams = json.loads(open(streams_file).read())
    replies = [exchange(host, int(s["port"]), bytes.fromhex(s["data"]))[:200].hex() for s in streams["replay"]]
    pins = []
    for pin in streams["pins"][:50]:
        body = json.dumps({"pin": pin, "pub": "A" * 87}).encode()
        request = (f"POST /pin HTTP/1.1\r\nHost: {host}:{http_port}\r\nOrigin: http://{host}:{http_port}\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        pins.append(exchange(host, http_port, request.encode() + body)[:12].decode("latin-1"))
    print(json.dumps({"replies": replies, "pins": pins}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
