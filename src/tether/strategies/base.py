"""Strategy protocol, its result type and the strategy registry.

A strategy decides how compute is spent on one task; it spends only through the
`TrialContext` it is given (`tether.context`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from tether.context import SEED_STRIDE, TrialContext
from tether.core import Artifact, Facts
from tether.errors import ConfigError
from tether.params import Params
from tether.registry import Registry, import_modules, import_named

__all__ = ["SEED_STRIDE", "Strategy", "StrategyResult", "TrialContext", "build_strategy",
           "declared_roles", "register_strategy", "strategy_names", "strategy_roles"]


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
    #: the typed facts the report reads (loop, selection or agent facts)
    facts: Facts | None = None

    def record_extra(self) -> dict[str, Any]:
        """What the trial record stores: the strategy's extra and its facts, as JSON."""
        return {**self.extra, **(self.facts.to_extra() if self.facts is not None else {})}


class Strategy(Protocol):
    """A strategy. `roles` DECLARES every role its calls are charged to (each role it
    passes to `ctx.generate`, and those of the model-backed instruments it observes
    with: `tether.context.instrument_roles`), as built with its params; a config may
    name models and budget shares only for declared roles (`tether.runs.config`).

    Its parameters are declared as class data, a nested `Params` model (`tether.params`);
    where the roles depend on the params, `Params.roles()` says which, so a config is
    checked without building the strategy (`strategy_roles`)."""

    name: ClassVar[str]

    @property
    def roles(self) -> tuple[str, ...]: ...

    def run(self, ctx: TrialContext) -> StrategyResult: ...


StrategyFactory = Callable[..., Strategy]


def declared_roles(strategy: Strategy) -> tuple[str, ...]:
    """The roles `strategy` declares; ConfigError when it declares none (a strategy that
    does not say which roles it calls cannot have its config checked)."""
    roles = getattr(strategy, "roles", None)
    if not roles or not all(isinstance(r, str) and r for r in roles):
        raise ConfigError(f"strategy {strategy.name!r} declares no roles",
                          hint="give the strategy a `roles` attribute: the roles it "
                               "passes to ctx.generate")
    return tuple(roles)


def _load_builtins() -> None:
    # This package's modules, and the strategies of layers above it (the compiled
    # harness), which register as `tether.strategies` entry points: see tether.registry.
    import_modules("tether.strategies", skip=frozenset({"base"}), plugins="tether.strategies")


STRATEGIES: Registry[StrategyFactory] = Registry(
    "strategy", plural="strategies", load=_load_builtins,
    find=lambda name: import_named("tether.strategies", name, plugins="tether.strategies"))


def register_strategy(name: str) -> Callable[[StrategyFactory], StrategyFactory]:
    return STRATEGIES.register(name)


def strategy_names() -> list[str]:
    return STRATEGIES.names()


def strategy_roles(name: str, params: dict[str, Any] | None = None) -> tuple[str, ...]:
    """The roles the strategy `name` calls with `params`, read from its declaration
    without building it: `Params.roles()` where the roles depend on the params, else the
    class's `roles` tuple. ConfigError for bad params (`tether.params`).

    Only an undeclared plugin whose `roles` is computed per instance is built here (its
    roles cannot be read otherwise)."""
    checked = STRATEGIES.check(name, params)
    roles = checked.roles() if isinstance(checked, Params) else None
    if roles is None:
        roles = getattr(STRATEGIES.get(name), "roles", None)
        if not isinstance(roles, tuple):
            return declared_roles(build_strategy(name, params))
    if not roles or not all(isinstance(r, str) and r for r in roles):
        raise ConfigError(f"strategy {name!r} declares no roles",
                          hint="give the strategy a `roles` tuple, or its Params a roles() "
                               "method: the roles it passes to ctx.generate")
    return tuple(roles)


def build_strategy(name: str, params: dict[str, Any] | None = None) -> Strategy:
    """The strategy `name` with `params`; ConfigError names what is wrong."""
    strategy: Strategy = STRATEGIES.build(name, params)
    return strategy
