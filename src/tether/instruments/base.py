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
from tether.core.observation import Observation
from tether.core.task import Task
from tether.errors import ConfigError


@dataclass(frozen=True)
class InstrumentEnv:
    """Where instruments run: the sandbox backend model-written code goes into."""

    sandbox: str = "bwrap"


class Instrument(Protocol):
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


def observe_safely(instrument: Instrument, artifact: Artifact, task: Task,
                   env: InstrumentEnv) -> Observation:
    """Observe; an instrument that raises yields an error observation, never a score."""
    start = time.monotonic()
    try:
        obs = instrument.observe(artifact, task, env)
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
