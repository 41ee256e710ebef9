"""The experiment config: suites x strategies x models x budgets x seeds, plus run options.

Written as TOML (or as the JSON that `tether run` saves as `config.resolved.json`,
which runs again verbatim):

    name = "demo"
    suites = ["code", "tether:my_tasks.json"]   # suite specs (tether.suites.load_suite)
    tasks = ["fizz*", "re:^sort_"]              # optional: glob, or re:REGEX, on task ids
    limit = 5                                   # optional: first N tasks of each suite
    metric = "geometry;profile=reference"       # optional: every task's metric instrument
                                                # (default: each task's own)
    seeds = [0, 1, 2]                           # or a count: seeds = 3 means 0, 1, 2
    budgets = [512, {total = 2048, count = "input+output", shares = {reviewer = 0.5}}]

    [models]                                    # one configuration; [[models]] for several
    proposer = "local/smollm2-135m"
    reviewer = "openai/gpt-4o-mini"

    [[strategies]]
    name = "proposer_reviewer"                  # calls the proposer and the reviewer
    label = "H"                                 # optional: the arm's name in reports
    params = {max_tokens = 512}                 # a list is a grid: one arm per value
                                                # (tether.runs.grids)

    [stats]                                     # optional: how intervals are resampled
    n_resamples = 5000                          # default 10,000 (tether.stats.Resampling)

    [run]
    concurrency = 4
    cache = "off"                               # off | read | write | readwrite
    sandbox = "bwrap"                           # or "subprocess" (unsafe, for tests)
    endpoint_failures = 3                       # stop starting trials on an endpoint after
                                                # N in a row could not connect (0: never)

Shorthands are normalised before validation (a strategy named by a string, a budget
given as its total, a single `[models]` table), so validation errors point at the
key the user wrote: `file: strategies[1].params: ...`.

Every table is strict: an unknown key is an error with a "did you mean" hint, and so
is a `[models]` role or a budget share no strategy or instrument of the experiment
calls, or a share outside [0, 1] or shares summing past 1 (`tether.runs.roles`: the
roles are what the strategies and instruments declare, never a list kept here).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tether.core import BudgetSpec
from tether.errors import ConfigError
from tether.models import CACHE_MODES
from tether.runs.breaker import DEFAULT_FAILURES
from tether.runs.grids import as_written, expand_grids
from tether.runs.overrides import apply_sets
from tether.runs.roles import check_model_roles, check_shares
from tether.runs.shipped import config_path
from tether.runs.strict import read_config, strict_model
from tether.stats import Resampling

_STRICT = ConfigDict(extra="forbid")


class StrategyArm(BaseModel):
    """One arm: a strategy with its parameters, named by `label` in reports."""

    model_config = _STRICT
    name: str
    params: dict[str, Any] = Field(default_factory=dict)
    label: str = ""

    @property
    def arm(self) -> str:
        return self.label or self.name


class ModelConfig(BaseModel):
    """A model spec per role; `proposer` is required, other roles fall back to it."""

    model_config = ConfigDict(extra="allow")
    label: str = ""
    proposer: str

    @property
    def roles(self) -> dict[str, str]:
        return {k: v for k, v in self.model_dump().items() if k != "label"}

    @model_validator(mode="before")
    @classmethod
    def _spec_strings(cls, v: Any) -> Any:
        if isinstance(v, dict):
            if "proposer" not in v:  # say what it is for: a strategy's roles fall back to it
                named = [k for k in v if k != "label"]
                raise ValueError(
                    "proposer: required: the model every role without a spec of its own uses"
                    + (f"; this set names only {', '.join(named)}: rename one to proposer, "
                       "or add proposer" if named else ""))
            for role, spec in v.items():
                if not isinstance(spec, str) or not spec.strip():
                    raise ValueError(f"{role}: expected a model spec string "
                                     "(see `tether models list`)")
        return v


class BudgetEntry(BaseModel):
    model_config = _STRICT
    total: int | None = Field(default=None, ge=1)
    count: Literal["output", "input+output"] = "output"
    shares: dict[str, float] = Field(default_factory=dict)

    def spec(self) -> BudgetSpec:
        return BudgetSpec(total=self.total, count=self.count, shares=self.shares)


class RunOptions(BaseModel):
    """How to run (never which trials): changing these does not change trial ids."""

    model_config = _STRICT
    concurrency: int = Field(default=4, ge=1)
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    cache: Literal["off", "read", "write", "readwrite"] = "off"
    cache_file: str | None = None
    cache_scope: str = ""
    sandbox: Literal["bwrap", "subprocess"] = "bwrap"
    #: after this many trials in a row could not connect to one endpoint, its trials
    #: still to start are recorded as errors instead (runs.breaker); 0 never stops
    endpoint_failures: int = Field(default=DEFAULT_FAILURES, ge=0)


#: the most seeds one config may name
MAX_SEEDS = 10_000


class ReportOptions(BaseModel):
    """How `tether report` analyses the run (never which trials run).

    judge_statistics: "tether" (per (task, seed) pair within each model setup, sign-flip
    p-values adjusted by Benjamini-Hochberg) or "paper" (the turn-level best-of-N paper's:
    arms pooled over model setups, paired bootstrap over tasks, unadjusted p-values).
    judge_sample: "all" judged trajectories, or "baseline-failed" (the paper's sample: tasks
    the baseline failed at least once, one seeded-random trajectory per task and arm).
    See tether.report.judged_paper.
    """

    model_config = _STRICT
    judge_statistics: Literal["tether", "paper"] = "tether"
    judge_sample: Literal["all", "baseline-failed"] = "all"


class Experiment(BaseModel):
    model_config = _STRICT
    name: str = ""
    suites: list[str] = Field(min_length=1)
    tasks: list[str] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1)
    #: the metric instrument spec of every task, in place of each task's own (a study's
    #: instrument profile, say); None keeps the tasks' metrics
    metric: str | None = None
    strategies: list[StrategyArm] = Field(min_length=1)
    models: list[ModelConfig] = Field(min_length=1)
    budgets: list[BudgetEntry] = Field(default_factory=lambda: [BudgetEntry()])
    seeds: list[int] = Field(default_factory=lambda: [0])
    run: RunOptions = Field(default_factory=RunOptions)
    stats: Resampling = Field(default_factory=Resampling)
    report: ReportOptions = Field(default_factory=ReportOptions)

    @field_validator("suites", "tasks", mode="before")
    @classmethod
    def _one_string(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("strategies", mode="before")
    @classmethod
    def _strategy_names(cls, v: Any) -> Any:
        if isinstance(v, str | dict):
            v = [v]
        if not isinstance(v, list):
            return v
        return expand_grids([{"name": s} if isinstance(s, str) else s for s in v])

    @field_validator("models", mode="before")
    @classmethod
    def _model_tables(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [{"proposer": v}]
        return [v] if isinstance(v, dict) else v

    @field_validator("budgets", mode="before")
    @classmethod
    def _budget_totals(cls, v: Any) -> Any:
        if isinstance(v, int | dict):
            v = [v]
        if isinstance(v, list):
            return [{"total": b} if isinstance(b, int) and not isinstance(b, bool) else b
                    for b in v]
        return v

    @field_validator("seeds", mode="before")
    @classmethod
    def _seed_count(cls, v: Any) -> Any:
        if isinstance(v, int) and not isinstance(v, bool):
            if not 1 <= v <= MAX_SEEDS:
                raise ValueError(f"a seed count must be from 1 to {MAX_SEEDS:,}")
            return list(range(v))
        if isinstance(v, list) and not v:
            raise ValueError("no seeds: a run of no trials (give at least one seed)")
        if isinstance(v, list) and len(v) > MAX_SEEDS:
            raise ValueError(f"{len(v):,} seeds; at most {MAX_SEEDS:,}")
        return v

    def resolved(self) -> dict[str, Any]:
        """The canonical JSON form, with labels filled in: what `config.resolved.json` holds."""
        data = self.model_dump(mode="json")
        for arm, row in zip(self.strategies, data["strategies"], strict=True):
            row["label"] = arm.arm
            row["params"] = as_written(row["params"])  # read back as the same arms
        for i, (mc, row) in enumerate(zip(self.models, data["models"], strict=True)):
            row["label"] = mc.label or (mc.proposer if len(self.models) == 1 else f"models{i}")
        if self.report == ReportOptions():
            del data["report"]  # runs resolved before [report] existed read the same
        if self.metric is None:
            del data["metric"]  # likewise for the metric override
        return data


_KEYS: dict[tuple[str, ...], type[BaseModel]] = {
    (): Experiment, ("strategies",): StrategyArm, ("budgets",): BudgetEntry,
    ("run",): RunOptions, ("models",): ModelConfig, ("stats",): Resampling,
}


def experiment_from_dict(data: Any, source: str, *, check_roles: bool = True) -> Experiment:
    """Validate a parsed config; ConfigError names `source`, the dotted key and what was wanted.

    Each arm's params are checked against its strategy's declaration, building nothing
    (`tether.params`). `check_roles=False` skips that and the check of `[models]` roles
    and shares against what the strategies declare: for reading back what a finished run
    ran, never for running."""
    exp = strict_model(Experiment, data, source, tables=_KEYS, what="experiment keys",
                 hint="see the experiment config format in the README")
    declared = _check_arms(exp, source, build=check_roles)
    if not check_roles:
        return exp
    try:
        check_model_roles(exp, declared)
        check_shares(exp, declared)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}", hint=exc.hint) from None
    return exp


def _check_arms(exp: Experiment, source: str, *, build: bool = True) -> tuple[str, ...]:
    """Check every arm's params against its strategy's declaration (nothing is built:
    `tether.params`); the roles they declare. With `build=False` only the arms' labels
    are checked (no roles are returned): reading back a finished run checks nothing a
    strategy's params may name (a compiled harness's file may have moved since)."""
    from tether.strategies import strategy_roles

    seen: dict[str, int] = {}
    roles: dict[str, None] = {}
    for i, arm in enumerate(exp.strategies):
        try:
            if build:
                roles.update(dict.fromkeys(strategy_roles(arm.name, arm.params)))
        except ConfigError as exc:
            raise ConfigError(f"{source}: strategies[{i}]: {exc}", hint=exc.hint) from None
        if arm.arm in seen:
            raise ConfigError(
                f"{source}: strategies[{i}]: arm {arm.arm!r} is also strategies[{seen[arm.arm]}]",
                hint="give each arm of the same strategy its own label = \"...\"")
        seen[arm.arm] = i
    labels = [m["label"] for m in exp.resolved()["models"]]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{source}: models: two configurations share the label(s) "
                          f"{sorted({x for x in labels if labels.count(x) > 1})}",
                          hint="give each [[models]] entry its own label")
    return tuple(roles)


def load_experiment(path: str | Path, sets: list[str] | tuple[str, ...] = ()) -> Experiment:
    """Read a TOML (or resolved JSON) experiment file, or a shipped experiment by name
    (`humaneval`: tether.runs.shipped); relative suite paths resolve
    against the file's directory so the config runs from anywhere. `sets` are
    `--set KEY=VALUE` overrides applied before validation (tether.runs.overrides)."""
    p = config_path(path)  # a file, or the name of a shipped experiment (runs/shipped.py)
    data = read_config(p, what="an experiment TOML file or a run's config.resolved.json")
    if sets:
        data = apply_sets(data, sets) if isinstance(data, dict) else data
    exp = experiment_from_dict(data, str(p))
    return exp.model_copy(update={"suites": [_anchor(s, p.parent) for s in exp.suites]})


#: how errors name an experiment given as a dict (`tether.run`) instead of a file
DICT_SOURCE = "experiment"


def experiment_from_mapping(data: Mapping[str, Any],
                            sets: list[str] | tuple[str, ...] = ()) -> Experiment:
    """An experiment given as a dict in the config schema (what a TOML file parses to),
    as `load_experiment` reads a file: `sets` applied first, then validated; a relative
    suite path resolves against the working directory, so the run's resolved config
    means the same files from anywhere (a resume)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{DICT_SOURCE}: expected a dict of experiment keys, "
                          f"not {type(data).__name__}",
                          hint="pass a dict in the config schema, or a config file's path")
    plain = apply_sets(dict(data), sets) if sets else dict(data)
    exp = experiment_from_dict(plain, DICT_SOURCE)
    return exp.model_copy(update={"suites": [_anchor(s, Path.cwd()) for s in exp.suites]})


def _anchor(spec: str, base: Path) -> str:
    """Make a relative path inside a suite spec absolute, relative to the config's
    directory, so a config means the same files from any working directory. A path found
    only from the working directory (a `--set` typed in a shell) is kept as given; one
    found nowhere is anchored too, so the error names where the config points. A bare
    name (`code`, `harbor-gated:tb2`) is no path and stays as it is."""
    prefix, sep, rest = spec.partition(":")
    head, path = (prefix + sep, rest) if sep and len(prefix) > 1 else ("", spec)
    if not path or Path(path).is_absolute():
        return spec
    anchored = head + str((base / path).resolve())
    if (base / path).exists():
        return anchored
    if Path(path).exists() or "/" not in path:
        return spec
    return anchored


__all__ = ["CACHE_MODES", "DICT_SOURCE", "BudgetEntry", "Experiment", "ModelConfig",
           "RunOptions", "StrategyArm", "experiment_from_dict", "experiment_from_mapping",
           "load_experiment"]
