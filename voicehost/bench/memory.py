"""The whole process's memory, as the latency bench prints it."""
from __future__ import annotations

from pathlib import Path


def rss_now_mb() -> float | None:
    """The process's resident memory now (Linux /proc), beside the peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory(peak_target: int) -> str:
    now = rss_now_mb()
    return (f"{peak_rss_mb():.0f} MB (target <= {peak_target} MB)"
            + ("" if now is None else f", {now:.0f} MB resident now"))
