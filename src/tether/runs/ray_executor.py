"""The Ray executor (extra `ray`): each trial is a Ray task; the driver writes the store.

A trial crosses the process boundary as JSON (its spec, task and run options in,
its record and artifacts out), so what a worker returns is exactly what the local
executor would have committed. Workers build their own models and response cache.
With no `--ray-address` a local cluster is started (dashboard off) and shut down
after the run; with an address the run joins that cluster and leaves it running.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from typing import Any

from tether.core import Artifact, Task, TrialRecord, TrialSpec
from tether.errors import TetherError
from tether.instruments import InstrumentEnv
from tether.runs.expansion import PlannedTrial
from tether.runs.runner import (
    POLL_S,
    CachingModelFactory,
    Outcome,
    TrialGate,
    harness_error,
)
from tether.runs.trial_runner import run_trial

_factories: dict[str, CachingModelFactory] = {}
_factories_lock = threading.Lock()


def _factory(options: dict[str, Any]) -> CachingModelFactory:
    # One factory (one cache connection) per worker process and cache configuration.
    key = json.dumps(options, sort_keys=True)
    with _factories_lock:
        if key not in _factories:
            _factories[key] = CachingModelFactory(**options)
        return _factories[key]


def run_trial_json(payload: str) -> str:
    """The Ray task: a trial described in JSON, its outcome returned as JSON."""
    data = json.loads(payload)
    spec = TrialSpec.model_validate(data["spec"])
    task = Task.model_validate(data["task"])
    record, artifacts = run_trial(spec, task, index=data["index"],
                                  model_factory=_factory(data["cache"]),
                                  env=InstrumentEnv(sandbox=data["sandbox"]))
    return json.dumps({"record": record.model_dump(mode="json"),
                       "artifacts": {d: a.model_dump(mode="json") for d, a in artifacts.items()}})


def outcome_from_json(text: str) -> Outcome:
    data = json.loads(text)
    record = TrialRecord.model_validate(data["record"])
    artifacts = {d: Artifact.model_validate(a) for d, a in data["artifacts"].items()}
    return record, artifacts


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise TetherError("the ray executor needs Ray, which is not installed",
                          hint="pip install 'tether[ray]' (or use --executor local)") from None
    return ray


class RayExecutor:
    """Up to `concurrency` trials in flight as Ray tasks."""

    name = "ray"

    def __init__(self, concurrency: int, cache: dict[str, Any], sandbox: str,
                 address: str | None = None) -> None:
        self.concurrency = max(1, concurrency)
        self.cache = cache
        self.sandbox = sandbox
        self.address = address

    def _payload(self, p: PlannedTrial) -> str:
        return json.dumps({"spec": p.spec.model_dump(mode="json"),
                           "task": p.task.model_dump(mode="json"), "index": p.index,
                           "cache": self.cache, "sandbox": self.sandbox})

    def _check_reachable(self) -> None:
        # Ray retries an unreachable head for minutes; a refused TCP connect says it at once.
        # called only when self.address is set (see the caller)
        host, sep, port = self.address.removeprefix("ray://").rpartition(":")  # type: ignore[union-attr]
        if not sep or not port.isdigit():
            return  # "auto" and other forms: left to Ray
        try:
            socket.create_connection((host or "127.0.0.1", int(port)), timeout=5).close()
        except OSError as exc:
            raise TetherError(f"no Ray cluster answers at {self.address}: {exc}",
                              hint="start one with `ray start --head`, fix --ray-address, "
                                   "or use --executor local") from None

    def _init(self, ray: Any) -> bool:
        """Connect (or start a local cluster); True when this executor must shut it down."""
        if ray.is_initialized():
            return False
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        try:
            if self.address:
                self._check_reachable()
                ray.init(address=self.address, logging_level="ERROR", log_to_driver=False)
            else:
                ray.init(num_cpus=self.concurrency, include_dashboard=False,
                         dashboard_host="127.0.0.1", logging_level="ERROR",
                         log_to_driver=False)
        except TetherError:
            raise
        except Exception as exc:  # noqa: BLE001 - any start-up failure is the user's to fix
            where = self.address or "a local cluster"
            raise TetherError(f"could not start Ray ({where}): {exc}",
                              hint="check --ray-address, or use --executor local") from None
        return True

    def results(self, todo: list[PlannedTrial], stop: threading.Event,
                gate: TrialGate | None = None) -> Iterator[Outcome]:
        ray = import_ray()
        owned = self._init(ray)
        remote = ray.remote(num_cpus=1, max_retries=0)(run_trial_json)
        in_flight: dict[Any, PlannedTrial] = {}
        not_started: list[Outcome] = []
        queue = iter(todo)

        def start_next() -> None:
            for p in queue:
                outcome = gate.before_start(p) if gate is not None else None
                if outcome is None:
                    in_flight[remote.remote(self._payload(p))] = p
                    return
                not_started.append(outcome)

        try:
            for _ in range(self.concurrency):
                start_next()
            while (in_flight or not_started) and not stop.is_set():
                if not_started:
                    yield not_started.pop(0)
                    continue
                ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=POLL_S)
                for ref in ready:
                    if stop.is_set():
                        return
                    p = in_flight.pop(ref)
                    try:
                        outcome = outcome_from_json(ray.get(ref))
                    except Exception as exc:  # noqa: BLE001 - a lost worker is an error row
                        outcome = harness_error(p, exc)
                        outcome[0].error_kind = f"ray:{type(exc).__name__}"
                    if gate is not None:
                        gate.ended(outcome[0])  # before the next start: it may close
                    start_next()
                    yield outcome
        finally:
            for ref in in_flight:
                ray.cancel(ref, force=True)
            if owned:
                ray.shutdown()
