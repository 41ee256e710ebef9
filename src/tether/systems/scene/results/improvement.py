"""The paper's improvement columns: the mean relative error reduction of an arm against
a baseline arm (the One-Shot row) over cells of (group, metric).

- Eq. 9 (BlenderGym, its Table 1): cells are the families x {N-CLIP, PL}:
  Impr = 100/10 sum_k (x_k^base - x_k^arm) / x_k^base.
- Eq. 5 (BlenderBench, its Table 3): cells are the levels x {N-CLIP, PL}:
  Improvement = 100/6 sum (1 - e_arm / e_base) %, the same quantity.

Each arm's cell mean is over its own valid trials in the group (the paper: "each
method's level means use only the tasks it rendered"), not over paired tasks.
When no trial measured N-CLIP (no CLIP network configured) the cells are the groups x
{PL} and the result says so (`metrics`); a cell without a mean on either side, or with
a baseline mean of 0, leaves the improvement undefined (None, with the reason), never a
partial average.
"""

from __future__ import annotations

from typing import Any

PAPER_METRICS = ("n_clip", "pl")


def improvement(arm: dict[str, dict[str, float | None]], base: dict[str, dict[str, float | None]],
                groups: list[str]) -> dict[str, Any]:
    """{value (percent) or None, metrics used, cells, why (when None)} over `groups`.

    `arm[g]` and `base[g]` are the per-metric means of group g."""
    measured = any((base.get(g) or {}).get("n_clip") is not None for g in groups)
    metrics = PAPER_METRICS if measured else ("pl",)
    out: dict[str, Any] = {"value": None, "metrics": list(metrics),
                           "cells": len(groups) * len(metrics), "why": None}
    if not groups:
        out["why"] = "no groups"
        return out
    terms = []
    for g in groups:
        for m in metrics:
            e_arm, e_base = (arm.get(g) or {}).get(m), (base.get(g) or {}).get(m)
            if e_arm is None or e_base is None:
                side = "the arm" if e_arm is None else "the baseline"
                out["why"] = f"no {m} mean in {g} for {side}"
                return out
            if e_base == 0:
                out["why"] = f"the baseline's {m} in {g} is 0"
                return out
            terms.append(1.0 - e_arm / e_base)
    out["value"] = 100.0 * sum(terms) / len(terms)
    return out
