"""Exact sign test for paired comparisons (ties dropped)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tether.stats._binomial import binomial_two_sided_half


@dataclass(frozen=True)
class SignTestResult:
    """Outcome of a two-sided exact sign test.

    ``improved`` counts pairs where B beat A, ``regressed`` pairs where A beat B,
    ``ties`` pairs that were equal (dropped from the test; 0 when the counts were
    given directly). ``n_decisive = improved + regressed``.
    """

    improved: int
    regressed: int
    ties: int
    n_decisive: int
    p_value: float


def sign_test(improved: int, regressed: int, ties: int = 0) -> SignTestResult:
    """Two-sided exact binomial test of ``improved`` vs ``regressed`` at p = 0.5.

    Only decisive pairs enter the test; ``ties`` is carried into the result for
    reporting and does not change the p-value. With no decisive pairs the p-value
    is 1.0. Example: 17 improved, 2 regressed gives p = 7.286e-4.
    """
    for name, value in (("improved", improved), ("regressed", regressed), ("ties", ties)):
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    n = improved + regressed
    return SignTestResult(
        improved=improved,
        regressed=regressed,
        ties=ties,
        n_decisive=n,
        p_value=binomial_two_sided_half(improved, n),
    )


def paired_sign_test(
    a: Sequence[float], b: Sequence[float], higher_is_better: bool = True
) -> SignTestResult:
    """Sign test on paired values: ``a[i]`` is the baseline, ``b[i]`` the candidate.

    A pair counts as improved when B is better than A (``b > a`` if
    ``higher_is_better``, else ``b < a``), regressed when worse, and a tie when equal
    (exact float equality). NaN values are rejected.
    """
    if len(a) != len(b):
        raise ValueError(f"a and b must have the same length, got {len(a)} and {len(b)}")
    improved = regressed = ties = 0
    for x, y in zip(a, b, strict=True):
        if math.isnan(x) or math.isnan(y):
            raise ValueError("paired_sign_test got a NaN value")
        if x == y:
            ties += 1
        elif (y > x) == higher_is_better:
            improved += 1
        else:
            regressed += 1
    return sign_test(improved, regressed, ties)
