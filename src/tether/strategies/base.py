"""Strategy protocol, its result type and the strategy registry.

A strategy decides how compute is spent on one task; it spends only through the
`TrialContext` it is given (`tether.context`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from tether.context import SEED_STRIDE, TrialContext
from tether.core.artifact import Artifact
from tether.registry import Registry

__all__ = ["SEED_STRIDE", "Strategy", "StrategyResult", "TrialContext", "build_strategy",
           "register_strategy", "strategy_names"]


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


StrategyFactory = Callable[..., Strategy]


def _load_builtins() -> None:
    # Imported for their registration side effect; lazy to avoid import cycles.
    import importlib
    import pkgutil

    import tether.strategies as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_") and info.name != "base":
            importlib.import_module(f"tether.strategies.{info.name}")


STRATEGIES: Registry[StrategyFactory] = Registry("strategy", plural="strategies",
                                                 load=_load_builtins)


def register_strategy(name: str) -> Callable[[StrategyFactory], StrategyFactory]:
    return STRATEGIES.register(name)


def strategy_names() -> list[str]:
    return STRATEGIES.names()


def build_strategy(name: str, params: dict[str, Any] | None = None) -> Strategy:
    """The strategy `name` with `params`; ConfigError names what is wrong."""
    strategy: Strategy = STRATEGIES.build(name, params)
    return strategy
