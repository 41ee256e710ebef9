"""Expanding an experiment into trials, in one deterministic order.

The order is suite, task, model configuration, strategy arm, budget, seed: a run
stopped early has every arm of its first tasks, which is what paired comparisons
need. A trial's index is its position in that order, so the same config always
gives the same indices, and its id is the hash of its spec, so resume can match it.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass

from tether.core import Task, TrialSpec
from tether.errors import ConfigError
from tether.runs.config import Experiment
from tether.runs.roles import check_metric_model

SuiteLoader = Callable[[str], list[Task]]


@dataclass(frozen=True)
class PlannedTrial:
    index: int
    spec: TrialSpec
    task: Task


def _matcher(pattern: str, i: int) -> Callable[[Task], bool]:
    if pattern.startswith("re:"):
        try:
            rx = re.compile(pattern[3:])
        except re.error as exc:
            raise ConfigError(f"tasks[{i}]: bad regular expression {pattern[3:]!r}: {exc}",
                              hint="write re:REGEX, or a glob like fizz*") from None
        return lambda t: bool(rx.search(t.id) or rx.search(t.key))
    return lambda t: fnmatch.fnmatchcase(t.id, pattern) or fnmatch.fnmatchcase(t.key, pattern)


def select_tasks(tasks: list[Task], patterns: list[str], limit: int | None) -> list[Task]:
    """Tasks whose id (or suite/id) matches any pattern (all when none), first `limit`."""
    if patterns:
        matchers = [_matcher(p, i) for i, p in enumerate(patterns)]
        tasks = [t for t in tasks if any(m(t) for m in matchers)]
    return tasks[:limit] if limit else tasks


def _default_loader(spec: str) -> list[Task]:
    try:
        from tether.suites import load_suite
    except ImportError:  # the package's curated __init__ may not exist yet
        from tether.suites import load_suite
    return load_suite(spec)


def load_tasks(exp: Experiment, load: SuiteLoader | None = None) -> list[Task]:
    """Every selected task of every suite, in config order; ConfigError when none is left,
    or when a model is named for the metric role and no task's metric calls a model."""
    load = load or _default_loader
    out: list[Task] = []
    seen: set[str] = set()
    for i, spec in enumerate(exp.suites):
        try:
            loaded = load(spec)
        except ConfigError as exc:
            raise ConfigError(f"suites[{i}]: {exc}", hint=exc.hint) from None
        chosen = select_tasks(loaded, exp.tasks, exp.limit)
        for task in chosen:
            if task.key in seen:
                raise ConfigError(f"task {task.key} appears twice (suite spec {spec!r})",
                                  hint="list each suite once, or give the suites distinct names")
            seen.add(task.key)
        out.extend(chosen)
    if not out:
        raise ConfigError(f"no task selected from suites {exp.suites} with filter {exp.tasks}",
                          hint="check the `tasks` patterns (globs on task ids, or re:REGEX)")
    if exp.metric is not None:  # the config's metric instrument for every task
        out = [t.model_copy(update={"metric": exp.metric}) for t in out]
    _check_metrics(out)
    check_metric_model(exp, out)
    return out


def _check_metrics(tasks: list[Task]) -> None:
    # An unknown metric instrument would fail every trial of the task: say so up front.
    from tether.instruments import check_instrument

    checked: set[str] = set()
    for task in tasks:
        if task.metric not in checked:
            checked.add(task.metric)
            try:
                check_instrument(task.metric)
            except ConfigError as exc:
                raise ConfigError(f"task {task.key}: metric: {exc}", hint=exc.hint) from None


def expand(exp: Experiment, tasks: list[Task]) -> list[PlannedTrial]:
    """Every trial of the experiment over `tasks`, with stable indices."""
    resolved = exp.resolved()
    planned: list[PlannedTrial] = []
    ids: dict[str, int] = {}
    for task in tasks:
        for models in resolved["models"]:
            roles = {k: v for k, v in models.items() if k != "label"}
            for arm in exp.strategies:
                for budget in exp.budgets:
                    for seed in exp.seeds:
                        spec = TrialSpec(
                            suite=task.suite, task_id=task.id, strategy=arm.name,
                            strategy_params=arm.params, models=roles, budget=budget.spec(),
                            seed=seed, label=arm.arm)
                        if spec.trial_id in ids:
                            raise ConfigError(
                                f"trial {spec.trial_id} ({task.key}, {arm.arm}, seed {seed}) "
                                f"is planned twice (as #{ids[spec.trial_id]} and #{len(planned)})",
                                hint="remove the duplicated budget, seed or model entry")
                        ids[spec.trial_id] = len(planned)
                        planned.append(PlannedTrial(len(planned), spec, task))
    return planned
