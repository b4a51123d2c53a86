"""This machine's address on the local network, for a link a phone can open.

On stock Debian and Raspberry Pi OS the hostname resolves to 127.0.1.1, so the
name alone is no help: the interfaces are asked too. No packet is sent: a UDP
socket "connected" to a private address only picks a route and a source."""
from __future__ import annotations

import ipaddress
import socket
import struct
from collections.abc import Callable, Iterable

# Private destinations whose route tells the source address; nothing is sent to them.
PROBES = ("10.254.254.254", "192.168.254.254", "172.31.254.254")
SIOCGIFADDR = 0x8915


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def by_hostname(hostname: str) -> list[str]:
    try:
        return [str(info[4][0]) for info in socket.getaddrinfo(hostname, None, socket.AF_INET)]
    except OSError:
        return []


def by_route(probes: Iterable[str] = PROBES) -> list[str]:
    found = []
    for probe in probes:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            try:
                udp.connect((probe, 9))
                found.append(udp.getsockname()[0])
            except OSError:
                continue
    return found


def by_interfaces() -> list[str]:
    """The IPv4 address of every interface (Linux ioctl; empty elsewhere)."""
    try:
        import fcntl
    except ImportError:
        return []
    found = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        for name in names:
            try:
                packed = fcntl.ioctl(udp.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue
            found.append(socket.inet_ntoa(packed[20:24]))
    return found


def lan_address(hostname: Callable[[], str] = socket.gethostname,
                lookup: Callable[[str], list[str]] = by_hostname,
                route: Callable[[], list[str]] = by_route,
                interfaces: Callable[[], list[str]] = by_interfaces) -> str:
    """The best address for a phone: a private one if any, else any usable one,
    else 127.0.0.1 (no network: the page is still served on this machine)."""
    candidates = [*lookup(hostname()), *route(), *interfaces()]
    usable = [a for a in dict.fromkeys(candidates) if _usable(a)]
    private = [a for a in usable if ipaddress.IPv4Address(a).is_private]
    return (private or usable or ["127.0.0.1"])[0]


def local_names(hostname: Callable[[], str] = socket.gethostname,
                interfaces: Callable[[], list[str]] = by_interfaces,
                route: Callable[[], list[str]] = by_route) -> tuple[str, ...]:
    """Every name this machine answers to on the LAN: its addresses, its hostname
    and its mDNS name (hostname.local)."""
    name = hostname()
    names = [*interfaces(), *route(), "127.0.1.1"]
    if name:
        names += [name, f"{name}.local"]
    return tuple(dict.fromkeys(n.lower() for n in names if n))
