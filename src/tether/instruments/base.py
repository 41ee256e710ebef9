"""Instrument protocol and registry.

An instrument observes an artifact and returns an Observation. Instruments are
named by specs, `name` or `name;key=value;...` (`tether.specs.parse_spec`: values read
as JSON when they parse, else as strings), so a config or `tether rescore --metric`
can pick one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Protocol

from tether import specs
from tether.core import Artifact, BudgetExhausted, Observation, Task
from tether.errors import ConfigError
from tether.models import Completion, Message
from tether.params import checked
from tether.registry import Registry, import_modules, import_named


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
    # read-only: a class attribute, or one an instance sets (geometry: its profile's)
    @property
    def version(self) -> str: ...
    grounded: ClassVar[bool]

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation: ...


InstrumentFactory = Callable[..., Instrument]


def _load_builtins() -> None:
    # Every public module (or subpackage) of tether.instruments registers its instruments
    # on import, and so do the `tether.instruments` entry points of layers above (the
    # scene and harness metrics; see tether.registry). One whose optional extra is
    # missing is skipped: its instruments are simply not listed.
    import_modules("tether.instruments", skip=frozenset({"base"}),
                   plugins="tether.instruments", tolerate="plugins")


INSTRUMENTS: Registry[InstrumentFactory] = Registry(
    "instrument", load=_load_builtins,
    find=lambda name: import_named("tether.instruments", name, plugins="tether.instruments"))


def register_instrument(name: str) -> Callable[[InstrumentFactory], InstrumentFactory]:
    return INSTRUMENTS.register(name)


def instrument_names() -> list[str]:
    return INSTRUMENTS.names()


#: how an instrument words its observation as feedback for a model, when it has its own
#: way (an instrument class's optional `feedback(obs) -> str` static method)
FeedbackWording = Callable[[Observation], str]


def feedback_wording(name: str) -> FeedbackWording | None:
    """The registered instrument `name`'s own feedback wording, or None (an unknown
    instrument, or one that leaves the wording to the generic form)."""
    if name not in INSTRUMENTS:
        return None
    wording = getattr(INSTRUMENTS.get(name), "feedback", None)
    return wording if callable(wording) else None


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """(name, options) of an instrument spec (the shared `tether.specs.parse_spec`)."""
    return specs.parse_spec(spec, what="instrument spec")


def build_instrument(spec: str) -> Instrument:
    """The instrument a spec names; ConfigError names the spec and the known ones."""
    name, options = parse_spec(spec)
    instrument: Instrument = INSTRUMENTS.build(name, options, where=f" in {spec!r}")
    return instrument


def check_instrument(spec: str) -> None:
    """Check a spec's name and options against the instrument's declaration
    (`tether.params`), building nothing; ConfigError names what is wrong."""
    name, options = parse_spec(spec)
    INSTRUMENTS.check(name, options, where=f" in {spec!r}")


#: An instrument spec as a declared parameter (`tether.params`): its name and options
#: are checked against the instrument's own declaration when the params are validated.
InstrumentSpec = Annotated[str, checked(check_instrument)]


def calls_model(spec: str) -> bool:
    """Whether the instrument a spec names declares `calls_model` (a model-backed one);
    read from its class, without building it. ConfigError for an unknown instrument."""
    name, _ = parse_spec(spec)
    return bool(getattr(INSTRUMENTS.get(name, where=f" in {spec!r}"), "calls_model", False))


def warm_up(spec: str, env: InstrumentEnv, concurrency: int) -> None:
    """Let the instrument a spec names get ready for `concurrency` observations at once,
    before the first one (its optional class-level `warm_up(env, concurrency)`: the
    execution instrument starts its warm sandboxes while a run's first model calls are
    out). Returns at once and never raises: a spec that cannot get ready shows why when
    it is used."""
    try:
        name, _ = parse_spec(spec)
        hook = getattr(INSTRUMENTS.get(name), "warm_up", None)
        if callable(hook):
            hook(env, concurrency)
    except Exception:  # noqa: BLE001 - getting ready is an optimisation, never an error
        pass


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
