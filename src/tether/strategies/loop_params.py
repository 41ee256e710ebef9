"""The declared params the refinement loops share (`tether.strategies.refinement`:
self_loop, proposer_reviewer, iad): written here once, read by every loop.

Each loop's `Params` subclasses `LoopParams` (`tether.params`): a draft at the single-shot
arm's temperature, then feedback cycles over a channel, the best kept. Their roles are
the proposer's, the loop's own (`own_roles`), then those of the channel's model-backed
parts: the order `RefinementLoop.roles` gives.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from tether import params
from tether.strategies.attempts import PROPOSER_ROLE
from tether.strategies.feedback import FeedbackSpec, channel_roles

__all__ = ["LoopParams"]


class LoopParams(params.Params):
    #: the roles the loop's own calls use beside the proposer's (its `own_roles`)
    own_roles: ClassVar[tuple[str, ...]] = ()

    max_iterations: params.CountFromZero = Field(3, description="most feedback cycles "
                                                                "after the draft")
    feedback: FeedbackSpec = Field(
        "execution", description="the feedback channel: instrument specs joined by + "
                                 "(or a list), or none")
    cycle_tokens: params.Tokens = Field(500, description="nominal cost of one cycle, for "
                                                         "an execution share of the budget")
    max_tokens: params.Tokens = Field(1024, description="most tokens of one proposer reply")
    temperature: params.Temperature = Field(0.0, description="the revisions' sampling "
                                                             "temperature")
    feedback_chars: params.Count = Field(4000, description="feedback text longer than this "
                                                           "is cut")
    draft_temperature: params.Temperature = Field(0.0, description="the draft's temperature "
                                                                   "(the single-shot arm's, "
                                                                   "so iteration 0 is its "
                                                                   "draft)")

    def roles(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((PROPOSER_ROLE, *self.own_roles,
                                    *channel_roles(self.feedback))))
