"""Exact two-sided binomial test at p = 0.5, by `scipy.stats.binomtest`.

Shared by the sign test and McNemar's exact test: both reduce to "of n decisive
(or discordant) pairs, k went one way; is that surprising if each way has
probability 1/2?".
"""

from __future__ import annotations


def binomial_two_sided_half(k: int, n: int) -> float:
    """Two-sided exact binomial p-value for k successes in n trials at p = 0.5.

    scipy's two-sided p-value sums every outcome at most as likely as the observed
    one; at p = 0.5 that is ``min(1, 2 * P(X <= min(k, n - k)))``. With ``n == 0``
    (no decisive pairs, which scipy refuses) the p-value is 1.0.
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    from scipy.stats import binomtest  # scipy.stats takes ~0.7 s to import: only when used

    return float(binomtest(k, n, 0.5, alternative="two-sided").pvalue)
