"""`turn_bon`: the bash agent with turn-level best-of-N (a generator and a listwise selector).

Each turn the generator (role "generator") samples `n` candidates, by default at
temperature 1.0 and top-p 0.95 like the baseline; the selector (role "selector")
picks one; only that one runs. `extra["turn_records"]` holds every turn's
candidates, the selector's replies and the choice; `extra["tokens"]` the output
tokens per role.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from tether.agents.loop import GENERATOR_ROLE
from tether.agents.selector import DEFAULT_RETRIES
from tether.agents.templates import SELECTOR_SYSTEM, SELECTOR_USER
from tether.agents.turn_bon import SELECTOR_ROLE, TurnBoNPolicy
from tether.context import TrialContext
from tether.strategies.agent import (
    AgentParams,
    agent_config,
    run_one,
    terminal_environment,
)
from tether.strategies.base import StrategyResult, register_strategy

_POLICY_PARAMS = ("selector_max_tokens", "selector_temperature", "selector_retries",
                  "selector_context_chars", "selector_thinking_budget",
                  "selector_reasoning_effort", "selector_system", "selector_user")


@register_strategy("turn_bon")
class TurnBoN:
    """The bash agent with turn-level best-of-N: each turn a selector picks one of `n`
    sampled commands to run.

    Its params (`Params` below) are the agent's and the selector's (`tether.agents.turn_bon`).
    """

    name: ClassVar[str] = "turn_bon"

    class Params(AgentParams):
        n: int = Field(4, ge=1, description="candidates per turn (1: no selector call)")
        selector_max_tokens: int = Field(512, description="most tokens of a selector reply")
        selector_temperature: float = Field(0.0, description="the selector's temperature")
        selector_retries: int = Field(DEFAULT_RETRIES, description="an unusable selector "
                                      "reply is sent back this many times")
        selector_context_chars: int | None = Field(
            None, ge=1, description="cap on the transcript the selector reads (none: all)")
        selector_thinking_budget: int | None = Field(
            None, description="the selector's thinking tokens")
        selector_reasoning_effort: Literal["low", "medium", "high"] | None = Field(
            None, description="the selector's thinking, as an effort")
        selector_system: str = Field(SELECTOR_SYSTEM, description="the selector's system "
                                                                  "prompt (a template)")
        selector_user: str = Field(SELECTOR_USER, description="the selector's message "
                                                              "(a template)")

        def roles(self) -> tuple[str, ...]:
            return (GENERATOR_ROLE,) if self.n == 1 else (GENERATOR_ROLE, SELECTOR_ROLE)
    #: opens each attempt's environment (tests swap in a scripted double)
    environment_factory = staticmethod(terminal_environment)

    def __init__(self, n: int = 4, **params: Any) -> None:
        self.config, rest = agent_config(params)
        policy_params = {k: rest.pop(k) for k in _POLICY_PARAMS if k in rest}
        if rest:
            raise TypeError(f"unknown parameters {sorted(rest)}")
        self.n = int(n)
        self.policy = TurnBoNPolicy(self.config, self.n, **policy_params)

    @property
    def roles(self) -> tuple[str, ...]:
        """The policy's generator, and its selector unless n = 1 (no selector call)."""
        policy = self.policy
        return (policy.role,) if self.n == 1 else (policy.role, policy.selector_role)

    def run(self, ctx: TrialContext) -> StrategyResult:
        return run_one(ctx, self.policy, self.config, self.environment_factory, {"n": self.n})
