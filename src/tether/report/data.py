"""The numbers of a report, computed from a run store (and optionally a second run).

Everything the HTML shows and `tether report --json` prints comes from
`build_report`; the HTML layer only formats. Arms are compared on pairs of the same
task, seed and budget (see `paired.py`); errored trials are counted apart.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tether.core import END_STATES, TrialRecord, TurnFacts, facts_of
from tether.errors import ConfigError
from tether.report.baseline import baseline_key, choose_baseline
from tether.report.headline import headline_numbers
from tether.report.paired import Pair, compare
from tether.report.section import SectionInput, TrialEntry, sections
from tether.report.spend import spend_numbers
from tether.report.values import (
    MetricMode,
    arm_budget_groups,
    arm_label,
    budget_label,
    has_single_shot,
    metric_mode,
    model_setup_labels,
    setup_key,
    single_shot_value,
    trial_value,
)
from tether.runs import META_KEY as COST_META, RunStore, book_for, read_judgements
from tether.stats import (
    BOOTSTRAP_METHOD,
    CI,
    bootstrap_mean,
    consistency_at_k,
    mcnemar_exact,
    mean_pass_at_k,
    mean_sd,
    wilson_interval,
)


@dataclass
class Report:
    numbers: dict[str, Any]
    entries: list[TrialEntry]
    mode: MetricMode
    compare_values: dict[str, float | None] = field(default_factory=dict)


def entries_of(records: Sequence[TrialRecord], mode: MetricMode,
               config: dict[str, Any] | None = None) -> list[TrialEntry]:
    setups = model_setup_labels(records, config or {})

    def model_label(r: TrialRecord) -> str | None:
        return None if setups is None else setups[setup_key(r.spec.models)]

    return [TrialEntry(r, arm_label(r), model_label(r), budget_label(r),
                       trial_value(r, mode), single_shot_value(r, mode)) for r in records]


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else x


def over_seeds(scored: list[TrialEntry]) -> dict[str, Any] | None:
    """The papers' "mean +- SD over seeds": the score of each seed (a pass rate, a mean
    score or mean defects over that seed's scored trials), then their mean and SD, both
    conventions given (the interaction-scaling paper's Table 2 uses the population SD,
    its Table 7 the sample SD). None with fewer than two seeds."""
    by_seed: dict[Any, list[float]] = {}
    for e in scored:
        # scored entries all have a value
        by_seed.setdefault(e.key[1], []).append(float(e.value))  # type: ignore[arg-type]
    if len(by_seed) < 2:
        return None
    values = [math.fsum(v) / len(v) for _, v in sorted(by_seed.items(), key=lambda kv:
                                                        str(kv[0]))]
    sample, population = mean_sd(values, "sample"), mean_sd(values, "population")
    return {"seeds": len(values), "values": values, "mean": sample.mean,
            "sd_sample": sample.sd, "sd_population": population.sd}


def score_summary(group: list[TrialEntry], mode: MetricMode) -> dict[str, Any]:
    scored = [e for e in group if e.value is not None]
    n = len(scored)
    out: dict[str, Any] = {"mode": mode.name, "label": mode.label, "n": n, "ci": CI,
                           "over_seeds": over_seeds(scored)}
    if mode.name == "pass":
        k = sum(1 for e in scored if e.value)
        low, high = wilson_interval(k, n, CI)
        out.update(value=k / n if n else None, low=low if n else None,
                   high=high if n else None, passed=k, method="Wilson score interval")
        return out
    if not n:
        out.update(value=None, low=None, high=None, method=BOOTSTRAP_METHOD)
        return out
    # scored keeps only entries with a value; the filter does not narrow the field type
    r = bootstrap_mean([(e.key[0], e.key[1], e.value) for e in scored])  # type: ignore[misc]
    # scored keeps only entries with a value; the filter does not narrow the field type
    m = mean_sd([e.value for e in scored], "sample")  # type: ignore[misc]
    out.update(value=r.estimate, low=_num(r.low), high=_num(r.high), method=BOOTSTRAP_METHOD,
               n_resamples=r.n_resamples, seed=r.seed, sd=_num(m.sd),
               sd_convention="sample (n - 1)")
    return out


def _tokens(group: list[TrialEntry]) -> dict[str, dict[str, float]]:
    """Mean tokens per trial by role (over all trials of the group, errors included)."""
    roles = sorted({role for e in group for role in e.record.spend})
    n = len(group)
    return {role: {kind: sum(getattr(e.record.spend[role], f"{kind}_tokens")
                             for e in group if role in e.record.spend) / n
                   for kind in ("input", "output", "reasoning")} for role in roles}


def across_seeds(group: list[TrialEntry], mode: MetricMode) -> dict[str, Any] | None:
    """pass@k (unbiased) and consistency@k over the seeds of each task, k = the fewest
    scored seeds of any task; None unless verdicts and at least two seeds per task."""
    if mode.name != "pass":
        return None
    per_task: dict[str, list[bool]] = {}
    for e in group:
        if e.value is not None:
            per_task.setdefault(e.key[0], []).append(bool(e.value))
    if not per_task or min(len(v) for v in per_task.values()) < 2:
        return None
    k = min(len(v) for v in per_task.values())
    counts = {t: (len(v), sum(v)) for t, v in per_task.items()}
    return {"k": k, "n_tasks": len(per_task), "pass_at_1": mean_pass_at_k(counts, 1),
            "pass_at_k": mean_pass_at_k(counts, k),
            "consistency_at_k": consistency_at_k(per_task, k).fraction}


def summary_rows(entries: list[TrialEntry], mode: MetricMode) -> list[dict[str, Any]]:
    rows = []
    for (arm, budget), group in arm_budget_groups(entries).items():
        states = Counter(e.record.status for e in group)
        n = len(group)
        rows.append({
            "arm": arm, "budget": budget, "n_trials": n,
            "score": score_summary(group, mode),
            "across_seeds": across_seeds(group, mode),
            "end_states": {s: states.get(s, 0) for s in END_STATES if states.get(s, 0)}
                          | {s: c for s, c in states.items() if s not in END_STATES},
            "errors": states.get("error", 0),
            "error_kinds": dict(Counter(e.record.error_kind or "unknown"
                                        for e in group if e.record.status == "error")),
            "tokens_by_role": _tokens(group),
            "tokens_mean": sum(e.record.tokens("input") + e.record.tokens("output")
                               + e.record.tokens("reasoning") for e in group) / n,
            "output_tokens_mean": sum(e.record.tokens("output") + e.record.tokens("reasoning")
                                      for e in group) / n,
            "calls_mean": sum(len(e.record.calls) for e in group) / n,
            "wall_s_mean": sum(e.record.wall_s for e in group) / n,
            "wall_s_total": sum(e.record.wall_s for e in group),
        })
    return rows


def _values(group: list[TrialEntry]) -> dict[tuple[str, int], float | None]:
    return {e.key: e.value for e in group}


def _pairs(a: dict[tuple[str, int], float | None],
           b: dict[tuple[str, int], float | None]) -> list[Pair]:
    return [Pair(t, s, a.get((t, s)), b.get((t, s))) for t, s in sorted(set(a) | set(b))]


def paired_rows(entries: list[TrialEntry], baseline: str, mode: MetricMode) -> list[dict]:
    """Every other (arm, budget) against its baseline group (`baseline.baseline_key`:
    the same model setup at the same budget, or the baseline's only budget)."""
    groups = arm_budget_groups(entries)
    rows = []
    for (arm, budget), group in groups.items():
        key = baseline_key(groups, baseline, group)
        if group[0].strategy_arm == baseline or key is None:
            continue
        pairs = _pairs(_values(groups[key]), _values(group))
        rows.append({"baseline": key[0], "baseline_budget": key[1], "arm": arm,
                     "budget": budget, **compare(pairs, mode)})
    return rows


def within_trial_rows(entries: list[TrialEntry], mode: MetricMode) -> list[dict]:
    """Single-shot draft vs the delivered artifact inside the same trials."""
    rows = []
    for (arm, budget), group in arm_budget_groups(entries).items():
        if not any(has_single_shot(e.record) for e in group):
            continue
        pairs = [Pair(e.key[0], e.key[1], e.single_shot, e.value) for e in group]
        rows.append({"baseline": "single-shot draft", "arm": arm, "budget": budget,
                     **compare(pairs, mode)})
    return rows


def compare_runs(entries: list[TrialEntry], mode: MetricMode, other: RunStore) -> tuple[
        dict[str, Any], dict[str, float | None]]:
    """This run beside another run of the same trials (e.g. rescored): per-trial values,
    paired comparisons when both use the same kind of metric, pass/fail agreement."""
    others = {r.trial_id: r for r in other.trials()}
    other_mode = metric_mode(list(others.values()))
    values = {tid: trial_value(r, other_mode) for tid, r in others.items()}
    matched = [e for e in entries if e.record.trial_id in others]
    out: dict[str, Any] = {
        "other_run": str(other.dir), "other_metric": _metric_info(list(others.values()),
                                                                  other_mode),
        "n_matched": len(matched), "n_only_here": len(entries) - len(matched),
        "n_only_there": len(set(others) - {e.record.trial_id for e in entries}),
        "paired": [], "agreement": None,
    }
    if other_mode.name == mode.name:
        for (arm, budget), group in arm_budget_groups(matched).items():
            pairs = [Pair(e.key[0], e.key[1], e.value, values[e.record.trial_id])
                     for e in group]
            out["paired"].append({"baseline": "this run", "arm": arm, "budget": budget,
                                  **compare(pairs, mode)})
    verdicts = [(e.record.passed, others[e.record.trial_id].passed) for e in matched]
    verdicts = [(a, b) for a, b in verdicts if a is not None and b is not None]
    if verdicts:
        only_here = sum(1 for a, b in verdicts if a and not b)
        only_there = sum(1 for a, b in verdicts if b and not a)
        out["agreement"] = {
            "n": len(verdicts), "both_pass": sum(1 for a, b in verdicts if a and b),
            "both_fail": sum(1 for a, b in verdicts if not a and not b),
            "only_here": only_here, "only_there": only_there,
            "mcnemar_p": mcnemar_exact(only_here, only_there).p_value}
    return out, values


def _metric_info(records: Sequence[TrialRecord], mode: MetricMode) -> dict[str, Any]:
    names = sorted({f"{r.metric.instrument} {r.metric.version}" for r in records
                    if r.metric is not None})
    return {"mode": mode.name, "label": mode.label, "direction": mode.direction,
            "instruments": names,
            # as a header says it: "execution (version 2)"
            "measured_by": sorted({f"{r.metric.instrument} (version {r.metric.version})"
                                   for r in records if r.metric is not None})}


def _meta(store: RunStore) -> dict[str, Any]:
    """Every metadata key the runner wrote, but the config (shown on its own)."""
    return {k: v for k, v in store.all_meta().items() if k != "config"}


def run_info(store: RunStore, records: Sequence[TrialRecord]) -> dict[str, Any]:
    meta = _meta(store)
    revision = meta.get("tether")  # the runner writes {"version", "commit"}
    commit = revision.get("commit") if isinstance(revision, dict) else meta.get("tether_commit")
    instruments = sorted({(o.observation.instrument, o.observation.version,
                           o.observation.grounded) for r in records for o in r.observations}
                         | {(r.metric.instrument, r.metric.version, r.metric.grounded)
                            for r in records if r.metric is not None})
    return {
        "run_dir": str(store.dir), "n_trials": len(records), "tether_commit": commit,
        "config": store.config(), "meta": meta,
        "suites": sorted({r.spec.suite for r in records}),
        "model_specs": sorted({f"{role}={s}" for r in records
                               for role, s in r.spec.models.items()}),
        "model_ids": sorted({c.model_id for r in records for c in r.calls}),
        "instruments": [{"name": n, "version": v, "grounded": g} for n, v, g in instruments],
    }


def interrupted_rows(store: RunStore) -> list[dict[str, Any]]:
    """Trials that started and never ended: no score, only what they did so far."""
    rows = []
    for r in store.interrupted():
        taken = facts_of(r.extra, TurnFacts)
        turns = taken.turn_records if taken is not None else []
        commands = [t["command"] for t in turns if t.get("command")]
        rows.append({"trial_id": r.trial_id, "index": r.index, "task": r.spec.task_key,
                     "seed": r.spec.seed, "arm": r.spec.arm, "status": r.status,
                     "turns": len(turns), "last_command": commands[-1] if commands else None})
    return rows


def build_report(store: RunStore, *, baseline: str | None = None,
                 other: RunStore | None = None, prices: str | None = None) -> Report:
    """The report's numbers; `prices` is a price table file (tether.models.pricing) used
    with the run's own prices (its specs' options and the table it was started with)."""
    records = store.trials()
    if not records:
        raise ConfigError(f"{store.dir} has no finished trials yet",
                          hint="run `tether run CONFIG --out RUN_DIR` (or --resume it) first")
    mode = metric_mode(records)
    entries = entries_of(records, mode, store.config())
    base = choose_baseline(entries, baseline)
    numbers: dict[str, Any] = {
        "run": run_info(store, records),
        "metric": _metric_info(records, mode),
        "summary": summary_rows(entries, mode),
        "baseline": base,
        "paired": paired_rows(entries, base, mode),
        "within_trial": within_trial_rows(entries, mode),
        "compare": None,
        # each section's numbers (report/section.py), None where the run has none
        **{s.name: s.numbers(SectionInput(store, entries, base)) for s in sections()},
        "trials": [{"trial_id": e.record.trial_id, "index": e.record.index, "arm": e.arm,
                    "budget": e.budget, "task": e.record.spec.task_key,
                    "seed": e.record.spec.seed, "status": e.record.status,
                    "error_kind": e.record.error_kind, "value": e.value,
                    "single_shot": e.single_shot, "page": e.page} for e in entries],
        "interrupted": interrupted_rows(store),
    }
    numbers["spend"] = spend_numbers(entries, book_for(store.config(), prices,
                                                       store.meta(COST_META)),
                                     read_judgements(str(store.dir)))
    for row in numbers["trials"]:
        row["cost_usd"] = numbers["spend"]["trial_costs"].get(row["trial_id"])
    numbers["headline"] = headline_numbers(numbers, entries, mode.higher_is_better)
    # a section that knows what the run was for says it first (report/section.py: lead)
    numbers["headline"]["lead"] = next(
        (text for s in sections() if numbers.get(s.name) is not None
         for text in [s.lead(numbers[s.name])] if text), None)
    report = Report(numbers, entries, mode)
    if other is not None:
        numbers["compare"], report.compare_values = compare_runs(entries, mode, other)
        for row in numbers["trials"]:
            row["other_value"] = report.compare_values.get(row["trial_id"])
    return report
