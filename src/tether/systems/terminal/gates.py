"""Quality gates for a terminal task: the oracle passes, doing nothing fails, and the
verifier gives the same answer twice on the same final state.

A task that fails a gate is a broken task, not a hard one: an oracle that cannot pass
means the verifier (or the setup) is wrong; a null agent that passes means the task
rewards doing nothing; a verifier that disagrees with itself is flaky.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tether.core import Task
from tether.errors import ConfigError, TetherError
from tether.sandbox import Sandbox
from tether.systems.terminal.environment import TerminalEnvironment, VerifierResult
from tether.systems.terminal.harbor import expand_task_dirs, load_harbor_task


@dataclass(frozen=True)
class GateRow:
    """One task's gates. error is set when a gate could not be evaluated at all."""

    task: str
    oracle_reward: float | None
    null_reward: float | None
    deterministic: bool | None
    error: str | None
    duration_s: float = 0.0
    #: the gates ran with the package registries reachable (tether tasks check --registry)
    registry_access: bool = False
    #: every request the solution and setup made through the registry proxy
    registry_requests: tuple[dict[str, object], ...] = ()

    @property
    def ok(self) -> bool:
        return (self.error is None and self.oracle_reward == 1.0 and self.null_reward == 0.0
                and self.deterministic is True)

    def to_json(self) -> dict[str, object]:
        return {"task": self.task, "oracle_reward": self.oracle_reward,
                "null_reward": self.null_reward, "deterministic": self.deterministic,
                "error": self.error, "registry_access": self.registry_access,
                "registry_requests": list(self.registry_requests)}


def _describe(result: VerifierResult, who: str) -> str | None:
    return None if result.error is None else f"{who} verifier: {result.error}"


def check_task(task: Task, *, sandbox: Sandbox | str = "bwrap",
               registry_access: bool = False) -> GateRow:
    """Run the null, oracle and determinism gates of one task (never raises).

    registry_access: the setup and the solution may reach the package registries
    through the logging proxy (the verifier never does), as in a run with the option."""
    start = time.monotonic()
    errors: list[str] = []
    oracle = null = None
    deterministic: bool | None = None
    requests: tuple[dict[str, object], ...] = ()
    try:
        with TerminalEnvironment.for_task(task, sandbox=sandbox,
                                          registry_access=registry_access) as env:
            first = env.verify()  # the null agent: submit at once
            null = first.reward
            errors += filter(None, [_describe(first, "null")])
            solved = env.run_solution()
            if solved.returncode != 0 or solved.timed_out:
                errors.append(f"solve.sh failed (exit {solved.returncode}"
                              f"{', timed out' if solved.timed_out else ''}): "
                              f"{solved.output[-300:]}")
            runs = [env.verify(), env.verify()]
            oracle = runs[0].reward
            errors += filter(None, [_describe(r, "oracle") for r in runs])
            if runs[0].error is None and runs[1].error is None:
                deterministic = runs[0].reward == runs[1].reward
            if oracle is not None and oracle != 1.0:
                errors.append(f"oracle got reward {oracle}: {runs[0].output[-300:]}")
            registry = env.record()["registry"]
            if isinstance(registry, dict):
                requests = tuple(registry.get("requests") or ())
    except (TetherError, OSError) as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    return GateRow(task=task.id, oracle_reward=oracle, null_reward=null,
                   deterministic=deterministic, error="; ".join(errors) or None,
                   duration_s=time.monotonic() - start, registry_access=registry_access,
                   registry_requests=requests)


@dataclass(frozen=True)
class Unloadable:
    """A path given to check that is no loadable task: it gets a failing row of its own,
    so one broken dir never keeps the others from being checked."""

    name: str
    error: str


def check_tasks(tasks: Sequence[Task | Unloadable], *, jobs: int = 2,
                sandbox: Sandbox | str = "bwrap",
                on_row: Callable[[GateRow], None] | None = None,
                registry_access: bool = False) -> list[GateRow]:
    """Gates for many tasks, `jobs` at a time; rows come back in the input order (an
    `Unloadable` is a row with its error and no reward)."""

    def one(task: Task | Unloadable) -> GateRow:
        if isinstance(task, Unloadable):
            row = GateRow(task=task.name, oracle_reward=None, null_reward=None,
                          deterministic=None, error=task.error,
                          registry_access=registry_access)
        else:
            row = check_task(task, sandbox=sandbox, registry_access=registry_access)
        if on_row is not None:
            on_row(row)
        return row

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, tasks))


def load_task_dirs(paths: Sequence[Path]) -> list[Task | Unloadable]:
    """Each path a task dir or a dir of task dirs, each loaded on its own: a task dir that
    cannot be loaded, or a path that is neither, is an `Unloadable` in its place (with the
    loader's message). ConfigError only when no path holds a task dir at all (nothing to
    check is a usage error)."""
    out: list[Task | Unloadable] = []
    first_error: ConfigError | None = None
    found = 0
    for path in paths:
        try:
            dirs = expand_task_dirs([path])
        except ConfigError as exc:
            first_error = first_error or exc
            out.append(Unloadable(name=str(path), error=str(exc)))
            continue
        found += len(dirs)
        for d in dirs:
            try:
                out.append(load_harbor_task(d, suite=d.parent.name))
            except ConfigError as exc:
                out.append(Unloadable(name=d.name, error=f"cannot load: {exc}"))
    if not found and first_error is not None:
        raise first_error
    return out
