"""`tether run CONFIG --plan`: the run's size, worst-case tokens and cost; no model call.

How each number is made is tether.runs.planning's docstring; the suites are loaded (to count
tasks) but no model is built and no run directory is written.
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.markup import escape
from rich.table import Table

from tether.cli.console import make_console
from tether.errors import ConfigError
from tether.models import load_price_table
from tether.runs import (
    RunRequest,
    _apply_overrides,
    fmt_usd,
    load_experiment,
    load_tasks,
    plan,
    run_book,
)


def _tokens(x: int | None) -> str:
    return "uncapped" if x is None else f"{x:,}"


def _duration(s: float | None) -> str:
    if s is None:
        return "unknown"
    h, rem = divmod(int(round(s)), 3600)
    return f"{h}h {rem // 60:02d}m" if h else f"{rem // 60}m {rem % 60:02d}s"


def plan_numbers(req: RunRequest, tokens_per_s: float | None) -> dict[str, Any]:
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
    numbers = plan(exp, n_tasks, run_book(exp.resolved(), table), tokens_per_s, note)
    return {"config": req.config, "name": exp.name, "overrides": list(req.sets), **numbers}


def show_plan(req: RunRequest, tokens_per_s: float | None, as_json: bool) -> None:
    numbers = plan_numbers(req, tokens_per_s)
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
    console.print("expected duration: " + (f"at most {_duration(seconds)}" if seconds is not None
                                           else "unknown") + f" ({numbers['duration_basis']})",
                  highlight=False)
    if numbers["tasks_note"]:
        console.print(f"[yellow]note[/]: {numbers['tasks_note']}", highlight=False)
