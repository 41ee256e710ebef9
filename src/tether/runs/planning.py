"""`tether run --plan`: what a run would cost before any model is called.

Per (models, arm, budget): the trial count, the worst-case tokens of one trial, their
dollar cost and an upper bound on the run's duration.

Worst case, per trial:
- a budget with a `total` is a hard cap (the ledger refuses any call that could pass
  it): output tokens for `count = "output"` (or the strategy's own bound below, when
  smaller), input plus output for `count = "input+output"`;
- without a total, the strategy's own caps bound the output: `max_tokens` times the
  most calls its parameters allow (`OUTPUT_BOUNDS`, defaults as the strategies take
  them); a strategy not listed there is reported as uncapped (`None`), never guessed.
  Two strategies size their calls by the budget itself, and are counted as they run
  (`BUDGET_SIZED`): `best_of_n` with `n = "auto"` draws max(1, total // sample_tokens)
  samples (at most `max_n`; 1 without a total), and `reasoning` without a
  `thinking_budget` asks for everything the budget holds (4096 + `max_tokens` without a
  total).
Input tokens are capped only by an `input+output` budget; otherwise they are reported
as uncapped and the cost covers output tokens only (`cost_covers`).

Duration: the worst-case output tokens of every trial at `tokens_per_s` (by default
65 tokens/s for `local/` models, the embedded model's speed on 2 cores; unknown for a
remote model unless given), spread over `concurrency` trials in flight. Scripted and
replayed test doubles take no model time. Time spent in sandboxes and verifiers is not
counted, so it is an estimate of model time, and an upper bound of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tether.core import BudgetSpec
from tether.models import PriceBook, model_id_of, split_price
from tether.runs.config import Experiment
from tether.strategies import UNLIMITED_THINKING

#: tokens per second of the embedded local model on the project's 2-core machines
LOCAL_TOKENS_PER_S = 65.0

_AGENT = {"step_limit": 30, "max_tokens": 1024}


def _g(params: dict[str, Any], defaults: dict[str, Any], key: str) -> int:
    value = params.get(key, defaults.get(key))
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _bound(defaults: dict[str, Any], fn: Callable[[Callable[[str], int]], int]
           ) -> Callable[[dict[str, Any]], int]:
    return lambda params: fn(lambda key: _g(params, defaults, key))


#: output-token bound of one trial from a strategy's parameters (defaults as its
#: constructor has them); selector and reviewer calls are counted at their own caps
OUTPUT_BOUNDS: dict[str, Callable[[dict[str, Any]], int]] = {
    "single_shot": _bound({"max_tokens": 1024}, lambda p: p("max_tokens")),
    "reasoning": _bound({"max_tokens": 1024}, lambda p: p("max_tokens") + p("thinking_budget")),
    "best_of_n": _bound({"n": 4, "max_tokens": 1024, "selector_max_tokens": 64},
                        lambda p: p("n") * p("max_tokens") + p("selector_max_tokens")),
    "self_loop": _bound({"max_iterations": 3, "max_tokens": 1024},
                        lambda p: (p("max_iterations") + 1) * p("max_tokens")),
    "proposer_reviewer": _bound(
        {"max_iterations": 3, "max_tokens": 1024, "reviewer_max_tokens": 512},
        lambda p: (p("max_iterations") + 1) * p("max_tokens")
        + p("max_iterations") * p("reviewer_max_tokens")),
    "iad": _bound({"k": 3, "max_iterations": 3, "max_tokens": 1024},
                  lambda p: p("k") * (p("max_iterations") + 1) * p("max_tokens")),
    "agent": _bound(_AGENT, lambda p: p("step_limit") * p("max_tokens")),
    "turn_bon": _bound({**_AGENT, "n": 4, "selector_max_tokens": 512},
                       lambda p: p("step_limit") * (p("n") * p("max_tokens")
                                                    + p("selector_max_tokens"))),
    "trajectory_bon": _bound({**_AGENT, "n": 4, "selector_max_tokens": 512},
                             lambda p: p("n") * p("step_limit") * p("max_tokens")
                             + p("selector_max_tokens")),
}


def _reasoning(params: dict[str, Any], budget: BudgetSpec) -> int:
    answer = _g(params, {"max_tokens": 1024}, "max_tokens")
    if params.get("thinking_budget") is not None:
        return answer + _g(params, {}, "thinking_budget")
    # the call asks for all the budget holds (tether.strategies.reasoning)
    return budget.total if budget.total is not None else UNLIMITED_THINKING + answer


def _best_of_n(params: dict[str, Any], budget: BudgetSpec) -> int:
    defaults = {"n": 4, "max_tokens": 1024, "selector_max_tokens": 64}
    n = params.get("n", 4)
    if n == "auto":  # as the strategy sizes it (tether.strategies.best_of_n)
        sample = _g(params, {}, "sample_tokens") or _g(params, defaults, "max_tokens")
        n = 1 if budget.total is None else max(1, budget.total // max(sample, 1))
        if _g(params, {}, "max_n"):
            n = min(n, _g(params, {}, "max_n"))
    return (int(n) * _g(params, defaults, "max_tokens")
            + _g(params, defaults, "selector_max_tokens"))


#: strategies whose calls are sized by the budget itself (see the module docstring)
BUDGET_SIZED: dict[str, Callable[[dict[str, Any], BudgetSpec], int]] = {
    "reasoning": _reasoning, "best_of_n": _best_of_n}


def worst_tokens(strategy: str, params: dict[str, Any], budget: BudgetSpec
                 ) -> tuple[int | None, int | None]:
    """(worst output tokens, worst input tokens) of one trial; None is uncapped.

    With an `input+output` budget the total caps both together: it is returned as the
    output bound and 0 input, so a cost at the output price is still a worst case only
    when the output price is the higher one (`plan` prices it at the higher of the two)."""
    sized = BUDGET_SIZED.get(strategy)
    bound = OUTPUT_BOUNDS.get(strategy)
    if sized is not None:
        own: int | None = sized(params, budget) or None
    else:
        own = (bound(params) or None) if bound else None
    if budget.total is not None:
        if budget.count == "input+output":
            return budget.total, 0
        return (min(budget.total, own) if own else budget.total), None
    return own, None


def _throughput(specs: list[str], tokens_per_s: float | None) -> float | None:
    """Tokens per second of the slowest model in use; inf when all are test doubles."""
    heads = [split_price(s)[0] for s in specs]
    real = [h for h in heads if not h.startswith(("scripted:", "replay:"))]
    if not real:
        return float("inf")
    if tokens_per_s:
        return tokens_per_s
    return LOCAL_TOKENS_PER_S if all(h.startswith("local/") for h in real) else None


def _worst_cost(book: PriceBook, specs: list[str], out: int | None, inp: int | None,
                shared_cap: bool) -> float | None:
    """Worst dollar cost of one trial: every token at the dearest price among its models."""
    prices = [book.price(model_id_of(s)) for s in specs]
    if out is None or not prices or any(p is None for p in prices):
        return None
    top_out = max(p.price_out for p in prices if p)
    if shared_cap:
        return out * max(top_out, max(p.price_in for p in prices if p)) / 1e6
    return out * top_out / 1e6 + (inp or 0) * max(p.price_in for p in prices if p) / 1e6


def plan(exp: Experiment, n_tasks: int | None, book: PriceBook,
         tokens_per_s: float | None = None, tasks_note: str = "") -> dict[str, Any]:
    """The plan as JSON-ready numbers (see the module docstring for how each is made).

    `n_tasks` None means the suites could not be loaded here (`tasks_note` says why):
    then every count is per task, and the plan says so."""
    resolved = exp.resolved()
    per = n_tasks if n_tasks is not None else 1
    rows: list[dict[str, Any]] = []
    model_seconds: float | None = 0.0
    for models in resolved["models"]:
        roles = {k: v for k, v in models.items() if k != "label"}
        specs = list(dict.fromkeys(roles.values()))
        speed = _throughput(specs, tokens_per_s)
        for arm in exp.strategies:
            for budget in exp.budgets:
                spec = budget.spec()
                trials = per * len(exp.seeds)
                out, inp = worst_tokens(arm.name, arm.params, spec)
                cost = _worst_cost(book, specs, out, inp,
                                   spec.count == "input+output" and spec.total is not None)
                rows.append({
                    "models": models["label"], "arm": arm.arm, "budget": spec.label,
                    "trials": trials,
                    "worst_output_tokens_per_trial": out,
                    "worst_input_tokens_per_trial": inp,
                    "worst_output_tokens": None if out is None else out * trials,
                    "worst_cost_usd": None if cost is None else cost * trials,
                    "cost_covers": "input+output" if inp is not None else "output",
                })
                if model_seconds is not None:
                    model_seconds = None if speed is None or out is None else \
                        model_seconds + (0.0 if speed == float("inf") else out * trials / speed)
    n_trials = sum(r["trials"] for r in rows)
    concurrency = min(exp.run.concurrency, max(1, n_trials))
    costs = [r["worst_cost_usd"] for r in rows]
    tokens = [r["worst_output_tokens"] for r in rows]
    return {
        "trials": n_trials, "tasks": n_tasks, "per_task": n_tasks is None,
        "tasks_note": tasks_note, "arms": rows, "concurrency": concurrency,
        "worst_output_tokens": None if None in tokens else sum(t or 0 for t in tokens),
        "worst_cost_usd": None if None in costs else sum(c or 0.0 for c in costs),
        "expected_duration_s": None if model_seconds is None else model_seconds / concurrency,
        "duration_basis": ("upper bound: the worst-case output tokens of every trial at "
                           + (f"{tokens_per_s:g} tokens/s" if tokens_per_s else
                              f"{LOCAL_TOKENS_PER_S:g} tokens/s for local models (test "
                              "doubles take no model time; remote models need "
                              "--tokens-per-s)")
                           + f", {concurrency} trials in flight; sandbox and verifier "
                           "time not counted"),
    }


__all__ = ["LOCAL_TOKENS_PER_S", "OUTPUT_BOUNDS", "plan", "worst_tokens"]
