"""Paired comparisons of two arms, as the paper reports them (its Appendix J).

On the (task, seed) pairs valid for both arms and measured on the metric: the relative
reduction of the first arm's mean error against the second's (PL, N-CLIP, LPIPS); for
PSNR the difference in dB; for SSIM, edge F1 and CLIP the relative improvement
(mean_first - mean_second) / mean_second. A 95% task bootstrap of that number
(`tether.stats.paired_bootstrap`, the run's resampling setting), wins / losses / ties,
and the exact two-sided sign test without ties; significant = the interval excludes 0
and p < ALPHA. `excluded` counts the pairs either arm ran but that are not valid and
measured in both: never compared, never zero.
"""

from __future__ import annotations

import math
from typing import Any

from tether.stats import PairedObservation, Resampling, paired_bootstrap, sign_test
from tether.systems.scene.results.metrics import METRICS, Scores

ALPHA = 0.05
Key = tuple[str, int]


def compare(first: dict[Key, Scores | None], second: dict[Key, Scores | None], key: str,
            higher: bool, resampling: Resampling) -> dict[str, Any] | None:
    """One metric's paired cell; None when no pair has the metric on both sides.

    `first` / `second` map every trial key of the arm to its scores (None: invalid)."""
    keys = sorted(k for k in set(first) & set(second)
                  if (first[k] or {}).get(key) is not None
                  and (second[k] or {}).get(key) is not None)
    if not keys:
        return None
    excluded = len(set(first) | set(second)) - len(keys)
    a = [float(second[k][key]) for k in keys]  # type: ignore[index,arg-type]  # the reference
    b = [float(first[k][key]) for k in keys]  # type: ignore[index,arg-type]
    records = [PairedObservation(task=k[0], seed=k[1], a=x, b=y)
               for k, x, y in zip(keys, a, b, strict=True)]
    n, seed = resampling.n_resamples, resampling.seed
    if key == "psnr":
        boot = paired_bootstrap(records, "mean_diff", n_resamples=n, seed=seed)
        est, low, high, unit = boot.estimate, boot.low, boot.high, "dB"
    else:
        boot = paired_bootstrap(records, "relative_reduction", n_resamples=n, seed=seed)
        est, low, high, unit = boot.estimate, boot.low, boot.high, "%"  # percent already
        if higher:  # relative improvement of a similarity: the reduction's negative
            est, low, high = 0.0 - est, 0.0 - high, 0.0 - low  # 0.0 - x: never -0.0
    wins = sum((y > x) if higher else (y < x) for x, y in zip(a, b, strict=True))
    losses = sum((y < x) if higher else (y > x) for x, y in zip(a, b, strict=True))
    ties = len(keys) - wins - losses
    p = sign_test(wins, losses, ties).p_value
    defined = not any(math.isnan(v) for v in (est, low, high))
    return {"n": len(keys), "excluded": excluded, "estimate": est if defined else None,
            "low": low if defined else None, "high": high if defined else None, "unit": unit,
            "wins": wins, "losses": losses, "ties": ties, "p": p,
            "significant": bool(defined and (low > 0 or high < 0) and p < ALPHA)}


def compare_all(first: dict[Key, Scores | None], second: dict[Key, Scores | None],
                resampling: Resampling) -> dict[str, dict[str, Any] | None]:
    """compare() for every metric."""
    return {m.key: compare(first, second, m.key, m.higher, resampling) for m in METRICS}
