"""The scene section's numbers: trials of scene strategies (vetr, viga, blender_alchemy,
scene_one_shot), read from their SceneFacts and their scene_render metric.

- per arm, overall, per family and per level (where the task data declares levels):
  trials, valid, invalid by reason, and the means of every metric the trials have
  (metrics.py; tables.py);
- the paper's improvement columns against the improvement baseline (the first
  scene_one_shot arm, else the report's baseline arm): Eq. 9 over families, Eq. 5 over
  levels (improvement.py);
- paired comparisons between every two arms, overall and per family (paired.py), with
  the run's resampling setting (`[stats]`, tether.stats.Resampling);
- cost per task, refiner statistics (the accepted alternative per submission, the
  projection scope), and the start / goal / delivered renders per task.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations
from statistics import mean
from typing import TYPE_CHECKING, Any

from tether.stats import CI, Resampling
from tether.systems.scene.loop.facts import SceneFacts, scene_facts_of
from tether.systems.scene.results.improvement import improvement
from tether.systems.scene.results.metrics import Scores, invalid_reason, shown, trial_scores
from tether.systems.scene.results.paired import ALPHA, Key, compare_all
from tether.systems.scene.results.tables import group, grouped

if TYPE_CHECKING:
    from tether.report import TrialEntry

ONE_SHOT = "scene_one_shot"
Row = tuple["TrialEntry", SceneFacts]
ArmScores = dict[str, dict[Key, Scores | None]]  # arm -> trial key -> scores (None: invalid)


def _cost(facts: list[SceneFacts]) -> dict[str, Any]:
    roles = sorted({r for f in facts for r in f.calls})
    return {"calls": {r: mean(f.calls.get(r, 0) for f in facts) for r in roles},
            "calls_total": mean(sum(f.calls.values()) for f in facts),
            "executions": mean(f.executions for f in facts),
            "renders": mean(f.renders for f in facts),
            "interactions": mean(f.interactions for f in facts),
            "invalid_replies": sum(f.invalid_replies for f in facts),
            "wall_s": mean(f.wall_s or 0.0 for f in facts),
            "modality": sorted({f"{r}: {m}" for f in facts for r, m in f.modality.items()})}


def _refiner(facts: list[SceneFacts]) -> dict[str, Any]:
    subs = [s for f in facts for s in f.submissions]
    accepted = Counter(str(s.get("accepted")) for s in subs)
    execs = [int(s.get("executions", 0)) for s in subs]
    scopes = sorted({str(f.settings.get("projection_scope")) for f in facts
                     if f.settings.get("projection_scope")})
    return {"submissions": len(subs), "accepted": dict(sorted(accepted.items())),
            "raw": accepted.get("raw", 0), "previous": accepted.get("previous", 0),
            "none": accepted.get("none", 0),
            "alternatives": sum(v for k, v in accepted.items()
                                if k not in ("raw", "previous", "none")),
            "executions_per_submission": mean(execs) if execs else None,
            "max_executions": max(execs) if execs else None,
            "projection_scope": ", ".join(scopes) or None}


def _improvement_baseline(arms: list[str], strategy: dict[str, str],
                          baseline: str | None) -> str | None:
    one_shot = [a for a in arms if strategy[a] == ONE_SHOT]
    if one_shot:
        return one_shot[0]
    return baseline if baseline in arms else None


def _arm_rows(arms: list[str], by_arm: dict[str, list[Row]], families: list[str],
              levels: list[str]) -> tuple[list[dict[str, Any]], ArmScores]:
    summary: list[dict[str, Any]] = []
    scored: ArmScores = {}
    for arm in arms:
        rows = by_arm[arm]
        scores = [trial_scores(e, f) for e, f in rows]
        reasons = [invalid_reason(e, f) for e, f in rows]
        scored[arm] = {e.key: s for (e, _), s in zip(rows, scores, strict=True)}
        fams = [f.family or "?" for _, f in rows]
        lvls = [f.level for _, f in rows]
        summary.append({
            "arm": arm, "strategy": rows[0][1].scene_strategy,
            "overall": group(scores, reasons),
            "families": grouped(fams, scores, reasons, families),  # type: ignore[arg-type]
            "levels": grouped(lvls, scores, reasons, levels),
        })  # fmt: skip
    return summary, scored


def _improvements(summary: list[dict[str, Any]], base: str | None, families: list[str],
                  levels: list[str]) -> None:
    rows = {r["arm"]: r for r in summary}
    for r in summary:
        r["impr_families"] = r["impr_levels"] = None
        if base is None or r["arm"] == base:
            continue
        arm_f = {g: v["means"] for g, v in r["families"].items()}
        base_f = {g: v["means"] for g, v in rows[base]["families"].items()}
        r["impr_families"] = improvement(arm_f, base_f, families)
        if levels:
            arm_l = {g: v["means"] for g, v in r["levels"].items()}
            base_l = {g: v["means"] for g, v in rows[base]["levels"].items()}
            r["impr_levels"] = improvement(arm_l, base_l, levels)


def _paired(arms: list[str], scored: ArmScores,
            family_of: dict[Key, str], families: list[str],
            resampling: Resampling) -> list[dict[str, Any]]:
    out = []
    for first, second in combinations(arms, 2):
        cells = compare_all(scored[first], scored[second], resampling)
        if all(c is None for c in cells.values()):
            continue
        per_family = {fam: compare_all(_of_family(scored[first], family_of, fam),
                                       _of_family(scored[second], family_of, fam), resampling)
                      for fam in families}
        out.append({"first": first, "second": second, "cells": cells, "families": per_family})
    return out


def _of_family(scored: dict[Key, Scores | None], family_of: dict[Key, str],
               fam: str) -> dict[Key, Scores | None]:
    return {k: v for k, v in scored.items() if family_of.get(k) == fam}


def _tasks(rows: list[Row], scored: ArmScores) -> list[dict[str, Any]]:
    tasks: dict[str, dict[str, Any]] = {}
    for e, f in rows:
        task = tasks.setdefault(e.record.spec.task_key, {
            "task": e.record.spec.task_key, "family": f.family, "level": f.level,
            "start": None, "goal": None, "arms": []})  # fmt: skip
        task["start"] = task["start"] or f.renders_kept.get("start")
        task["goal"] = task["goal"] or f.renders_kept.get("goal")
        s = scored[e.arm].get(e.key)
        task["arms"].append({"arm": e.arm, "seed": e.record.spec.seed,
                             "delivered": f.renders_kept.get("delivered") if s else None,
                             "pl": s["pl"] if s else None, "n_clip": s["n_clip"] if s else None,
                             "invalid": None if s else invalid_reason(e, f), "page": e.page})
    return sorted(tasks.values(), key=lambda t: t["task"])


def scene_numbers(entries: list[TrialEntry], resampling: Resampling | None = None,
                  baseline: str | None = None) -> dict[str, Any] | None:
    """The scene section's numbers, or None when the run has no scene strategy trials."""
    resampling = resampling or Resampling()
    rows: list[Row] = [(e, f) for e in entries
                       if (f := scene_facts_of(e.record.extra)) is not None]
    if not rows:
        return None
    arms = list(dict.fromkeys(e.arm for e, _ in rows))
    by_arm: dict[str, list[Row]] = defaultdict(list)
    for e, f in rows:
        by_arm[e.arm].append((e, f))
    families = sorted({f.family or "?" for _, f in rows})
    levels = sorted({f.level for _, f in rows if f.level is not None})
    summary, scored = _arm_rows(arms, by_arm, families, levels)
    strategy = {r["arm"]: r["strategy"] for r in summary}
    base = _improvement_baseline(arms, strategy, baseline)
    _improvements(summary, base, families, levels)
    family_of = {e.key: f.family or "?" for e, f in rows}
    valid_scores = [s for per in scored.values() for s in per.values() if s is not None]
    return {"metrics": shown(valid_scores), "families": families, "levels": levels,
            "summary": summary, "improvement_baseline": base,
            "cost": [{"arm": a, **_cost([f for _, f in by_arm[a]])} for a in arms],
            "refiner": [{"arm": a, **_refiner([f for _, f in by_arm[a]])} for a in arms],
            "paired": _paired(arms, scored, family_of, families, resampling),
            "tasks": _tasks(rows, scored), "n_resamples": resampling.n_resamples,
            "seed": resampling.seed, "ci": CI, "alpha": ALPHA}
