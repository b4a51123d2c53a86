"""A listener on the LAN: every frame on one interface (a raw AF_PACKET socket, as
tcpdump opens), written length-prefixed to a file until a stop file appears or
the time runs out. Run as root inside a network namespace.

    python tests/web/sniff.py IFACE OUT STOPFILE SECONDS"""
from __future__ import annotations

import os
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003


def main(iface: str, out: str, stop: str, seconds: float) -> None:
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(ETH_P_ALL))
    raw.bind((iface, 0))
    raw.settimeout(0.2)
    deadline = time.monotonic() + seconds
    with open(out + ".part", "wb") as capture:
        open(out + ".ready", "w").close()
        while time.monotonic() < deadline and not os.path.exists(stop):
            try:
                frame = raw.recv(65535)
            except TimeoutError:
                continue
            capture.write(struct.pack("!I", len(frame)) + frame)
    os.replace(out + ".part", out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]))
