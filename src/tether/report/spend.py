"""What each arm spent: dollar costs, and score against the tokens spent.

Per (arm, budget): the mean tokens a trial actually spent (input + output + reasoning,
every call of the trial, as the ledger and the metric recorded them), its mean score,
and pass@k (unbiased, mean over tasks) for k = 1 .. the fewest scored seeds of a task,
placed at k times the mean tokens of one trial: what k independent attempts cost.
Costs come from a `PriceBook` (tether.runs.costs); an unknown price is `None`, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tether.models import PriceBook
from tether.report.values import arm_budget_groups
from tether.runs import arm_cost, call_cost, total, trial_cost
from tether.stats import mean_pass_at_k


def _spent(e: Any) -> int:
    return sum(c.usage.input_tokens + c.usage.output_tokens + c.usage.reasoning_tokens
               for c in e.record.calls)


def _pass_at_k(group: Sequence[Any], tokens: float) -> list[dict[str, float]]:
    per_task: dict[str, list[bool]] = {}
    for e in group:
        if e.record.passed is not None:
            per_task.setdefault(e.key[0], []).append(bool(e.record.passed))
    if not per_task:
        return []
    kmax = min(len(v) for v in per_task.values())
    counts = {t: (len(v), sum(v)) for t, v in per_task.items()}
    return [{"k": k, "tokens": k * tokens, "pass_at_k": mean_pass_at_k(counts, k)}
            for k in range(1, kmax + 1)]


def _judge_costs(judgements: Sequence[Any], book: PriceBook) -> dict[str, float | None]:
    """Dollars of `tether judge` calls per trial id (kept apart from the trial's own)."""
    out: dict[str, float | None] = {}
    for j in judgements:
        price = book.price(j.judge_model)
        cost = None if price is None else price.cost(j.input_tokens, j.output_tokens)
        prev = out.get(j.trial_id, 0.0)
        out[j.trial_id] = None if prev is None or cost is None else prev + cost
    return out


def spend_numbers(entries: Sequence[Any], book: PriceBook,
                  judgements: Sequence[Any] = ()) -> dict[str, Any]:
    """`rows` per (arm, budget), `arms` totals, `trial_costs` by trial id, `call_costs`
    (trial id -> each call's cost in order; empty without prices), `priced`.

    `judgements` (tether.runs.judge) add `judge_cost_usd` per arm: what judging its
    trials cost, apart from `cost_usd` (what running them cost)."""
    costs = {e.record.trial_id: trial_cost(e.record, book) for e in entries}
    judge = _judge_costs(judgements, book)
    rows: list[dict[str, Any]] = []
    for (arm, budget), group in arm_budget_groups(entries).items():
        tokens = sum(_spent(e) for e in group) / len(group)
        scored = [e.value for e in group if e.value is not None]
        cost = arm_cost((e.record for e in group), book)
        rows.append({"arm": arm, "budget": budget, "n_trials": len(group),
                     "tokens_mean": tokens,
                     "score_mean": sum(scored) / len(scored) if scored else None,
                     "pass_at_k": _pass_at_k(group, tokens),
                     "cost_usd": cost,
                     "cost_per_trial_usd": None if cost is None else cost / len(group)})
    arms: dict[str, dict[str, Any]] = {}
    for r in rows:
        a = arms.setdefault(r["arm"], {"arm": r["arm"], "n_trials": 0, "cost_usd": 0.0,
                                       "judge_cost_usd": None})
        a["n_trials"] += r["n_trials"]
        a["cost_usd"] = None if a["cost_usd"] is None or r["cost_usd"] is None \
            else a["cost_usd"] + r["cost_usd"]
    judged: dict[str, list[float | None]] = {}
    for e in entries:
        if e.record.trial_id in judge:
            judged.setdefault(e.arm, []).append(judge[e.record.trial_id])
    for arm, cs in judged.items():
        arms[arm]["judge_cost_usd"] = total(cs)
    calls = {e.record.trial_id: [call_cost(c, book) for c in e.record.calls]
             for e in entries} if book else {}
    return {"rows": rows, "arms": list(arms.values()), "trial_costs": costs,
            "call_costs": calls,
            "priced": bool(book), "prices": book.to_json()}


__all__ = ["spend_numbers"]
