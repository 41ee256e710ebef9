"""The turn-level best-of-N paper's judge analysis, offered beside tether's own.

A run chooses it in its config (`[report]`, tether.runs.config.ReportOptions):

- `judge_sample = "baseline-failed"`: the paper's sample. Only the tasks the baseline
  arm failed in at least one of its trials; per task, one trajectory of each arm and
  model setup (of the baseline, one per task: it has no selector to tell its setups
  apart), drawn by `random.Random(SEED)` from the candidates in trial-id order, so the
  same run always gives the same sample.
- `judge_statistics = "paper"`: the paper's tests. Arms are pooled over the run's model
  setups (the paper pools its two selector models): a task's value is the mean over the
  setups' trajectories of that task; each rubric's difference to the baseline gets the
  paired bootstrap over tasks (`tether.stats.paired_bootstrap`, its one resampling
  setup) and that bootstrap's two-sided p-value, unadjusted (no Benjamini-Hochberg):
  `significant` is p < 1 - CI.

tether's default (`"tether"`, `"all"`) keeps every judged trajectory, compares per
(task, seed) pair within each model setup, and adjusts its sign-flip p-values by
Benjamini-Hochberg across the rubric x arm table.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tether.stats import SEED

if TYPE_CHECKING:
    from tether.report.section import TrialEntry

STATISTICS = ("tether", "paper")
SAMPLES = ("all", "baseline-failed")


def paper_sample(entries: Sequence[TrialEntry], baseline_arm: str | None,
                 seed: int = SEED) -> list[TrialEntry]:
    """The paper's sample of `entries` (see the module docstring); all of them when the
    run has no baseline arm to tell failed tasks by."""
    if baseline_arm is None:
        return list(entries)
    failed = {e.key[0] for e in entries
              if e.strategy_arm == baseline_arm and e.record.passed is False}
    pools: dict[tuple[str, str, str, str | None], list[TrialEntry]] = {}
    for e in entries:
        if e.key[0] not in failed:
            continue
        setup = None if e.strategy_arm == baseline_arm else e.setup
        pools.setdefault((e.key[0], e.strategy_arm, e.budget, setup), []).append(e)
    rng = random.Random(seed)
    out = []
    for key in sorted(pools, key=lambda k: tuple("" if x is None else x for x in k)):
        ordered = sorted(pools[key], key=lambda e: e.record.trial_id)
        out.append(ordered[rng.randrange(len(ordered))])
    return out


def pooled(entries: Sequence[TrialEntry]) -> list[TrialEntry]:
    """The entries with their model setup dropped: arms group over every setup."""
    return [dataclasses.replace(e, setup=None) for e in entries]


def unit_values(group: Sequence[TrialEntry], values: dict[str, float],
                statistics: str) -> dict[tuple[str, int], float]:
    """What the paired tests pair: per (task, seed) (tether), or per task, the mean over
    the task's trajectories (the paper's pooling; seed 0 stands for the task)."""
    per: dict[tuple[str, int], list[float]] = {}
    for e in group:
        if e.record.trial_id in values:
            key = (e.key[0], 0) if statistics == "paper" else e.key
            per.setdefault(key, []).append(values[e.record.trial_id])
    return {k: sum(v) / len(v) for k, v in per.items()}


def describe(statistics: str, sample: str) -> dict[str, Any]:
    """What the section states about its own analysis."""
    return {"statistics": statistics, "sample": sample,
            "p_value": ("paired bootstrap over tasks, two-sided, unadjusted"
                        if statistics == "paper" else
                        "paired sign-flip permutation test over tasks"),
            "p_adjustment": None if statistics == "paper" else "benjamini-hochberg",
            "pooled_over_setups": statistics == "paper"}
