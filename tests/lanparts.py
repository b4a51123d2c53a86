"""Two network namespaces joined by a veth pair, standing for the table's
computer and the host's phone (root and iproute2 needed, else the test skips)."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

SERVER_IP, PHONE_IP = "10.77.0.1", "10.77.0.2"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=20)


@pytest.fixture
def lan(tmp_path):
    """Two namespaces joined by a veth pair; removed whatever happens."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2's `ip`")
    tag = f"vh{os.getpid() % 100000}"
    server_ns, phone_ns = f"{tag}srv", f"{tag}ph"
    hosts_dir = Path("/etc/netns") / server_ns
    made: list[str] = []

    def cleanup() -> None:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        shutil.rmtree(hosts_dir, ignore_errors=True)
        try:
            hosts_dir.parent.rmdir()
        except OSError:
            pass

    try:
        for ns in (server_ns, phone_ns):
            _ip("netns", "add", ns)
            made.append(ns)
        _ip("link", "add", f"{tag}a", "type", "veth", "peer", "name", f"{tag}b")
        _ip("link", "set", f"{tag}a", "netns", server_ns)
        _ip("link", "set", f"{tag}b", "netns", phone_ns)
        for ns, dev, address in ((server_ns, f"{tag}a", SERVER_IP), (phone_ns, f"{tag}b", PHONE_IP)):
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        # `ip netns exec` puts /etc/netns/<ns>/hosts over /etc/hosts: the Debian way.
        hosts_dir.mkdir(parents=True, exist_ok=True)
        (hosts_dir / "hosts").write_text(f"127.0.0.1 localhost\n127.0.1.1 {socket.gethostname()}\n")
    except (subprocess.CalledProcessError, OSError) as exc:
        cleanup()
        reason = exc.stderr.strip() if isinstance(exc, subprocess.CalledProcessError) else str(exc)
        pytest.skip(f"cannot create network namespaces here: {reason}")
    try:
        yield server_ns, phone_ns
    finally:
        cleanup()
