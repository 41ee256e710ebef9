"""Strategies: how compute is spent on one task (one strategy per module)."""

from tether.context import TrialContext
from tether.strategies.base import (
           Strategy,
           StrategyResult,
           build_strategy,
           register_strategy,
           strategy_names,
)
from tether.strategies.refinement import Refinement, RefinementLoop

__all__ = ["Refinement", "RefinementLoop", "Strategy", "StrategyResult", "TrialContext",
           "build_strategy", "register_strategy", "strategy_names"]
