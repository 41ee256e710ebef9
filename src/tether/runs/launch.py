"""Starting or resuming a run: from a config (or a run directory) to trials still to do.

A new run writes its resolved config first, so a run killed at any moment can be
resumed: `--resume RUN_DIR` re-expands that config, and only trials with no
committed record (and, with `--retry-errors`, those that ended in `error`) run again.
A resume first takes back from `trials.jsonl` every trial the store lacks (a store
emptied, deleted or replaced by an older copy), so finished trials never run again;
a damaged store is refused (`StoreError`), never overwritten.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether import __version__
from tether.core import Task, TrialRecord
from tether.errors import ConfigError, TetherError
from tether.instruments import InstrumentEnv, warm_up
from tether.models import load_price_table
from tether.runs.breaker import EndpointBreaker
from tether.runs.config import Experiment, experiment_from_dict, load_experiment
from tether.runs.costs import META_KEY as COST_META
from tether.runs.expansion import PlannedTrial, SuiteLoader, expand, load_tasks
from tether.runs.rebuild import reopen
from tether.runs.runner import (
    CachingModelFactory,
    Executor,
    LocalExecutor,
    default_cache_file,
    drive,
    make_trial_fn,
    pending,
)
from tether.runs.store import COMMAND_META, CONFIG_NAME, DB_NAME, LOG_NAME, RunStore

#: run options a command line may override; they never change which trials exist
RUN_OVERRIDES = ("concurrency", "executor", "ray_address", "cache", "cache_file")


@dataclass
class RunRequest:
    config: str | None = None
    out: str | None = None
    resume: str | None = None
    retry_errors: bool = False
    limit: int | None = None
    overrides: dict[str, Any] | None = None
    #: `--set KEY=VALUE` changes to the experiment (tether.runs.overrides)
    sets: tuple[str, ...] = ()
    #: a price table file (tether.models.pricing), kept with the run for its costs
    prices: str | None = None


@dataclass
class PreparedRun:
    store: RunStore
    experiment: Experiment
    planned: list[PlannedTrial]
    todo: list[PlannedTrial]
    resumed: bool
    #: trials a resume took back from trials.jsonl into the store
    restored: int = 0
    #: lines of trials.jsonl that were not a record (cut short by a crash)
    unreadable_log_lines: int = 0

    @property
    def options(self) -> Any:
        return self.experiment.run


def tether_revision() -> dict[str, Any]:
    """The git commit of the tether checkout this code runs from, else only the version."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"],
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        out = None
    commit = out.stdout.strip() if out is not None and out.returncode == 0 else None
    return {"version": __version__, "commit": commit}


def _apply_overrides(exp: Experiment, overrides: dict[str, Any] | None) -> Experiment:
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    unknown = set(given) - set(RUN_OVERRIDES)
    if unknown:
        raise ConfigError(f"unknown run option(s) {sorted(unknown)}")
    if "cache_file" in given:
        given["cache_file"] = str(Path(given["cache_file"]).resolve())
    if "cache_file" in given and "cache" not in given and exp.run.cache == "off":
        given["cache"] = "readwrite"  # naming a cache file means using it
    run = exp.run.model_validate({**exp.run.model_dump(), **given})
    return exp.model_copy(update={"run": run})


def _without_run(resolved: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in resolved.items() if k != "run"}


def _default_out(config: str) -> Path:
    return Path("runs") / f"{Path(config).stem}-{time.strftime('%Y%m%d-%H%M%S')}"


def _open_resume(req: RunRequest) -> tuple[RunStore, Experiment, int, int]:
    run_dir = Path(req.resume or "")
    reopened = reopen(run_dir)
    store = reopened.store
    written_by = store.meta(COMMAND_META)
    if written_by is not None:  # another command's run directory (a compile)
        store.close()
        raise ConfigError(f"{run_dir} was written by `tether {written_by}`",
                          hint=f"resume it with: tether {written_by} --resume {run_dir}")
    stored = store.config()
    if not stored:
        store.close()
        raise ConfigError(f"{run_dir} has no resolved config to resume from",
                          hint=f"start it again: tether run CONFIG --out {run_dir}")
    if store.meta("config") is None:
        store.set_meta("config", stored)  # a remade store takes it from the file
    exp = experiment_from_dict(stored, str(run_dir / CONFIG_NAME))
    if req.config:
        given = load_experiment(req.config)
        if req.limit:
            given = given.model_copy(update={"limit": req.limit})
        if _without_run(given.resolved()) != _without_run(exp.resolved()):
            raise ConfigError(f"{req.config} is not the experiment {run_dir} was started with",
                              hint=f"resume without CONFIG (tether run --resume {run_dir}), "
                                   "or start a new run with --out")
    elif req.limit and req.limit != exp.limit:
        raise ConfigError("--limit changes which trials the run has; not allowed with --resume",
                          hint=f"resume as it was: tether run --resume {run_dir}")
    return store, exp, reopened.restored, reopened.unreadable


def _open_new(req: RunRequest, exp: Experiment) -> RunStore:
    out = Path(req.out) if req.out else _default_out(req.config or "run")
    if (out / DB_NAME).is_file():
        raise ConfigError(f"{out} already holds a run",
                          hint=f"continue it with --resume {out}, or choose another --out")
    if (out / LOG_NAME).is_file():
        # its log is the only copy of those trials: a new run must not append to it
        raise ConfigError(f"{out} already holds trials ({LOG_NAME})",
                          hint=f"continue that run with --resume {out}, "
                               "or choose another --out")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} exists and is not a directory")
    try:
        store = RunStore(out, create=True)
    except OSError as exc:
        raise ConfigError(f"cannot create run directory {out}: {exc.strerror}") from None
    store.write_config(exp.resolved())
    return store


def _check_models(exp: Experiment, factory: Callable[[str], Any]) -> None:
    # A spec no backend understands would fail every trial: refuse the run instead.
    checked: set[str] = set()
    for i, mc in enumerate(exp.models):
        for role, spec in mc.roles.items():
            if spec in checked:
                continue
            checked.add(spec)
            try:
                factory(spec)
            except TetherError as exc:
                raise ConfigError(f"models[{i}].{role}: {exc}", hint=exc.hint) from None


def prepare(req: RunRequest, *, load: SuiteLoader | None = None) -> PreparedRun:
    """Open or create the run directory and work out which trials are still to run."""
    restored = unreadable = 0
    table = load_price_table(req.prices) if req.prices else None
    if req.resume and req.sets:
        raise ConfigError("--set changes the experiment; not allowed with --resume",
                          hint="start a new run with the override and --out")
    if req.resume:
        store, exp, restored, unreadable = _open_resume(req)
    else:
        if not req.config:
            raise ConfigError("no experiment given",
                              hint="tether run CONFIG, or tether run --resume RUN_DIR")
        exp = load_experiment(req.config, req.sets)
        if req.limit:
            exp = exp.model_copy(update={"limit": req.limit})
        store = None
    exp = _apply_overrides(exp, req.overrides)
    # what the experiment names (suites, task filters, metrics, model specs) is checked
    # here, past the config's own validation: its errors name the config file too
    source = str(Path(req.resume) / CONFIG_NAME) if req.resume else str(req.config)
    try:
        tasks = load_tasks(exp, load)
        planned = expand(exp, tasks)
        _check_models(exp, CachingModelFactory())
    except ConfigError as exc:
        if store is not None:
            store.close()
        raise ConfigError(f"{source}: {exc}", hint=exc.hint) from None
    if exp.run.executor == "ray":
        from tether.runs.ray_executor import import_ray

        import_ray()  # refuse before a run directory is made
    if store is None:
        store = _open_new(req, exp)
    store.set_meta("tether", tether_revision())
    store.set_meta("tasks", _task_rows(tasks))
    store.set_meta("models", exp.resolved()["models"])
    store.set_meta("run_options", exp.run.model_dump(mode="json"))
    if req.sets:
        store.set_meta("overrides", list(req.sets))
    if table:
        store.set_meta(COST_META, {k: {"price_in": p.price_in, "price_out": p.price_out}
                                   for k, p in table.items()})
    todo = pending(planned, store.statuses(), req.retry_errors)
    return PreparedRun(store, exp, planned, todo, resumed=bool(req.resume), restored=restored,
                       unreadable_log_lines=unreadable)


def _task_rows(tasks: list[Task]) -> dict[str, Any]:
    return {t.key: t.model_dump(mode="json") for t in tasks}


def make_executor(run: PreparedRun) -> Executor:
    opts = run.options
    cache = {"mode": opts.cache, "scope": opts.cache_scope,
             "cache_file": default_cache_file(run.store.dir, opts.cache_file)
             if opts.cache != "off" else None}
    if opts.executor == "ray":
        from tether.runs.ray_executor import RayExecutor

        return RayExecutor(opts.concurrency, cache, opts.sandbox, opts.ray_address)
    trial_fn = make_trial_fn(CachingModelFactory(**cache), InstrumentEnv(sandbox=opts.sandbox),
                             run.store)
    return LocalExecutor(opts.concurrency, trial_fn)


def _warm_up(run: PreparedRun) -> None:
    """Let the metric instruments of the trials to run get ready for the run's
    concurrency while the first model calls are out (the execution instrument starts
    its warm sandboxes): in this process, so for the local executor only."""
    env = InstrumentEnv(sandbox=run.options.sandbox)
    concurrency = min(run.options.concurrency, len(run.todo))
    for spec in sorted({p.task.metric for p in run.todo}):
        warm_up(spec, env, concurrency)


@dataclass
class RunResult:
    committed_now: int
    interrupted: bool
    records: list[TrialRecord]
    #: endpoints whose remaining trials were not started (they kept refusing connections)
    endpoints_down: list[str] = field(default_factory=list)

    @property
    def errored(self) -> int:
        return sum(1 for r in self.records if r.status == "error")


def execute(run: PreparedRun, *, stop: threading.Event | None = None,
            executor: Executor | None = None,
            on_commit: Callable[[TrialRecord], None] | None = None,
            on_endpoint_down: Callable[[str, int], None] | None = None) -> RunResult:
    """Run what is left, commit as trials end, then record how the run ended.

    `on_endpoint_down(endpoint, failures)` is called (from a worker thread) when the
    run stops starting trials on an endpoint that keeps refusing connections.
    """
    stop = stop or threading.Event()
    executor = executor or make_executor(run)
    if executor.name == "local":  # beside the first trials, not before them
        threading.Thread(target=_warm_up, args=(run,), name="tether-warm-up",
                         daemon=True).start()
    store = run.store
    store.set_meta("started_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    store.set_meta("executor", executor.name)
    breaker = EndpointBreaker(run.options.endpoint_failures, on_open=on_endpoint_down)
    committed = drive(store, run.todo, executor, stop, on_commit, gate=breaker)
    interrupted = stop.is_set() and committed < len(run.todo)
    planned_ids = {p.spec.trial_id for p in run.planned}
    records = [r for r in store.trials() if r.trial_id in planned_ids]
    store.set_meta("model_ids", sorted({c.model_id for r in records for c in r.calls}))
    store.set_meta("ended", {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                             "interrupted": interrupted, "committed": len(records),
                             "planned": len(run.planned)})
    return RunResult(committed, interrupted, records, breaker.open_endpoints)
