"""Paired comparison of an intervention (or any harness B) against its reference A on
matched items: exact McNemar for pass/fail metrics, a paired bootstrap of the mean
difference with the sign test for graded ones (ANLS).

    paired_change({"item": 1.0, ...}, {"item": 0.0, ...}, graded=False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tether.stats.bootstrap import PairedObservation, paired_bootstrap
from tether.stats.mcnemar import mcnemar_exact
from tether.stats.sign_test import paired_sign_test

__all__ = ["PairedChange", "paired_change"]


@dataclass(frozen=True)
class PairedChange:
    n: int  # matched items
    reference: float  # mean score of A, in points (x100)
    changed: float  # mean score of B, in points
    delta: float  # B - A, in points (negative: the change harms)
    p_value: float
    test: str  # "mcnemar" | "sign"
    low: float | None = None  # bootstrap 95% interval of delta (graded only), in points
    high: float | None = None


def paired_change(reference: Mapping[str, float], changed: Mapping[str, float], *,
                  graded: bool, n_resamples: int = 2000, seed: int = 0) -> PairedChange:
    """B vs A on the items both scored (items missing from either side are dropped)."""
    items = sorted(set(reference) & set(changed))
    a = [float(reference[i]) for i in items]
    b = [float(changed[i]) for i in items]
    n = len(items)
    mean_a = 100 * sum(a) / n if n else 0.0
    mean_b = 100 * sum(b) / n if n else 0.0
    if not graded:
        lost = sum(1 for x, y in zip(a, b, strict=True) if x >= 1 and y < 1)
        won = sum(1 for x, y in zip(a, b, strict=True) if x < 1 and y >= 1)
        test = mcnemar_exact(lost, won)
        return PairedChange(n, mean_a, mean_b, mean_b - mean_a, test.p_value, "mcnemar")
    sign = paired_sign_test(a, b)
    boot = paired_bootstrap([PairedObservation(i, 0, x, y) for i, x, y in zip(items, a, b,
                                                                             strict=True)],
                            n_resamples=n_resamples, seed=seed)
    return PairedChange(n, mean_a, mean_b, mean_b - mean_a, sign.p_value, "sign",
                        100 * boot.low, 100 * boot.high)
