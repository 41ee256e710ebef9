"""Strategies: how compute is spent on one task (one strategy per module).

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.context import TrialContext as TrialContext
    from tether.strategies.base import (
        STRATEGIES as STRATEGIES,
        Strategy as Strategy,
        StrategyResult as StrategyResult,
        build_strategy as build_strategy,
        register_strategy as register_strategy,
        strategy_names as strategy_names,
        strategy_roles as strategy_roles,
    )
    from tether.strategies.feedback import EXECUTION_SHARE as EXECUTION_SHARE
    from tether.strategies.reasoning import UNLIMITED_THINKING as UNLIMITED_THINKING
    from tether.strategies.refinement import (
        Refinement as Refinement,
        RefinementLoop as RefinementLoop,
    )
    from tether.strategies.selection import (
        DEFAULT_RETRIES as DEFAULT_RETRIES,
        SCHEMA_TEXT as SCHEMA_TEXT,
        Selection as Selection,
        render as render,
        select as select,
        thinking_tokens as thinking_tokens,
    )

_HOMES: dict[str, str] = {
    "DEFAULT_RETRIES": "tether.strategies.selection",
    "EXECUTION_SHARE": "tether.strategies.feedback",
    "Refinement": "tether.strategies.refinement",
    "RefinementLoop": "tether.strategies.refinement",
    "SCHEMA_TEXT": "tether.strategies.selection",
    "STRATEGIES": "tether.strategies.base",
    "Selection": "tether.strategies.selection",
    "Strategy": "tether.strategies.base",
    "StrategyResult": "tether.strategies.base",
    "UNLIMITED_THINKING": "tether.strategies.reasoning",
    "TrialContext": "tether.context",
    "build_strategy": "tether.strategies.base",
    "register_strategy": "tether.strategies.base",
    "render": "tether.strategies.selection",
    "select": "tether.strategies.selection",
    "strategy_names": "tether.strategies.base",
    "strategy_roles": "tether.strategies.base",
    "thinking_tokens": "tether.strategies.selection",
}
__all__ = [
    "DEFAULT_RETRIES",
    "EXECUTION_SHARE",
    "Refinement",
    "RefinementLoop",
    "SCHEMA_TEXT",
    "STRATEGIES",
    "Selection",
    "Strategy",
    "StrategyResult",
    "UNLIMITED_THINKING",
    "TrialContext",
    "build_strategy",
    "register_strategy",
    "render",
    "select",
    "strategy_names",
    "strategy_roles",
    "thinking_tokens",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
