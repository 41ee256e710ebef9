"""Exact two-sided binomial test at p = 0.5, in exact integer arithmetic.

Shared by the sign test and McNemar's exact test: both reduce to "of n decisive
(or discordant) pairs, k went one way; is that surprising if each way has
probability 1/2?".
"""

from __future__ import annotations

from math import comb


def binomial_two_sided_half(k: int, n: int) -> float:
    """Two-sided exact binomial p-value for k successes in n trials at p = 0.5.

    Convention: the distribution is symmetric, so the two-sided p-value is
    ``min(1, 2 * P(X <= min(k, n - k)))``; this equals the "sum of all outcomes at
    most as likely as the observed one" definition used by ``scipy.stats.binomtest``.
    The tail is summed with integers and divided once, so the result is the correctly
    rounded float of the exact rational value. With ``n == 0`` the p-value is 1.0.
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    m = min(k, n - k)
    tail = sum(comb(n, i) for i in range(m + 1))
    return min(1.0, (2 * tail) / (2**n))
