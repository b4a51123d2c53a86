"""A real browser on the page: the chromium the tests drive, its flags, a free
port, and the accessibility checks (axe-core, small targets)."""
from __future__ import annotations

import socket

from tests.conftest import ROOT

CHROMIUM = "/usr/bin/chromium"


FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


AXE = ROOT / "tests" / "web" / "node_modules" / "axe-core" / "axe.min.js"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def small_targets(page) -> list:
    """Visible controls and links smaller than 44 px in either direction."""
    return page.evaluate("""() => [...document.querySelectorAll('button, input, select, a')]
        .filter(e => e.offsetParent !== null)
        .map(e => [e.id || e.textContent.trim(), e.getBoundingClientRect()])
        .filter(([, r]) => r.width < 44 || r.height < 44).map(([name]) => name)""")


def axe_violations(page) -> list:
    page.evaluate(AXE.read_text("utf-8") + "\n;0")
    return page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                         ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))")
