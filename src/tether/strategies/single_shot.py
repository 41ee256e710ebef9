"""`single_shot`: one proposer call, its artifact delivered as it is."""

from __future__ import annotations

from tether.context import TrialContext
from tether.core.artifact import Truncated
from tether.strategies.base import StrategyResult, register_strategy
from tether.strategies.prompting import draft, task_messages


@register_strategy("single_shot")
class SingleShot:
    name = "single_shot"

    def __init__(self, max_tokens: int = 1024, temperature: float = 0.0) -> None:
        self.max_tokens = max_tokens
        self.temperature = temperature

    def run(self, ctx: TrialContext) -> StrategyResult:
        try:
            artifact = draft(ctx, task_messages(ctx.task), max_tokens=self.max_tokens,
                             temperature=self.temperature)
        except Truncated as exc:
            return StrategyResult(artifact=None, status="truncated",
                                  extra={"truncated": str(exc)})
        return StrategyResult(artifact=artifact)
