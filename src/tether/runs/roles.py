"""Which roles an experiment calls, and the check of `[models]` and budget shares against them.

No list of roles lives here: each strategy declares the roles it calls (`roles`, as
built with its params: see `tether.strategies.base.Strategy`), model-backed
instruments declare that they call a model (`calls_model`), and the trial context
says which role such an instrument's calls are made under for each purpose
(`tether.context.role_for`). A config may then name
- a model for a declared role, for the fallback role (`proposer`, whose model serves
  every role without one), and for the metric role when a task's metric instrument
  calls a model (checked once the tasks are loaded: `check_metric_model`);
- a budget share for a declared role, and the `execution` share that buys feedback
  cycles (`tether.strategies.feedback`). Shares are fractions of the budget's total:
  each between 0 and 1, together at most 1, and only on a budget with a total.
Anything else would be accepted and silently ignored (a typo'd role's calls would go
to the proposer's model, a negative share would end every trial at once), so it is
a ConfigError naming the key, with a "did you mean" hint.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from tether.context import FALLBACK_ROLE, instrument_roles, role_for
from tether.core import Task
from tether.errors import ConfigError, did_you_mean
from tether.strategies import EXECUTION_SHARE

if TYPE_CHECKING:
    from tether.runs.config import Experiment

#: slack for shares written as decimals (0.33 + 0.34 + 0.33 is a hair over 1 in floats)
_SUM_SLACK = 1e-9


def _listed(names: Iterable[str]) -> str:
    return ", ".join(sorted(set(names))) or "none"


def check_model_roles(exp: Experiment, declared: Sequence[str]) -> None:
    """Every `[models]` key is a role something of the experiment calls (`declared`: the
    strategies' roles), the fallback role, or the metric role (checked with the tasks)."""
    allowed = {*declared, FALLBACK_ROLE, role_for("metric")}
    for i, mc in enumerate(exp.models):
        for role in mc.roles:
            if role not in allowed:
                raise ConfigError(
                    f"models[{i}].{role}: no strategy or instrument of this experiment "
                    f"calls the role {role!r}",
                    hint=f"{did_you_mean(role, allowed)}roles called here: "
                         f"{_listed({*declared, FALLBACK_ROLE})} (a role without a model "
                         f"of its own uses the {FALLBACK_ROLE}'s)")


def check_shares(exp: Experiment, declared: Sequence[str]) -> None:
    """Each budget's shares: a declared role or `execution`, in [0, 1], summing to <= 1."""
    allowed = {*declared, EXECUTION_SHARE}
    for i, budget in enumerate(exp.budgets):
        where = f"budgets[{i}].shares"
        for key, share in budget.shares.items():
            if key not in allowed:
                raise ConfigError(
                    f"{where}.{key}: no strategy or instrument of this experiment calls "
                    f"the role {key!r}, so a share for it would cap nothing",
                    hint=f"{did_you_mean(key, allowed)}shares allowed here: "
                         f"{_listed(allowed)}")
            if not 0 <= share <= 1:
                raise ConfigError(
                    f"{where}.{key}: a share is a fraction of the budget's total, between "
                    f"0 and 1 (got {share:g})",
                    hint=f"e.g. {key} = 0.5 gives {key} half of the total")
        total = sum(budget.shares.values())
        if total > 1 + _SUM_SLACK:
            raise ConfigError(
                f"{where}: the shares add up to {total:g}, more than the whole budget (1)",
                hint="shares are fractions of one total: make them sum to 1 or less")
        if budget.shares and budget.total is None:
            raise ConfigError(
                f"{where}: shares are fractions of a total, and this budget has none",
                hint="give the budget a total: {total = 5000, shares = {...}}")


def check_metric_model(exp: Experiment, tasks: Sequence[Task]) -> None:
    """A model for the metric role needs a task whose metric instrument calls a model."""
    role = role_for("metric")
    uses = {r for spec in {t.metric for t in tasks} for r in instrument_roles(spec, "metric")}
    if role in uses:
        return
    for i, mc in enumerate(exp.models):
        if role in mc.roles:
            raise ConfigError(
                f"models[{i}].{role}: no task's metric instrument calls a model (metrics: "
                f"{_listed(t.metric for t in tasks)})",
                hint=f"remove it: `{role}` names the model of a model-backed metric "
                     "such as screenshot_judge")
