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

Duration: the worst-case output tokens of every trial at its models' measured speed
(`tether.runs.speed`: output tokens per second of call time, prompt processing included;
the slowest model of a setup sets its pace), an upper bound on model time as long as
that speed holds. Trials in flight share it only where calls can overlap: an in-process
model (`local/`) answers one call at a time, so its setups are not divided by
`concurrency`. A model with no measured speed makes the duration unknown (no speed is
assumed for a machine); scripted and replayed test doubles take no model time. Time
spent in sandboxes and verifiers is not counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tether.core import BudgetSpec
from tether.models import PriceBook, model_id_of, split_price
from tether.runs.config import Experiment
from tether.runs.speed import Speed
from tether.strategies import UNLIMITED_THINKING

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


def real_models(specs: list[str]) -> list[str]:
    """The specs (without price options) that call a real model: not a test double."""
    heads = [split_price(s)[0] for s in specs]
    return [h for h in heads if not h.startswith(("scripted:", "replay:"))]


def _throughput(specs: list[str], speeds: Mapping[str, Speed | None]) -> float | None:
    """Tokens per second of the slowest model in use; inf when all are test doubles,
    None when one has no measured speed."""
    real = real_models(specs)
    if not real:
        return float("inf")
    known = [speeds.get(h) for h in real]
    if any(k is None or k.tokens_per_s <= 0 for k in known):
        return None
    return min(k.tokens_per_s for k in known if k is not None)


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
         tokens_per_s: float | None = None, tasks_note: str = "",
         speeds: Mapping[str, Speed | None] | None = None) -> dict[str, Any]:
    """The plan as JSON-ready numbers (see the module docstring for how each is made).

    `n_tasks` None means the suites could not be loaded here (`tasks_note` says why):
    then every count is per task, and the plan says so. `speeds`: each real model's
    measured speed by spec (tether.runs.speed; None: not measured); `tokens_per_s`, when
    given, is every model's speed instead."""
    resolved = exp.resolved()
    per = n_tasks if n_tasks is not None else 1
    n_trials = (per * len(exp.seeds) * len(exp.strategies) * len(exp.budgets)
                * len(resolved["models"]))
    concurrency = min(exp.run.concurrency, max(1, n_trials))
    rows: list[dict[str, Any]] = []
    model_seconds: float | None = 0.0
    known: dict[str, Speed | None] = {}
    for models in resolved["models"]:
        roles = {k: v for k, v in models.items() if k != "label"}
        specs = list(dict.fromkeys(roles.values()))
        for head in real_models(specs):
            known[head] = (Speed(tokens_per_s, "given") if tokens_per_s
                           else (speeds or {}).get(head))
        speed = _throughput(specs, known)
        # an in-process model answers one call at a time: its trials do not overlap
        overlap = 1 if any(h.startswith("local/") for h in real_models(specs)) else concurrency
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
                        model_seconds + (0.0 if speed == float("inf")
                                         else out * trials / speed / overlap)
    costs = [r["worst_cost_usd"] for r in rows]
    tokens = [r["worst_output_tokens"] for r in rows]
    return {
        "trials": n_trials, "tasks": n_tasks, "per_task": n_tasks is None,
        "tasks_note": tasks_note, "arms": rows, "concurrency": concurrency,
        "worst_output_tokens": None if None in tokens else sum(t or 0 for t in tokens),
        "worst_cost_usd": None if None in costs else sum(c or 0.0 for c in costs),
        "expected_duration_s": model_seconds,
        "speeds": {h: None if k is None else {"tokens_per_s": round(k.tokens_per_s, 2),
                                              "source": k.source} for h, k in known.items()},
        "duration_basis": _basis(known, concurrency),
    }


def _basis(known: Mapping[str, Speed | None], concurrency: int) -> str:
    """How the duration was made, in words (what the plan prints after it)."""
    if not known:
        return "test doubles only: they take no model time"
    missing = [h for h, k in known.items() if k is None]
    if missing:
        return (f"no measured speed for {', '.join(missing)}: pass --tokens-per-s N, or "
                "--measure-speed to time one call of each model (a run of the model under "
                "runs/ also gives its speed)")
    said = "; ".join(f"{h} at {k.tokens_per_s:.1f} tokens/s ({k.source})"
                     for h, k in known.items() if k is not None)
    return (f"model time for the worst-case output tokens of every trial: {said}; "
            f"{concurrency} trials in flight (an in-process model answers one call at a "
            "time); sandbox and verifier time not counted")


__all__ = ["OUTPUT_BOUNDS", "plan", "real_models", "worst_tokens"]
