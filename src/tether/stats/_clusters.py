"""The bootstrap's machinery: paired records as a task x seed matrix, and the two-level
(task, then seed) resampling of that matrix; or the records as flat pair vectors, and
their one-level resampling (the bootstrap over pairs)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tether.stats.paired import PairedObservation

_CHUNK_ELEMENTS = 2_000_000  # bound on resamples x tasks x seeds held in memory at once


def _seed_key(seed: int | str) -> tuple[int, int, str]:
    return (0, seed, "") if isinstance(seed, int) else (1, 0, str(seed))


def task_matrix(
    records: Sequence[PairedObservation],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (a, b, counts): arrays of shape (T, S), (T, S), (T,).

    Tasks are sorted by name and seeds within a task by value (ints before strs), so
    the layout does not depend on record order. Row t holds task t's seeds in its
    first ``counts[t]`` columns; the padding columns are 0.0.
    """
    if not records:
        raise ValueError("paired_bootstrap needs at least one record")
    by_task: dict[str, dict[int | str, tuple[float, float]]] = {}
    for rec in records:
        if not (math.isfinite(rec.a) and math.isfinite(rec.b)):
            raise ValueError(f"non-finite value in task {rec.task!r}, seed {rec.seed!r}")
        seeds = by_task.setdefault(rec.task, {})
        if rec.seed in seeds:
            raise ValueError(f"duplicate observation for task {rec.task!r}, seed {rec.seed!r}")
        seeds[rec.seed] = (float(rec.a), float(rec.b))
    names = sorted(by_task)
    width = max(len(s) for s in by_task.values())
    a = np.zeros((len(names), width))
    b = np.zeros((len(names), width))
    counts = np.zeros(len(names), dtype=np.int64)
    for t, name in enumerate(names):
        seeds = by_task[name]
        for j, key in enumerate(sorted(seeds, key=_seed_key)):
            a[t, j], b[t, j] = seeds[key]
        counts[t] = len(seeds)
    return a, b, counts


def pair_vectors(records: Sequence[PairedObservation]) -> tuple[np.ndarray, np.ndarray, int]:
    """(a, b, tasks): the pairs as two vectors in (task, seed) order, and the task count.

    The same checks as `task_matrix` (finite values, one observation per pair); the
    order is fixed so a resample does not depend on the records' order."""
    a, b, counts = task_matrix(records)
    valid = np.arange(a.shape[1]) < counts[:, None]
    return a[valid], b[valid], a.shape[0]


def resampled_pairs(rng: np.random.Generator, a: np.ndarray, b: np.ndarray,
                    n_resamples: int, statistic: str) -> np.ndarray:
    """The statistic of ``n_resamples`` draws of len(a) pairs with replacement, in
    memory-bounded chunks; nan where it is undefined."""
    n = a.size
    chunk = max(1, _CHUNK_ELEMENTS // n)
    values: list[np.ndarray] = []
    done = 0
    while done < n_resamples:
        r = min(chunk, n_resamples - done)
        drawn = rng.integers(0, n, size=(r, n))
        values.append(statistic_from_sums(statistic, a[drawn].sum(axis=1),
                                          b[drawn].sum(axis=1), np.full(r, n)))
        done += r
    return np.concatenate(values)


def statistic_from_sums(statistic: str, sum_a: Any, sum_b: Any, n_pairs: Any) -> Any:
    """mean_diff or relative_reduction from sums; nan where sum_a == 0 (relative only).

    Works elementwise on numpy arrays and returns a float for scalar inputs.
    """
    sum_a = np.asarray(sum_a, dtype=float)
    sum_b = np.asarray(sum_b, dtype=float)
    if statistic == "mean_diff":
        out = (sum_b - sum_a) / np.asarray(n_pairs, dtype=float)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(sum_a == 0, np.nan, 100.0 * (1.0 - sum_b / sum_a))
    return float(out) if out.ndim == 0 else out


def resampled_statistic(rng: np.random.Generator, a: np.ndarray, b: np.ndarray,
                        counts: np.ndarray, n_resamples: int, statistic: str,
                        resample_seeds: bool) -> np.ndarray:
    """The statistic of ``n_resamples`` two-level resamples, drawn in memory-bounded
    chunks; nan where it is undefined."""
    n_tasks, width = a.shape
    chunk = max(1, _CHUNK_ELEMENTS // (n_tasks * width))
    values: list[np.ndarray] = []
    done = 0
    while done < n_resamples:
        r = min(chunk, n_resamples - done)
        values.append(_resample(rng, a, b, counts, r, statistic, resample_seeds))
        done += r
    return np.concatenate(values)


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
