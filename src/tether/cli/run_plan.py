"""`tether run CONFIG --plan`: the run's size, worst-case tokens, cost and duration.

How each number is made is tether.runs.planning's docstring, where a model's speed comes
from tether.runs.speed's; the suites are loaded (to count tasks), no run directory is
written, and no model is built unless `--measure-speed` asks for one timed call of each.
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.markup import escape
from rich.table import Table

from tether.cli.console import make_console
from tether.errors import ConfigError, TetherError
from tether.models import ModelError, load_price_table
from tether.runs import (
    Experiment,
    RunRequest,
    Speed,
    _apply_overrides,
    fmt_usd,
    load_experiment,
    load_tasks,
    measured_speed,
    plan,
    real_models,
    recorded_speed,
    run_book,
)


def _tokens(x: int | None) -> str:
    return "uncapped" if x is None else f"{x:,}"


def _duration(s: float | None) -> str:
    if s is None:
        return "unknown"
    h, rem = divmod(int(round(s)), 3600)
    return f"{h}h {rem // 60:02d}m" if h else f"{rem // 60}m {rem % 60:02d}s"


def model_speeds(exp: Experiment, tokens_per_s: float | None,
                 measure: bool) -> dict[str, Speed | None]:
    """Each real model's speed (tether.runs.speed): timed now with `measure`, else from
    its calls recorded under runs/; none needed when the user gave one."""
    if tokens_per_s:
        return {}
    heads = dict.fromkeys(h for models in exp.resolved()["models"]
                          for h in real_models([v for k, v in models.items() if k != "label"]))
    if not measure:
        return {h: recorded_speed(h) for h in heads}
    speeds: dict[str, Speed | None] = {}
    for head in heads:
        try:
            speeds[head] = measured_speed(head)
        except ModelError as exc:
            raise TetherError(f"--measure-speed: {head} did not answer: {exc}",
                              hint="check the model with tether models ping SPEC, or "
                                   "give its speed with --tokens-per-s N") from None
    return speeds


def plan_numbers(req: RunRequest, tokens_per_s: float | None,
                 measure_speed: bool = False) -> dict[str, Any]:
    if req.resume or not req.config:
        raise ConfigError("--plan takes an experiment CONFIG (not --resume)",
                          hint="tether run CONFIG --plan")
    exp = load_experiment(req.config, req.sets)
    if req.limit:
        exp = exp.model_copy(update={"limit": req.limit})
    exp = _apply_overrides(exp, req.overrides)
    table = load_price_table(req.prices) if req.prices else None
    try:
        n_tasks: int | None = len(load_tasks(exp))
        note = ""
    except ConfigError as exc:  # a suite that lives elsewhere (an imported task set)
        n_tasks, note = None, f"suites not loadable here ({exc}): counts are per task"
    numbers = plan(exp, n_tasks, run_book(exp.resolved(), table), tokens_per_s, note,
                   speeds=model_speeds(exp, tokens_per_s, measure_speed))
    return {"config": req.config, "name": exp.name, "overrides": list(req.sets), **numbers}


def show_plan(req: RunRequest, tokens_per_s: float | None, as_json: bool,
              measure_speed: bool = False) -> None:
    numbers = plan_numbers(req, tokens_per_s, measure_speed)
    if as_json:
        click.echo(json.dumps(numbers, indent=2))
        return
    console = make_console()
    per = " per task" if numbers["per_task"] else ""
    table = Table(title=f"plan: {numbers['name'] or numbers['config']}: "
                        f"{numbers['trials']} trials{per}")
    show_models = len({r["models"] for r in numbers["arms"]}) > 1
    cols = (["models"] if show_models else []) + [
        "arm", "budget", "trials", "worst out tokens/trial", "worst out tokens",
        "worst cost", "cost covers"]
    for c in cols:
        table.add_column(c, justify="left" if c in ("models", "arm", "cost covers") else "right")
    for r in numbers["arms"]:
        table.add_row(*([r["models"]] if show_models else []), escape(r["arm"]), r["budget"],
                      str(r["trials"]), _tokens(r["worst_output_tokens_per_trial"]),
                      _tokens(r["worst_output_tokens"]), fmt_usd(r["worst_cost_usd"]),
                      r["cost_covers"])
    console.print(table)
    console.print(f"worst case: {_tokens(numbers['worst_output_tokens'])} output tokens, "
                  f"{fmt_usd(numbers['worst_cost_usd'])} (no price: -)", highlight=False)
    seconds = numbers["expected_duration_s"]
    console.print("expected duration: " + (f"up to {_duration(seconds)}" if seconds is not None
                                           else "unknown") + f" ({numbers['duration_basis']})",
                  highlight=False, markup=False)
    if numbers["tasks_note"]:
        console.print(f"[yellow]note[/]: {numbers['tasks_note']}", highlight=False)
