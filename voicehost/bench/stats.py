"""The statistics every bench prints: percentiles and spreads of timings."""
from __future__ import annotations

import statistics


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def spread_ms(values: list[float], digits: int = 0) -> str:
    """p50, p95 and max of timings in seconds, printed in milliseconds."""
    if not values:
        return "none"
    return (f"p50 {1000 * percentile(values, 0.5):.{digits}f} ms, "
            f"p95 {1000 * percentile(values, 0.95):.{digits}f} ms, max {1000 * max(values):.{digits}f} ms")


def min_median_max_ms(values: list[float]) -> str:
    return "/".join(f"{1000 * v:.0f}" for v in (min(values), statistics.median(values), max(values))) + " ms"
