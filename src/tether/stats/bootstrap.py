"""Paired, task-clustered bootstrap confidence intervals.

Resampling is two-level (nested): tasks are drawn with replacement, and within
each drawn task its seeds are drawn with replacement too (``resample_seeds=False``
keeps every seed of a drawn task instead). Tasks are the unit of generalization;
seeds are repeated measurements nested inside a task, never independent units.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from tether.stats._clusters import statistic_from_sums, task_matrix

Statistic = Literal["mean_diff", "relative_reduction"]
STATISTICS: tuple[str, ...] = ("mean_diff", "relative_reduction")
_CHUNK_ELEMENTS = 2_000_000  # bound on resamples x tasks x seeds held in memory at once


@dataclass(frozen=True)
class PairedObservation:
    """One trial's paired measurement: A (baseline) and B (candidate) on one task and seed."""

    task: str
    seed: int | str
    a: float
    b: float


@dataclass(frozen=True)
class BootstrapResult:
    """A point estimate on the full data and its percentile bootstrap interval.

    ``n_dropped`` counts resamples discarded because the statistic was undefined in
    them (``relative_reduction`` with sum(a) == 0); the interval uses the other
    ``n_resamples - n_dropped``. If every resample was dropped, low and high are nan.
    """

    estimate: float
    low: float
    high: float
    n_resamples: int
    seed: int
    ci: float
    n_tasks: int
    statistic: str
    n_dropped: int = 0


def paired_bootstrap(
    records: Sequence[PairedObservation],
    statistic: Statistic = "mean_diff",
    n_resamples: int = 10_000,
    seed: int = 0,
    ci: float = 0.95,
    *,
    resample_seeds: bool = True,
) -> BootstrapResult:
    """Percentile bootstrap CI for a paired statistic of B versus A.

    Statistics (over all pairs of the data or of a resample):
    - ``"mean_diff"``: mean(b) - mean(a); positive means B scored higher.
    - ``"relative_reduction"``: 100 * (1 - sum(b) / sum(a)), for defect counts;
      positive means B has fewer defects. With sum(a) == 0 on the full data the
      estimate is nan; resamples with sum(a) == 0 are dropped and counted.

    The interval is the (1 - ci)/2 and (1 + ci)/2 quantiles (numpy's default linear
    interpolation) of the resampled statistic. Randomness comes only from
    ``numpy.random.default_rng(seed)``; results do not depend on record order.
    Each (task, seed) pair may appear once; tasks may have different seed counts.
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    a, b, counts = task_matrix(records)
    n_tasks, width = a.shape
    estimate = statistic_from_sums(statistic, a.sum(), b.sum(), counts.sum())

    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_ELEMENTS // (n_tasks * width))
    values: list[np.ndarray] = []
    done = 0
    while done < n_resamples:
        r = min(chunk, n_resamples - done)
        values.append(_resample(rng, a, b, counts, r, statistic, resample_seeds))
        done += r
    stats = np.concatenate(values)
    kept = stats[~np.isnan(stats)]
    if kept.size:
        low, high = np.quantile(kept, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0])
        low, high = float(low), float(high)
    else:
        low = high = math.nan
    return BootstrapResult(
        estimate=estimate,
        low=low,
        high=high,
        n_resamples=n_resamples,
        seed=seed,
        ci=ci,
        n_tasks=n_tasks,
        statistic=statistic,
        n_dropped=int(stats.size - kept.size),
    )


def bootstrap_mean(
    values: Sequence[tuple[str, int | str, float]],
    n_resamples: int = 10_000,
    seed: int = 0,
    ci: float = 0.95,
) -> BootstrapResult:
    """Percentile bootstrap CI of a mean (e.g. mean defects per trial) of (task, seed, value).

    The same two-level resampling as ``paired_bootstrap`` (tasks, then seeds nested in
    them): it is the paired mean difference against a baseline of zeros, so the
    estimate is the plain mean over all values and ``statistic`` reads "mean".
    """
    records = [PairedObservation(task=t, seed=s, a=0.0, b=float(v)) for t, s, v in values]
    result = paired_bootstrap(records, "mean_diff", n_resamples=n_resamples, seed=seed, ci=ci)
    return replace(result, statistic="mean")


def _resample(
    rng: np.random.Generator,
    a: np.ndarray,
    b: np.ndarray,
    counts: np.ndarray,
    r: int,
    statistic: str,
    resample_seeds: bool,
) -> np.ndarray:
    """Statistic for ``r`` two-level resamples; nan where it is undefined."""
    n_tasks, width = a.shape
    tasks = rng.integers(0, n_tasks, size=(r, n_tasks))  # (r, T) drawn task indices
    drawn_counts = counts[tasks]  # (r, T) seeds available in each drawn task
    if resample_seeds:
        # Column j < count is a seed drawn uniformly from that task's seeds; the
        # padded columns j >= count draw index 0 and are masked out below.
        slots = np.arange(width)
        valid = slots < drawn_counts[..., None]  # (r, T, S)
        high = np.where(valid, drawn_counts[..., None], 1)
        seeds = rng.integers(0, high)
        sum_a = (a[tasks[..., None], seeds] * valid).sum(axis=(1, 2))
        sum_b = (b[tasks[..., None], seeds] * valid).sum(axis=(1, 2))
    else:
        sum_a = a.sum(axis=1)[tasks].sum(axis=1)  # padding is zero, so row sums are exact
        sum_b = b.sum(axis=1)[tasks].sum(axis=1)
    return statistic_from_sums(statistic, sum_a, sum_b, drawn_counts.sum(axis=1))
