"""Paired comparisons: the same task and seed under two conditions.

A pair is (task, seed) at one budget: baseline value A, candidate value B. Pairs
where either side has no value (an errored trial) are dropped and counted, never
read as a fail. Each comparison carries the sign test (two-sided exact binomial
over decisive pairs, ties dropped) and task-clustered bootstrap CIs of the effect, both
from `tether.stats` with its one resampling setup.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tether.report.values import MetricMode
from tether.stats import (
    BOOTSTRAP_METHOD,
    SIGN_TEST_METHOD,
    PairedObservation,
    paired_bootstrap,
    paired_sign_test,
)


@dataclass(frozen=True)
class Pair:
    task: str
    seed: int
    a: float | None
    b: float | None


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def effects(pairs: list[Pair], mode: MetricMode) -> list[dict[str, Any]]:
    """Bootstrap CIs of the effect of B over A.

    Pass and score metrics: the mean difference (B - A). Defect counts: the relative
    reduction 100 * (1 - sum(B) / sum(A)) (positive = fewer defects) and the mean
    difference in defects per trial (negative = fewer defects).
    """
    obs = [PairedObservation(p.task, p.seed, p.a, p.b) for p in pairs
           if p.a is not None and p.b is not None]
    if not obs:
        return []
    stats = ["relative_reduction", "mean_diff"] if mode.name == "defects" else ["mean_diff"]
    out = []
    for stat in stats:
        # stat is one of the two Stat literals listed above (the list is typed str)
        r = paired_bootstrap(obs, stat)  # type: ignore[arg-type]
        out.append({"statistic": stat, "estimate": _finite(r.estimate), "low": _finite(r.low),
                    "high": _finite(r.high), "ci": r.ci, "n_resamples": r.n_resamples,
                    "n_dropped": r.n_dropped, "seed": r.seed, "n_tasks": r.n_tasks,
                    "method": BOOTSTRAP_METHOD})
    return out


def compare(pairs: Iterable[Pair], mode: MetricMode) -> dict[str, Any]:
    """Counts, sign test and effect CIs for one set of pairs (A = baseline)."""
    pairs = list(pairs)
    usable = [p for p in pairs if p.a is not None and p.b is not None]
    # usable keeps only pairs with both values; the filter does not narrow the field type
    test = paired_sign_test([p.a for p in usable], [p.b for p in usable],  # type: ignore[misc]
                            higher_is_better=mode.higher_is_better)
    return {
        "n_pairs": len(usable),
        "n_excluded": len(pairs) - len(usable),
        "improved": test.improved,
        "regressed": test.regressed,
        "ties": test.ties,
        "p_value": test.p_value,
        "test": SIGN_TEST_METHOD,
        "effects": effects(usable, mode),
        "pairs": [{"task": p.task, "seed": p.seed, "a": p.a, "b": p.b} for p in usable],
    }


def per_task_means(pairs: list[dict[str, Any]]) -> list[tuple[str, float, float]]:
    """(task, mean A, mean B) over seeds: the points of a paired-dots plot."""
    by_task: dict[str, list[tuple[float, float]]] = {}
    for p in pairs:
        by_task.setdefault(p["task"], []).append((p["a"], p["b"]))
    return [(t, sum(a for a, _ in v) / len(v), sum(b for _, b in v) / len(v))
            for t, v in sorted(by_task.items())]
