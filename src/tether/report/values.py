"""What one trial contributes to a report: its arm, its budget and its metric value.

The metric decides how trials are scored and which direction is better:
- ``pass``: the metric says passed or not; the value is 1.0 or 0.0, higher is better;
- ``defects``: the metric counts defects (the geometry instrument, or any metric whose
  raw data has ``n_defects``); the value is the count, lower is better;
- ``score``: the metric gives a score but no verdict; the value is the score,
  higher is better.
An errored trial has no value (invariant 6): it is counted as an error, never as a fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from tether.core import ArmFacts, DraftFacts, Observation, TrialRecord, facts_of

MODES = ("pass", "defects", "score")


@dataclass(frozen=True)
class MetricMode:
    name: str  # one of MODES
    higher_is_better: bool

    @property
    def label(self) -> str:
        return {"pass": "pass rate", "defects": "mean defects",
                "score": "mean score"}[self.name]

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"


def metric_mode(records: Sequence[TrialRecord]) -> MetricMode:
    """The scoring mode the trials' metric observations declare (`Observation.aggregate_as`):
    defect counting wins if any declares it; a mean score needs every one to be a bare score."""
    ways = [r.metric.aggregate_as for r in records if r.metric is not None and r.metric.ok]
    if "defect_count" in ways:
        return MetricMode("defects", higher_is_better=False)
    if ways and all(w == "mean_score" for w in ways):
        return MetricMode("score", higher_is_better=True)
    return MetricMode("pass", higher_is_better=True)


def defect_count(obs: Observation) -> int:
    n = obs.raw.get("n_defects")
    return int(n) if isinstance(n, int | float) else len(obs.defects)


def trial_value(record: TrialRecord, mode: MetricMode) -> float | None:
    """The trial's number under `mode`; None when it has none (errored, or nothing
    delivered when counting defects: there is no artifact whose defects to count)."""
    if record.status == "error":
        return None
    if mode.name == "pass":
        passed = record.passed
        return None if passed is None else float(passed)
    if mode.name == "defects":
        if record.metric is None or not record.metric.ok:
            return None
        return float(defect_count(record.metric))
    return record.score


def single_shot_value(record: TrialRecord, mode: MetricMode) -> float | None:
    """The within-trial single-shot draft's number, when the strategy recorded it."""
    if record.status == "error":
        return None
    draft = facts_of(record.extra, DraftFacts)
    if draft is None:
        return None
    # A pass metric compares verdicts only: a draft's score may be a fraction of checks.
    values = {"pass": (draft.single_shot_passed,),
              "defects": (draft.single_shot_n_defects, draft.single_shot_score),
              "score": (draft.single_shot_score,)}[mode.name]
    return next((float(v) for v in values if v is not None), None)


def has_single_shot(record: TrialRecord) -> bool:
    return facts_of(record.extra, DraftFacts) is not None


def arm_label(record: TrialRecord, model_label: str | None = None) -> str:
    """The comparison arm: the strategy's label in the experiment (its name when
    unlabelled; the runner refuses two unlabelled arms of one strategy), plus the
    model configuration when the run used several."""
    stored = facts_of(record.extra, ArmFacts)
    label = stored.arm if stored is not None else None
    if not label:
        label = record.spec.arm
    return with_setup(label, model_label)


def with_setup(arm: str, model_label: str | None) -> str:
    return f"{arm} @ {model_label}" if model_label else arm


def budget_label(record: TrialRecord) -> str:
    return record.spec.budget.label


def budget_sort_key(label: str) -> tuple[int, int, str]:
    """Numeric budgets ascending, then anything else (``unlimited``) last."""
    return (0, int(label), "") if label.isdigit() else (1, 0, label)


class _ArmBudget(Protocol):
    @property
    def arm(self) -> str: ...
    @property
    def budget(self) -> str: ...


_E = TypeVar("_E", bound=_ArmBudget)


def arm_budget_groups(entries: Iterable[_E]) -> dict[tuple[str, str], list[_E]]:
    """(arm, budget) -> entries; arms in order of first appearance, budgets ascending."""
    entries = list(entries)
    arms = list(dict.fromkeys(e.arm for e in entries))
    out: dict[tuple[str, str], list[_E]] = {}
    for e in sorted(entries, key=lambda e: (arms.index(e.arm), budget_sort_key(e.budget))):
        out.setdefault((e.arm, e.budget), []).append(e)
    return out


def model_setup_labels(records: Sequence[TrialRecord],
                       config: dict[str, Any]) -> dict[str, str] | None:
    """{canonical role map: name} when the run used several model setups, else None.

    The name is the config's model `label` when it has one, else the proposer spec."""
    setups = {setup_key(r.spec.models): r.spec.models for r in records}
    if len(setups) <= 1:
        return None
    named = {}
    for m in config.get("models", []) if isinstance(config.get("models"), list) else []:
        if isinstance(m, dict) and m.get("label"):
            named[setup_key({k: v for k, v in m.items() if k != "label"})] = m["label"]
    return {key: named.get(key) or roles.get("proposer") or key
            for key, roles in setups.items()}


def setup_key(models: dict[str, str]) -> str:
    return json.dumps(models, sort_keys=True)
