"""The per-trial context every strategy, agent and model-backed instrument spends through.

A strategy never talks to a model or an instrument directly: it asks its
`TrialContext`, which
- charges every call to a role in the trial's budget ledger *before* the call
  (a call that cannot fit raises `BudgetExhausted`: invariant 2),
- derives every sampling seed from the trial seed and the call's position, so a
  rerun with scripted or local models reproduces the same trial,
- records every call and every observation (there are no global counters),
- runs the task's metric instrument, cached per artifact digest, so a keep-best
  loop and the final score never execute the same program twice (invariant 1),
- passes progress (an agent's finished turns) to the runner's sink as it happens, so
  a trial that is killed keeps what it did.
"""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Unpack

from tether.context.calls import charged_generate
from tether.core import Artifact, Ledger, Observation, ObservationRow, Task, TrialSpec
from tether.errors import ConfigError
from tether.instruments import (
    Generate,
    Instrument,
    InstrumentEnv,
    build_instrument,
    calls_model,
    observe_safely,
)
from tether.models import (
    CallRecord,
    Completion,
    GenerateKwargs,
    GenerateParams,
    Message,
    Model,
    ModelError,
)

#: Seeds of one call's samples are `seed + i` (see models.base.sample_seed); calls are
#: spaced this far apart so no two samples of a trial ever share a seed.
SEED_STRIDE = 1_000
#: max_tokens of a trial call that names none
DEFAULT_MAX_TOKENS = 1024

#: The owner of calls a model-backed *metric* makes (the screenshot judge as the score):
#: recorded like every call, never charged to the strategy's budget, so a score does not
#: depend on what the strategy spent.
METRIC_ROLE = "metric"
#: The role of calls model-backed *feedback* instruments make (critique, screenshot judge).
FEEDBACK_ROLE = "reviewer"
#: The role whose model serves every role the experiment gives no model of its own.
FALLBACK_ROLE = "proposer"


def role_for(purpose: str) -> str:
    """The role a model-backed instrument's calls are made under when it observes for
    `purpose`: the metric's calls are `metric`, every other purpose's are `reviewer`."""
    return METRIC_ROLE if purpose == "metric" else FEEDBACK_ROLE


def instrument_roles(spec: str, purpose: str = "feedback") -> tuple[str, ...]:
    """The roles the instrument `spec` spends under when observing for `purpose`: none
    unless it declares `calls_model` (ConfigError for an unknown instrument)."""
    return (role_for(purpose),) if calls_model(spec) else ()

#: Receives a trial's progress events as they happen: (kind, JSON-able row).
ProgressSink = Callable[[str, dict[str, Any]], None]


class TrialContext:
    """Everything one trial may use, and the record of what it used."""

    def __init__(self, spec: TrialSpec, task: Task, models: dict[str, Model],
                 env: InstrumentEnv | None = None,
                 progress: ProgressSink | None = None) -> None:
        if FALLBACK_ROLE not in models:
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
        #: models named by instrument specs (`critique;model=SPEC`), built once per spec
        self._named_models: dict[str, Model] = {}
        self._call_index = itertools.count()
        self._instruments: dict[str, Instrument] = {}
        self._metric_cache: dict[str, Observation] = {}
        self._lock = threading.Lock()
        self._progress = progress

    def report_progress(self, kind: str, row: dict[str, Any]) -> None:
        """Hand one progress event (e.g. kind "turn") to the runner's sink, if it gave one.

        The finished record is still what counts; progress is what survives a kill.
        """
        if self._progress is not None:
            self._progress(kind, row)

    # --- models -----------------------------------------------------------------
    def model(self, role: str) -> Model:
        """The model serving `role`; roles without their own spec use the proposer's."""
        return self._models.get(role) or self._models[FALLBACK_ROLE]

    def _named_model(self, spec: str) -> Model:
        from tether.models import parse_model

        with self._lock:
            if spec not in self._named_models:
                self._named_models[spec] = parse_model(spec)
            return self._named_models[spec]

    def generate(self, role: str, messages: list[Message], *, n: int = 1,
                 model: str | None = None, params: GenerateParams | None = None,
                 **request: Unpack[GenerateKwargs]) -> list[Completion]:
        """One budgeted, recorded, seeded call. `max_tokens` may be lowered to fit the budget.

        The request is the `GenerateKwargs` keywords (`max_tokens` defaults to 1024 here)
        or, instead of them, a `GenerateParams`; `seed` is not the caller's to give: the
        context seeds every call from the trial's seed and the call's index.

        `model` (a spec) serves this call instead of the role's model; the call is still
        charged to `role`. Calls of the `metric` role are recorded but never charged.

        `tools` offers native tools (only to a model whose `supports_tools` is true;
        see `tether.models.base`), `tool_choice` ("auto", "required" or a tool's name)
        says whether a call is optional; the replies' calls are in `Completion.tool_calls`.

        Raises BudgetExhausted when not even one token fits (the ledger marks itself
        exhausted, which the runner turns into the end state `budget_exhausted`).
        """
        if params is not None:
            if request:
                raise TypeError("generate takes params or request keywords, not both")
            asked = params
        else:
            asked = GenerateParams.of(**GenerateKwargs(max_tokens=DEFAULT_MAX_TOKENS) | request)
        if asked.seed is not None:
            raise TypeError("the trial context seeds every call itself")
        if model is None and role == METRIC_ROLE and METRIC_ROLE not in self._models:
            # A score must not silently come from the strategy's own model.
            raise ConfigError("a model-backed metric needs its own model",
                              hint="name it in the spec, e.g. screenshot_judge;model=SPEC")
        served_by = self.model(role) if model is None else self._named_model(model)
        return charged_generate(self.ledger if role != METRIC_ROLE else None, self.calls,
                                served_by, role, messages, asked, n=n, seed=self._next_seed)

    def _next_seed(self) -> int:
        with self._lock:
            return self.spec.seed * SEED_STRIDE * SEED_STRIDE + next(self._call_index) * SEED_STRIDE

    def bound_generate(self, role: str) -> Generate:
        """`generate` bound to this trial under `role`, for a model-backed instrument."""

        def generate(messages: list[Message], *, model: str | None = None,
                     max_tokens: int = 1024, temperature: float = 0.0) -> list[Completion]:
            return self.generate(role, messages, max_tokens=max_tokens,
                                 temperature=temperature, model=model)

        return generate

    def _env_for(self, purpose: str) -> InstrumentEnv:
        return replace(self.env, generate=self.bound_generate(role_for(purpose)))

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
        # A feedback model's API failing fails the trial, as any model call of it would.
        reraise = (ModelError,) if purpose != "metric" else ()
        obs = observe_safely(inst, artifact, self.task, self._env_for(purpose), reraise)
        self._record(purpose, artifact, obs)
        return obs

    def metric(self, artifact: Artifact) -> Observation:
        """The task's metric observation of `artifact`, made once per distinct artifact."""
        key = artifact.digest
        with self._lock:
            cached = self._metric_cache.get(key)
        if cached is not None:
            return cached
        obs = observe_safely(self.instrument(self.task.metric), artifact, self.task,
                             self._env_for("metric"))
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
