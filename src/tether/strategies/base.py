"""Strategy protocol, the per-trial context every strategy spends through, and the registry.

A strategy decides how compute is spent on one task. It never talks to a model or
an instrument directly: it asks its `TrialContext`, which
- charges every call to a role in the trial's budget ledger *before* the call
  (a call that cannot fit raises `BudgetExhausted`: invariant 2),
- derives every sampling seed from the trial seed and the call's position, so a
  rerun with scripted or local models reproduces the same trial,
- records every call and every observation (there are no global counters),
- runs the task's metric instrument, cached per artifact digest, so a keep-best
  loop and the final score never execute the same program twice (invariant 1).
"""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from tether.core.artifact import Artifact
from tether.core.budget import Ledger
from tether.core.observation import Observation
from tether.core.task import Task
from tether.core.trial import ObservationRow, TrialSpec
from tether.errors import ConfigError
from tether.instruments.base import Instrument, InstrumentEnv, build_instrument, observe_safely
from tether.models.base import Completion, Message, Model, Usage, tool_kwargs
from tether.models.recording import CallRecord, RecordingModel

#: Seeds of one call's samples are `seed + i` (see models.base.sample_seed); calls are
#: spaced this far apart so no two samples of a trial ever share a seed.
SEED_STRIDE = 1_000


@dataclass
class StrategyResult:
    """What a strategy delivers.

    `status` is one of `tether.core.trial.END_STATES`; a strategy that ran out of
    budget or got a truncated reply still delivers its best artifact so far (or None).
    `extra` holds strategy-specific facts the report reads (single-shot score,
    iterations, selected sample, ...).
    """

    artifact: Artifact | None
    status: str = "ok"
    extra: dict[str, Any] = field(default_factory=dict)


class Strategy(Protocol):
    name: ClassVar[str]

    def run(self, ctx: TrialContext) -> StrategyResult: ...


class TrialContext:
    """Everything one trial may use, and the record of what it used."""

    def __init__(self, spec: TrialSpec, task: Task, models: dict[str, Model],
                 env: InstrumentEnv | None = None) -> None:
        if "proposer" not in models:
            raise ConfigError(f"trial {spec.trial_id}: no proposer model",
                              hint="every experiment names a model for the proposer role")
        self.spec = spec
        self.task = task
        self.env = env or InstrumentEnv()
        self.ledger = Ledger(spec.budget)
        self.calls: list[CallRecord] = []
        self.observations: list[ObservationRow] = []
        #: every artifact the trial observed or delivered, by digest (the store keeps them)
        self.artifacts: dict[str, Artifact] = {}
        #: randomized choices of the strategy (tie breaks, shuffles) draw from here only
        self.rng = random.Random(spec.seed)
        self._models = models
        self._call_index = itertools.count()
        self._instruments: dict[str, Instrument] = {}
        self._metric_cache: dict[str, Observation] = {}
        self._lock = threading.Lock()

    # --- models -----------------------------------------------------------------
    def model(self, role: str) -> Model:
        """The model serving `role`; roles without their own spec use the proposer's."""
        return self._models.get(role) or self._models["proposer"]

    def generate(self, role: str, messages: list[Message], *, max_tokens: int = 1024,
                 n: int = 1, temperature: float = 0.0, top_p: float = 1.0,
                 stop: list[str] | None = None,
                 thinking_budget: int | None = None,
                 tools: list[dict[str, Any]] | None = None,
                 tool_choice: str | None = None) -> list[Completion]:
        """One budgeted, recorded, seeded call. `max_tokens` may be lowered to fit the budget.

        `tools` offers native tools (only to a model whose `supports_tools` is true;
        see `tether.models.base`), `tool_choice` ("auto", "required" or a tool's name)
        says whether a call is optional; the replies' calls are in `Completion.tool_calls`.

        Raises BudgetExhausted when not even one token fits (the ledger marks itself
        exhausted, which the runner turns into the end state `budget_exhausted`).
        """
        allowed = self.ledger.reserve(role, messages, max_tokens, n, tools=tools)
        with self._lock:
            seed = self.spec.seed * SEED_STRIDE * SEED_STRIDE + next(self._call_index) * SEED_STRIDE
        answer_tokens = allowed
        if thinking_budget is not None:
            # The thinking budget is part of what the call may generate: never above it.
            thinking_budget = min(thinking_budget, max(allowed - 1, 0)) or None
            # Backends ask the provider for max_tokens + thinking_budget, so the answer
            # gets what the reservation leaves after thinking: the sum stays <= allowed.
            answer_tokens = allowed - (thinking_budget or 0)
        recorder = RecordingModel(self.model(role), self.calls, role=role)
        usage = Usage()
        try:
            completions = recorder.generate(
                messages, n=n, max_tokens=answer_tokens, temperature=temperature, top_p=top_p,
                seed=seed, stop=stop, thinking_budget=thinking_budget, role=role,
                **tool_kwargs(tools, tool_choice))
            for c in completions:
                usage = usage + c.usage
        finally:
            self.ledger.settle(role, allowed * n, usage)
        return completions

    # --- instruments ------------------------------------------------------------
    def instrument(self, spec: str) -> Instrument:
        with self._lock:
            if spec not in self._instruments:
                self._instruments[spec] = build_instrument(spec)
            return self._instruments[spec]

    def observe(self, instrument: str | Instrument, artifact: Artifact,
                purpose: str = "feedback") -> Observation:
        """Observe with an instrument (spec or object) and record it under `purpose`."""
        inst = self.instrument(instrument) if isinstance(instrument, str) else instrument
        obs = observe_safely(inst, artifact, self.task, self.env)
        self._record(purpose, artifact, obs)
        return obs

    def metric(self, artifact: Artifact) -> Observation:
        """The task's metric observation of `artifact`, made once per distinct artifact."""
        key = artifact.digest
        with self._lock:
            cached = self._metric_cache.get(key)
        if cached is not None:
            return cached
        obs = observe_safely(self.instrument(self.task.metric), artifact, self.task, self.env)
        with self._lock:
            self._metric_cache[key] = obs
        self._record("metric", artifact, obs)
        return obs

    def keep(self, artifact: Artifact) -> None:
        """Keep an artifact in the trial's record without observing it."""
        with self._lock:
            self.artifacts.setdefault(artifact.digest, artifact)

    def _record(self, purpose: str, artifact: Artifact, obs: Observation) -> None:
        with self._lock:
            self.artifacts.setdefault(artifact.digest, artifact)
            self.observations.append(
                ObservationRow(purpose=purpose, artifact=artifact.digest, observation=obs))


StrategyFactory = Callable[..., Strategy]
_REGISTRY: dict[str, StrategyFactory] = {}


def register_strategy(name: str) -> Callable[[StrategyFactory], StrategyFactory]:
    def deco(factory: StrategyFactory) -> StrategyFactory:
        _REGISTRY[name] = factory
        return factory
    return deco


def strategy_names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def build_strategy(name: str, params: dict[str, Any] | None = None) -> Strategy:
    """The strategy `name` with `params`; ConfigError names what is wrong."""
    _load_builtins()
    if name not in _REGISTRY:
        raise ConfigError(f"unknown strategy {name!r}",
                          hint=f"known strategies: {', '.join(sorted(_REGISTRY))}")
    try:
        return _REGISTRY[name](**(params or {}))
    except TypeError as exc:
        raise ConfigError(f"strategy {name!r}: bad parameters {params}: {exc}") from None


def _load_builtins() -> None:
    # Imported for their registration side effect; lazy to avoid import cycles.
    import importlib
    import pkgutil

    import tether.strategies as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_") and info.name != "base":
            importlib.import_module(f"tether.strategies.{info.name}")
