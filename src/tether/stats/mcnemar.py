"""McNemar's exact test for paired pass/fail outcomes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tether.stats._binomial import binomial_two_sided_half


@dataclass(frozen=True)
class McNemarResult:
    """Outcome of McNemar's exact test.

    ``b`` counts pairs where only A passed, ``c`` pairs where only B passed;
    ``n_discordant = b + c``. Concordant pairs (both passed or both failed) carry no
    information about the difference and are not part of the test.
    """

    b: int
    c: int
    n_discordant: int
    p_value: float


def mcnemar_exact(b: int, c: int) -> McNemarResult:
    """Two-sided exact McNemar test: binomial test of ``b`` in ``b + c`` at p = 0.5.

    ``b`` = pairs only A passed, ``c`` = pairs only B passed. With no discordant
    pairs the p-value is 1.0. Example: b=1, c=9 gives p = 0.021484375.
    """
    if b < 0 or c < 0:
        raise ValueError(f"b and c must be >= 0, got b={b}, c={c}")
    n = b + c
    return McNemarResult(b=b, c=c, n_discordant=n, p_value=binomial_two_sided_half(b, n))


def mcnemar_from_pairs(a_pass: Sequence[bool], b_pass: Sequence[bool]) -> McNemarResult:
    """McNemar's exact test from per-item outcomes of A and B on the same items."""
    if len(a_pass) != len(b_pass):
        raise ValueError(
            f"a_pass and b_pass must have the same length, got {len(a_pass)} and {len(b_pass)}"
        )
    only_a = sum(1 for x, y in zip(a_pass, b_pass, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a_pass, b_pass, strict=True) if y and not x)
    return mcnemar_exact(only_a, only_b)
