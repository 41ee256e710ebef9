"""`single_shot`: one proposer call, its artifact delivered as it is."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.strategies.attempts import PROPOSER_ROLE, single_shot_draft
from tether.strategies.base import StrategyResult, register_strategy


@register_strategy("single_shot")
class SingleShot:
    name: ClassVar[str] = "single_shot"
    roles: ClassVar[tuple[str, ...]] = (PROPOSER_ROLE,)

    class Params(params.Params):
        max_tokens: params.Tokens = Field(1024, description="most tokens of the one reply")
        temperature: params.Temperature = Field(0.0, description="sampling temperature")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    def run(self, ctx: TrialContext) -> StrategyResult:
        attempt = single_shot_draft(ctx, max_tokens=self.params.max_tokens,
                                    temperature=self.params.temperature)
        if attempt.artifact is None:
            return StrategyResult(artifact=None, status="truncated",
                                  extra={"truncated": "the reply was cut off before its "
                                                      "artifact"})
        return StrategyResult(artifact=attempt.artifact)
