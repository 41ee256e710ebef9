"""The report's first screen: which model ran, the headline comparison, what each arm cost.

Built from numbers the report already has (`summary`, `paired`, `spend`), so the first
screen and the sections below it never disagree:
- `models`: each model spec the trials called, with the roles it served;
- `arms`: per (arm, budget), its score with the 95% interval (`summary`), its mean tokens
  per trial and its cost (`spend`: `None` when a call has no price: unknown, never $0),
  and, for every arm but the baseline, its paired comparison with the baseline;
- `comparison`: the first arm's comparison with the baseline (config order): the headline;
- `per_task`: each comparison pair by pair, `change` = improved / regressed / same by the
  metric's direction (the filterable per-task view);
- `lead` (set by the hub after the sections: `Section.lead`): the answer a section knows
  the run was made for, shown first in place of `comparison`; None for most runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tether.report.section import TrialEntry

__all__ = ["headline_numbers", "per_task_rows"]


def _models(entries: Sequence[TrialEntry]) -> list[dict[str, Any]]:
    roles: dict[str, list[str]] = {}
    for e in entries:
        for role, spec in e.record.spec.models.items():
            if role not in roles.setdefault(spec, []):
                roles[spec].append(role)
    return [{"spec": spec, "roles": rs} for spec, rs in roles.items()]


def per_task_rows(row: dict[str, Any], higher_is_better: bool) -> list[dict[str, Any]]:
    """One row per pair of a paired comparison, with which way it changed."""
    out = []
    for p in row["pairs"]:
        better = p["b"] > p["a"] if higher_is_better else p["b"] < p["a"]
        change = "same" if p["b"] == p["a"] else ("improved" if better else "regressed")
        out.append({**p, "change": change})
    return out


def headline_numbers(numbers: dict[str, Any], entries: Sequence[TrialEntry],
                     higher_is_better: bool) -> dict[str, Any]:
    spend = {(r["arm"], r["budget"]): r for r in (numbers.get("spend") or {}).get("rows", [])}
    paired = {(r["arm"], r["budget"]): r for r in numbers["paired"]}
    arms = []
    for r in numbers["summary"]:
        key = (r["arm"], r["budget"])
        cost = spend.get(key, {})
        vs = paired.get(key)
        arms.append({
            "arm": r["arm"], "budget": r["budget"], "n_trials": r["n_trials"],
            "errors": r["errors"], "score": r["score"], "tokens_mean": r["tokens_mean"],
            "output_tokens_mean": r["output_tokens_mean"],
            "cost_usd": cost.get("cost_usd"), "cost_per_trial_usd": cost.get("cost_per_trial_usd"),
            "vs_baseline": None if vs is None else {
                k: vs[k] for k in ("baseline", "n_pairs", "improved", "regressed", "ties",
                                   "p_value", "effects")},
        })
    first = numbers["paired"][0] if numbers["paired"] else None
    return {
        "models": _models(entries),
        "baseline": numbers["baseline"],
        "arms": arms,
        "comparison": None if first is None else {
            "arm": first["arm"], "budget": first["budget"], "baseline": first["baseline"],
            "improved": first["improved"], "regressed": first["regressed"],
            "ties": first["ties"], "n_pairs": first["n_pairs"], "p_value": first["p_value"],
            "effects": first["effects"],
            "score": next(a["score"] for a in arms
                          if (a["arm"], a["budget"]) == (first["arm"], first["budget"])),
            "baseline_score": next((a["score"] for a in arms
                                    if (a["arm"], a["budget"]) == (first["baseline"],
                                                                   first["baseline_budget"])),
                                   None)},
        "per_task": [{"arm": r["arm"], "budget": r["budget"], "baseline": r["baseline"],
                      "rows": per_task_rows(r, higher_is_better)} for r in numbers["paired"]],
        "priced": bool((numbers.get("spend") or {}).get("priced")),
    }
