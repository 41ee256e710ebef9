"""Wilson score interval for a binomial proportion, by scipy's `proportion_ci`."""

from __future__ import annotations


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided Wilson score interval (no continuity correction) for successes / n.

    `scipy.stats.binomtest(...).proportion_ci(method="wilson")`, which uses
    z = Phi^-1((1 + confidence) / 2) and gives exactly 0 (1) as the low (high) end
    when no (every) trial succeeded. With ``n == 0`` (which scipy refuses) it is
    (0.0, 1.0). Example: 8 of 10 at 95% gives (0.490, 0.943).
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n == 0:
        return (0.0, 1.0)
    from scipy.stats import binomtest  # scipy.stats takes ~0.7 s to import: only when used

    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return (max(0.0, float(ci.low)), min(1.0, float(ci.high)))
