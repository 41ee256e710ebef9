"""Running planned trials: the local executor and the driver that commits results.

Trials are I/O and subprocess bound (model servers, sandboxes), so the local
executor is a pool of N threads. The driver (the calling thread) alone commits
trials, each as it arrives. Stopping (Ctrl-C) abandons the trials in flight: they are
never committed, so the trials table only ever holds whole trials and `--resume`
reruns exactly what is missing. What a local trial does before it ends (an agent's
turns) is written by its worker to the store's partial rows as it happens, so a trial
that is abandoned or killed keeps its partial trajectory (status `interrupted`) until
its rerun commits. Ray workers run in other processes and report no progress.

Workers are daemon threads: an abandoned trial cannot be interrupted from outside,
and it must not keep the process alive after the driver has stopped.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from tether.context import ProgressSink
from tether.core import Artifact, TrialRecord
from tether.instruments import InstrumentEnv
from tether.models import CachedModel, Model, ResponseStore, parse_model
from tether.runs.expansion import PlannedTrial
from tether.runs.store import RunStore
from tether.runs.trial_runner import run_trial

Outcome = tuple[TrialRecord, dict[str, Artifact]]
TrialFn = Callable[[PlannedTrial], Outcome]

#: how often a waiting driver looks at its stop flag
POLL_S = 0.2


class CachingModelFactory:
    """Builds a trial's models from specs, wrapped in the response cache when one is on.

    One response store serves every trial of the process. Its keys hold the sample
    index and the scope (invariant 7), and the trial's seeds differ per call and
    sample, so N samples stay N samples even with the cache on.
    """

    def __init__(self, mode: str = "off", cache_file: str | None = None,
                 scope: str = "") -> None:
        self.mode, self.cache_file, self.scope = mode, cache_file, scope
        self._store: ResponseStore | None = None
        self._lock = threading.Lock()

    def options(self) -> dict[str, Any]:
        return {"mode": self.mode, "cache_file": self.cache_file, "scope": self.scope}

    def __call__(self, spec: str) -> Model:
        model = parse_model(spec)
        if self.mode == "off" or not self.cache_file:
            return model
        with self._lock:
            if self._store is None:
                self._store = ResponseStore(self.cache_file)
        # mode was checked against CACHE_MODES when the config was validated
        return CachedModel(model, self._store, self.mode, self.scope)  # type: ignore[arg-type]


def harness_error(planned: PlannedTrial, exc: BaseException) -> Outcome:
    """The record of a trial whose runner itself failed (a bug, never a score)."""
    record = TrialRecord(trial_id=planned.spec.trial_id, index=planned.index,
                         spec=planned.spec, status="error",
                         error_kind=f"harness:{type(exc).__name__}",
                         error_message=str(exc) or repr(exc))
    return record, {}


def progress_sink(store: RunStore, planned: PlannedTrial) -> ProgressSink:
    """Note the trial's start in the store; returns the sink that appends its progress.

    Progress is kept on a best-effort basis: a failing write (the store closed under an
    abandoned trial, a full disk) loses that event, never the trial, whose finished
    record the driver commits anyway.
    """
    trial_id = planned.spec.trial_id

    def sink(kind: str, row: dict[str, Any]) -> None:
        try:
            store.append_partial(trial_id, kind, row)
        except sqlite3.Error:
            pass

    try:
        store.start_partial(planned.spec, planned.index)
    except sqlite3.Error:
        pass
    return sink


def make_trial_fn(factory: CachingModelFactory, env: InstrumentEnv,
                  store: RunStore | None = None) -> TrialFn:
    """The function a worker runs per trial; with `store`, its progress is written there."""
    def run(planned: PlannedTrial) -> Outcome:
        try:
            progress = progress_sink(store, planned) if store is not None else None
            return run_trial(planned.spec, planned.task, index=planned.index,
                             model_factory=factory, env=env, progress=progress)
        except Exception as exc:  # noqa: BLE001 - run_trial should not raise; if it does, record
            return harness_error(planned, exc)
    return run


class TrialGate(Protocol):
    """Decides, trial by trial, whether to start it (an `EndpointBreaker`).

    An executor asks `before_start` just before it would start a trial and tells
    `ended` each outcome as soon as it has it, before starting another trial, so a
    gate that closes closes for the very next start.
    """

    def before_start(self, planned: PlannedTrial) -> Outcome | None:
        """None to start the trial; else the outcome yielded in place of running it."""
        ...

    def ended(self, record: TrialRecord) -> None: ...


class Executor(Protocol):
    name: str

    def results(self, todo: list[PlannedTrial], stop: threading.Event,
                gate: TrialGate | None = None) -> Iterator[Outcome]:
        """Yield each trial's outcome as it ends; return early (abandoning) once `stop` is set."""
        ...


def gated_start(gate: TrialGate | None, planned: PlannedTrial,
                run: Callable[[PlannedTrial], Outcome]) -> Outcome:
    """Run one trial through a gate: skipped or run, and the gate told how it ended."""
    outcome = gate.before_start(planned) if gate is not None else None
    if outcome is None:
        outcome = run(planned)
        if gate is not None:
            gate.ended(outcome[0])
    return outcome


class LocalExecutor:
    """N trials in flight on daemon threads of this process."""

    name = "local"

    def __init__(self, concurrency: int, trial_fn: TrialFn) -> None:
        self.concurrency = max(1, concurrency)
        self.trial_fn = trial_fn

    def results(self, todo: list[PlannedTrial], stop: threading.Event,
                gate: TrialGate | None = None) -> Iterator[Outcome]:
        jobs: queue.SimpleQueue[PlannedTrial] = queue.SimpleQueue()
        for p in todo:
            jobs.put(p)
        done: queue.SimpleQueue[Outcome] = queue.SimpleQueue()

        def work() -> None:
            while not stop.is_set():
                try:
                    p = jobs.get_nowait()
                except queue.Empty:
                    return
                outcome = gated_start(gate, p, self.trial_fn)
                if not stop.is_set():
                    done.put(outcome)

        for i in range(min(self.concurrency, len(todo))):
            threading.Thread(target=work, name=f"tether-trial-{i}", daemon=True).start()
        remaining = len(todo)
        while remaining and not stop.is_set():
            try:
                outcome = done.get(timeout=POLL_S)
            except queue.Empty:
                continue
            remaining -= 1
            yield outcome


def pending(planned: list[PlannedTrial], statuses: dict[str, str],
            retry_errors: bool = False) -> list[PlannedTrial]:
    """What a (resumed) run still has to do: trials not committed, and errored ones on request.

    A committed trial that ended in any other state is finished and never run again.
    """
    def todo(p: PlannedTrial) -> bool:
        status = statuses.get(p.spec.trial_id)
        return status is None or (retry_errors and status == "error")
    return [p for p in planned if todo(p)]


def drive(store: RunStore, todo: list[PlannedTrial], executor: Executor,
          stop: threading.Event,
          on_commit: Callable[[TrialRecord], None] | None = None,
          gate: TrialGate | None = None) -> int:
    """Run `todo`, committing each trial as it ends. Returns how many were committed.

    With a gate (an `EndpointBreaker`), the trials it refuses are not started; their
    outcomes (errors) are committed like any other, so `--retry-errors` runs them.
    """
    committed = 0
    for record, artifacts in executor.results(todo, stop, gate):
        if stop.is_set():
            # Ctrl-C reaches the whole process group: a trial ending now may have seen its
            # sandbox or Ray worker killed by it, so it is abandoned, never recorded.
            break
        store.commit_trial(record, artifacts.values())
        committed += 1
        if on_commit is not None:
            on_commit(record)
    return committed


def default_cache_file(run_dir: Path, cache_file: str | None) -> str:
    return str(Path(cache_file).resolve()) if cache_file else str(run_dir.resolve()
                                                                  / "cache.sqlite")
