"""Means and counts of trials grouped by arm, family or level.

Every group reports how many trials it has, how many are valid and the invalid ones by
reason, so a table never hides a missing answer; a metric's mean is over the valid
trials that have it (a learned metric may be measured on fewer), with that count beside.
"""

from __future__ import annotations

from collections import Counter
from statistics import mean
from typing import Any

from tether.systems.scene.results.metrics import METRICS, Scores


def means(rows: list[Scores]) -> dict[str, float | None]:
    """Per metric: the mean over the rows that have it (None: no row has it)."""
    out: dict[str, float | None] = {}
    for m in METRICS:
        values = [v for r in rows if (v := r.get(m.key)) is not None]
        out[m.key] = mean(values) if values else None
    return out


def coverage(rows: list[Scores]) -> dict[str, int]:
    """Per metric: how many rows have it."""
    return {m.key: sum(r.get(m.key) is not None for r in rows) for m in METRICS}


def group(scores: list[Scores | None], reasons: list[str]) -> dict[str, Any]:
    """One group's row: trials, valid, invalid by reason, means and their coverage.

    `scores[i]` is trial i's scores (None: invalid, for `reasons[i]`)."""
    valid = [s for s in scores if s is not None]
    invalid = Counter(r for s, r in zip(scores, reasons, strict=True) if s is None)
    return {"n": len(scores), "valid": len(valid), "invalid": dict(sorted(invalid.items())),
            "means": means(valid), "coverage": coverage(valid)}


def grouped(keys: list[str | None], scores: list[Scores | None], reasons: list[str],
            order: list[str]) -> dict[str, dict[str, Any]]:
    """group() per key in `order` (a trial's key None belongs to no group)."""
    out = {}
    for k in order:
        picked = [i for i, key in enumerate(keys) if key == k]
        out[k] = group([scores[i] for i in picked], [reasons[i] for i in picked])
    return out
