"""Instrument protocol and registry.

An instrument observes an artifact and returns an Observation. Instruments are
named by specs, `name` or `name;key=value;...` (values read as JSON when they
parse, else as strings), so a config or `tether rescore --metric` can pick one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from tether.core.artifact import Artifact
from tether.core.budget import BudgetExhausted
from tether.core.observation import Observation
from tether.core.task import Task
from tether.errors import ConfigError
from tether.models.base import Completion, Message


class Generate(Protocol):
    """A model call bound by the caller to a role, a ledger and a call log.

    Instruments that need a model (critique, the screenshot judge) never own one: the
    framework hands them this callable, as inspect_ai hands `generate` to its solvers.
    Inside a trial it is the trial context's budgeted, recorded call (role `reviewer`
    for feedback, `metric` for the score, which is recorded but never charged to the
    strategy's budget); outside one (`tether rescore`) it records into the rescore's
    own log. `model` is a model spec that replaces the role's model for this call.
    """

    def __call__(self, messages: list[Message], *, model: str | None = None,
                 max_tokens: int = 1024, temperature: float = 0.0) -> list[Completion]: ...


@dataclass(frozen=True)
class InstrumentEnv:
    """Where instruments run: the sandbox backend model-written code goes into, and the
    bound `generate` a model-backed instrument calls (None where no call may be made)."""

    sandbox: str = "bwrap"
    generate: Generate | None = None

    def require_generate(self, instrument: str) -> Generate:
        """The bound generate; ConfigError when the caller bound none."""
        if self.generate is None:
            raise ConfigError(f"the {instrument} instrument calls a model, and no budgeted "
                              "generate was bound to it",
                              hint="use it inside a trial (tether run) or in tether rescore")
        return self.generate


class Instrument(Protocol):
    """An instrument. One that calls a model through `env.generate` says so by setting
    the class attribute `calls_model = True`: the config check reads it to know which
    roles an experiment's instruments spend under (see `calls_model` below)."""

    name: ClassVar[str]
    version: ClassVar[str]
    grounded: ClassVar[bool]

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation: ...


InstrumentFactory = Callable[..., Instrument]
_REGISTRY: dict[str, InstrumentFactory] = {}


def register_instrument(name: str) -> Callable[[InstrumentFactory], InstrumentFactory]:
    def deco(factory: InstrumentFactory) -> InstrumentFactory:
        _REGISTRY[name] = factory
        return factory
    return deco


def instrument_names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    head, *opts = spec.strip().split(";")
    options: dict[str, Any] = {}
    for opt in opts:
        key, sep, value = opt.partition("=")
        if not sep or not key:
            raise ConfigError(f"bad option {opt!r} in instrument spec {spec!r}",
                              hint="write options as name;key=value")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return head.strip(), options


def build_instrument(spec: str) -> Instrument:
    """The instrument a spec names; ConfigError names the spec and the known ones."""
    _load_builtins()
    name, options = parse_spec(spec)
    if name not in _REGISTRY:
        raise ConfigError(f"unknown instrument {name!r} in {spec!r}",
                          hint=f"known instruments: {', '.join(sorted(_REGISTRY))}")
    try:
        return _REGISTRY[name](**options)
    except TypeError as exc:
        raise ConfigError(f"instrument spec {spec!r}: {exc}") from None


def calls_model(spec: str) -> bool:
    """Whether the instrument a spec names declares `calls_model` (a model-backed one);
    read from its class, without building it. ConfigError for an unknown instrument."""
    _load_builtins()
    name, _ = parse_spec(spec)
    if name not in _REGISTRY:
        raise ConfigError(f"unknown instrument {name!r} in {spec!r}",
                          hint=f"known instruments: {', '.join(sorted(_REGISTRY))}")
    return bool(getattr(_REGISTRY[name], "calls_model", False))


def observe_safely(instrument: Instrument, artifact: Artifact, task: Task,
                   env: InstrumentEnv,
                   reraise: tuple[type[BaseException], ...] = ()) -> Observation:
    """Observe; an instrument that raises yields an error observation, never a score.

    BudgetExhausted (a bound model call found no room) and the exception types in
    `reraise` propagate instead: they end the caller's loop or trial, not the observation.
    """
    start = time.monotonic()
    try:
        obs = instrument.observe(artifact, task, env)
    except BudgetExhausted:
        # A model-backed instrument's bound call found no room: the loop ends there (the
        # strategy delivers its best so far), it is not an instrument failure.
        raise
    except reraise:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of the instrument is an error row
        obs = Observation(instrument=instrument.name, version=instrument.version,
                          grounded=instrument.grounded,
                          error=f"{type(exc).__name__}: {exc}")
    if not obs.duration_s:
        obs = obs.model_copy(update={"duration_s": time.monotonic() - start})
    return obs


def _load_builtins() -> None:
    # Every public module (or subpackage) of tether.instruments registers its
    # instruments on import; discovered here so adding one needs no edit of this file.
    import importlib
    import pkgutil

    import tether.instruments as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_") and info.name != "base":
            importlib.import_module(f"tether.instruments.{info.name}")
