"""Wilson score interval for a binomial proportion."""

from __future__ import annotations

import math

from scipy.stats import norm


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided Wilson score interval (no continuity correction) for successes / n.

    Uses z = Phi^-1((1 + confidence) / 2). The interval is clipped to [0, 1]; with
    ``n == 0`` it is (0.0, 1.0). Example: 8 of 10 at 95% gives (0.490, 0.943).
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n == 0:
        return (0.0, 1.0)
    z = float(norm.ppf((1.0 + confidence) / 2.0))
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = (z / denom) * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == n else min(1.0, center + half)
    return (low, high)
