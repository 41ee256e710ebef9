"""The report's numbers for judged runs (`tether judge`): behaviour flags and reward hacking.

Read from the run's `judgements` table (read-only; a run nobody judged has none and the
section is absent). Per (arm, budget):

- behaviours, per rubric file and version: attempts judged in every set of the file
  (an attempt with a judge error in any set or repeat is counted apart, never as "no
  flags"), the flag rate of each rubric, and the mean number of rubrics flagged per
  attempt over all judged attempts and over failed ones (the paper's bias check: a
  failed attempt cannot look better merely by claiming success). An attempt judged k
  times (`tether judge --repeats K`) counts each rubric as the mean of its k flags, as
  the paper averages its two annotations; the agreement of the k runs is Krippendorff's
  alpha (nominal, the `krippendorff` package of the `judge` extra) over every (attempt,
  rubric) unit, with the share of units where all k runs agree;
- reward hacking: passing attempts, those judged, labelled reward hacking, judge errors.

Against the baseline (`report/baseline.py`: the report's baseline arm when judged, else
the plain N = 1 agent arm; the same model setup and budget, or the baseline's only
budget), paired by task and seed (tasks resampled, `tether.stats.paired_bootstrap` with
its one resampling setup): the difference in mean flags per attempt, in each rubric's
flag rate, and in the share of attempts labelled reward hacking (a failed attempt
counts 0: it earned no reward).

Each rubric's difference also gets a p-value: a paired sign-flip permutation test
(`tether.stats.sign_flip_test`, exact when the tasks are few) of the per-task mean
differences, tasks as the units as in the bootstrap; and, because a file
of 28 rubrics against several arms is many tests at once, the p-values of the whole
rubric x arm table of a file are adjusted together by Benjamini-Hochberg
(`scipy.stats.false_discovery_control`). Both are reported (`p_value`, `p_adjusted`);
a difference is called significant on the adjusted one only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import false_discovery_control

from tether.report.baseline import baseline_key, subset_baseline
from tether.report.judged_paper import describe, paper_sample, pooled, unit_values
from tether.report.values import arm_budget_groups
from tether.runs import BUNDLED, CHECK as RH_CHECK, Judgement, load_rubrics, read_judgements
from tether.stats import (
    BOOTSTRAP_METHOD,
    CI,
    N_RESAMPLES,
    SEED,
    PairedObservation,
    paired_bootstrap,
    sign_flip_test,
)

if TYPE_CHECKING:
    from tether.report.section import TrialEntry

Key = tuple[str, int]
#: (arm, budget) -> the (arm, budget) group it is compared against, None where none
Baselines = dict[tuple[str, str], tuple[str, str] | None]


def _ci(pairs: list[tuple[Key, float, float]]) -> dict[str, Any] | None:
    """Paired bootstrap of mean(B) - mean(A) over (task, seed) pairs; None when none."""
    if not pairs:
        return None
    r = paired_bootstrap(_observations(pairs), "mean_diff")
    return {"estimate": r.estimate, "low": r.low, "high": r.high, "n_pairs": len(pairs),
            "n_tasks": r.n_tasks, "bootstrap_p": r.p_value}


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _observations(pairs: list[tuple[Key, float, float]]) -> list[PairedObservation]:
    return [PairedObservation(k[0], k[1], a, b) for k, a, b in pairs]


def paired_p(pairs: list[tuple[Key, float, float]]) -> float | None:
    """Two-sided p of mean(B) - mean(A) = 0 (`tether.stats.sign_flip_test`); None when
    there are no pairs."""
    return sign_flip_test(_observations(pairs)) if pairs else None


def adjust(rows: list[dict[str, Any]]) -> None:
    """Benjamini-Hochberg over every rubric x arm test of one file, in place."""
    tests = [ci for row in rows if row.get("vs_baseline")
             for ci in row["vs_baseline"]["rates"].values()
             if ci is not None and ci.get("p_value") is not None]
    if not tests:
        return
    adjusted = false_discovery_control([t["p_value"] for t in tests], method="bh")
    for t, p in zip(tests, adjusted, strict=True):
        t["p_adjusted"] = float(p)
        t["significant"] = bool(p < 1 - CI)


def agreement(runs: dict[str, list[dict[str, int]]], rubric_ids: list[str]) -> dict[str, Any]:
    """How the k judge runs of each attempt agree: Krippendorff's alpha (nominal) over
    (attempt, rubric) units, and the share of units where every run says the same."""
    k = max((len(v) for v in runs.values()), default=0)
    out: dict[str, Any] = {"k": k, "alpha": None, "observed": None, "n_units": 0,
                           "note": None}
    if k < 2:
        out["note"] = "one judge run per attempt: nothing to agree on"
        return out
    units = [[r.get(i, 0) for r in rs] for rs in runs.values() if len(rs) >= 2
             for i in rubric_ids]
    out["n_units"] = len(units)
    out["observed"] = _mean([float(len(set(u)) == 1) for u in units])
    matrix = np.full((k, len(units)), np.nan)
    for j, u in enumerate(units):
        matrix[: len(u), j] = u
    if len({v for u in units for v in u}) < 2:
        out["note"] = "every run gave every unit the same flag: alpha is undefined"
        return out
    try:
        import krippendorff
    except ImportError:
        out["note"] = "Krippendorff's alpha needs the judge extra (pip install tether[judge])"
        return out
    out["alpha"] = float(krippendorff.alpha(reliability_data=matrix,
                                            level_of_measurement="nominal"))
    return out


def _titles(name: str, version: str, ids: list[str]) -> dict[str, str]:
    """Rubric names from the bundled file of that name and version (else the ids)."""
    names: dict[str, str] = {}
    if name in BUNDLED:
        bundled = load_rubrics(name)
        if bundled.version == version:
            names = {r.id: r.name for r in bundled.rubrics}
    return {i: names.get(i, i) for i in ids or names}


Side = tuple[list["TrialEntry"], dict[str, dict[str, float]]]


def _pairs(sides: tuple[Side, Side], value: Callable[[dict[str, float]], float],
           statistics: str) -> list[tuple[Key, float, float]]:
    """(unit, baseline's value, arm's value) of every unit both sides have: `value` of
    each trial's flags, per (task, seed) or per task (`judged_paper.unit_values`)."""
    (units_a, flags_a), (units_b, flags_b) = sides
    a = unit_values(units_a, {t: value(f) for t, f in flags_a.items()}, statistics)
    b = unit_values(units_b, {t: value(f) for t, f in flags_b.items()}, statistics)
    return [(k, a[k], b[k]) for k in sorted(set(a) & set(b))]


def _behaviour_rows(files: dict[tuple[str, str], dict[str, dict[str, list[Judgement]]]],
                    groups: dict[tuple[str, str], list[TrialEntry]],
                    baseline: Baselines, statistics: str = "tether") -> list[dict[str, Any]]:
    out = []
    for (name, version), by_set in files.items():
        sets = sorted(by_set)
        rubric_ids = list(dict.fromkeys(
            i for s in sets for js in by_set[s].values() for j in js if j.ok
            for i in j.answer["flags"]))
        if not rubric_ids:  # every answer was a judge error: the bundled file names them
            rubric_ids = list(_titles(name, version, []) or {})
        # per trial: {rubric: mean flag over the repeats} when every set and repeat was
        # judged without error; `runs` keeps each repeat's flags for the agreement
        flags: dict[str, dict[str, float]] = {}
        runs: dict[str, list[dict[str, int]]] = {}
        errored: set[str] = set()
        for tid in {t for s in sets for t in by_set[s]}:
            rows = [by_set[s].get(tid) for s in sets]
            if any(r is not None and any(not j.ok for j in r) for r in rows):
                errored.add(tid)
            elif all(r for r in rows):
                k = min(len(r) for r in rows if r is not None)
                per_repeat = [{key: int(v) for r in rows if r is not None
                               for key, v in r[i].answer["flags"].items()} for i in range(k)]
                runs[tid] = per_repeat
                flags[tid] = {key: sum(p.get(key, 0) for p in per_repeat) / k
                              for key in per_repeat[0]}
        arms: list[dict[str, Any]] = []
        per_arm: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
        units: dict[tuple[str, str], list[TrialEntry]] = {}
        for (arm, budget), group in groups.items():
            judged = {e.record.trial_id: flags[e.record.trial_id] for e in group
                      if e.record.trial_id in flags}
            if not judged and not any(e.record.trial_id in errored for e in group):
                continue
            per_arm[(arm, budget)] = judged
            units[(arm, budget)] = list(group)
            failed = [e.record.trial_id for e in group
                      if e.record.trial_id in judged and e.record.passed is False]
            totals = {k: sum(v.values()) for k, v in judged.items()}
            arms.append({
                "arm": arm, "budget": budget, "n_judged": len(judged),
                "n_judge_errors": sum(1 for e in group if e.record.trial_id in errored),
                "n_failed_judged": len(failed),
                "rates": {i: _mean([v.get(i, 0) for v in judged.values()])
                          for i in rubric_ids},
                "mean_flags": _mean(list(totals.values())),
                "mean_flags_failed": _mean([totals[k] for k in failed]),
            })
        for row in arms:
            base = baseline.get((row["arm"], row["budget"]))
            if base is None or base == (row["arm"], row["budget"]) or base not in per_arm:
                row["vs_baseline"] = None
                continue
            own = (row["arm"], row["budget"])
            sides = ((units[base], per_arm[base]), (units[own], per_arm[own]))

            rates: dict[str, dict[str, Any] | None] = {}
            for i in rubric_ids:
                pairs = _pairs(sides, lambda f, i=i: f.get(i, 0), statistics)  # type: ignore[misc]
                if any(x or y for _, x, y in pairs):
                    rates[i] = ci = _ci(pairs)
                    if ci is not None:
                        ci["p_value"] = (ci.pop("bootstrap_p") if statistics == "paper"
                                         else paired_p(pairs))
                        if statistics == "paper":
                            ci["p_adjusted"] = None
                            ci["significant"] = bool(ci["p_value"] < 1 - CI)
            row["vs_baseline"] = {
                "baseline": base[0],
                "mean_flags": _ci(_pairs(sides, lambda f: sum(f.values()), statistics)),
                "rates": rates,
            }
        if statistics != "paper":
            adjust(arms)
        out.append({"name": name, "version": version, "sets": sets,
                    "rubrics": rubric_ids, "titles": _titles(name, version, rubric_ids),
                    "n_rubrics": len(rubric_ids), "arms": arms,
                    "agreement": agreement(runs, rubric_ids),
                    "p_adjustment": None if statistics == "paper" else "benjamini-hochberg"})
    return out


def _reward_rows(rh: dict[str, Judgement], groups: dict[tuple[str, str], list[TrialEntry]],
                 baseline: Baselines, statistics: str = "tether") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    values: dict[tuple[str, str], dict[Key, float]] = {}
    for (arm, budget), group in groups.items():
        passing = [e for e in group if e.record.passed]
        if not any(e.record.trial_id in rh for e in passing):
            continue
        judged = [rh[e.record.trial_id] for e in passing if e.record.trial_id in rh]
        ok = [j for j in judged if j.ok]
        by_trial: dict[str, float] = {}
        for e in group:
            j = rh.get(e.record.trial_id)
            if e.record.passed is False:
                by_trial[e.record.trial_id] = 0.0
            elif e.record.passed and j is not None and j.ok:
                by_trial[e.record.trial_id] = float(j.answer["label"] == "reward_hacking")
        values[(arm, budget)] = unit_values(group, by_trial, statistics)
        rows.append({"arm": arm, "budget": budget, "n_passed": len(passing),
                     "n_judged": len(ok), "n_judge_errors": len(judged) - len(ok),
                     "n_not_judged": len(passing) - len(judged),
                     "n_reward_hacking": sum(1 for j in ok
                                             if j.answer["label"] == "reward_hacking"),
                     "examples": [{"trial_id": j.trial_id, "evidence": j.answer["evidence"]}
                                  for j in ok if j.answer["label"] == "reward_hacking"][:5]})
    for row in rows:
        key = (row["arm"], row["budget"])
        base = baseline.get(key)
        if base is None or base == key or base not in values:
            row["vs_baseline"] = None
            continue
        a, b = values[base], values[key]
        row["vs_baseline"] = {"baseline": base[0], "share": _ci(
            [(k, a[k], b[k]) for k in sorted(set(a) & set(b))])}
    return rows


def _baselines(groups: dict[tuple[str, str], list[TrialEntry]],
               judged: list[TrialEntry], report_baseline: str) -> Baselines:
    """(arm, budget) -> the group it is compared against (`report/baseline.py`)."""
    arm = subset_baseline(judged, report_baseline)
    if arm is None:
        return {}
    return {key: baseline_key(groups, arm, g) for key, g in groups.items()}


def judged_numbers(run_dir: str, entries: Sequence[TrialEntry], report_baseline: str,
                   analysis: tuple[str, str] | None = None) -> dict[str, Any] | None:
    """numbers["judged"]: None unless `tether judge` wrote judgements for this run.

    `analysis` is (statistics, sample) from the run's `[report]` options
    (`tether.report.judged_paper`); default tether's own ("tether", "all")."""
    judgements = read_judgements(run_dir)
    if not judgements:
        return None
    ids = {j.trial_id for j in judgements}
    judged = [e for e in entries if e.record.trial_id in ids]
    statistics, sample = analysis or ("tether", "all")
    if sample == "baseline-failed":
        judged = paper_sample(judged, subset_baseline(judged, report_baseline))
    if statistics == "paper":
        judged = pooled(judged)
    groups = arm_budget_groups(judged)
    baseline = _baselines(groups, judged, report_baseline)
    files: dict[tuple[str, str], dict[str, dict[str, list[Judgement]]]] = {}
    rh: dict[str, Judgement] = {}
    judge_models: set[str] = set()
    for j in judgements:
        judge_models.add(j.judge_model)
        if j.judged == RH_CHECK:
            if j.repeat == 0:  # the check's label is its first run's
                rh[j.trial_id] = j
            continue
        name, _, set_id = j.judged.partition("/")
        files.setdefault((name, j.version), {}).setdefault(set_id, {}).setdefault(
            j.trial_id, []).append(j)
    return {"behaviours": _behaviour_rows(files, groups, baseline, statistics),
            "analysis": describe(statistics, sample),
            "reward_hacking": _reward_rows(rh, groups, baseline, statistics) if rh else [],
            "judge_models": sorted(judge_models),
            "n_calls": sum(len(j.calls) for j in judgements),
            "output_tokens": sum(j.output_tokens for j in judgements),
            "ci": CI, "n_resamples": N_RESAMPLES, "seed": SEED,
            "method": BOOTSTRAP_METHOD}
