"""`self_loop` (L): one model, one growing conversation, revised from its own feedback.

A refinement loop (`tether.strategies.refinement`: iteration 0 is the single-shot
draft, the best-scoring iteration is delivered, the loop stops at the first pass).
Each revision continues the same conversation: the channel's feedback on the latest
attempt (default `execution`: the task's checks) is appended as a user turn after
the model's own reply, and the model answers with a revision. Feedback is given on
the latest attempt, as in a conversation.
A conversation that outgrows the model's context window ends the loop like a spent
budget does (the best so far is delivered, `extra["stop_reason"] = "context_length"`):
the growing context is this strategy's own cost, not an infrastructure failure.

Params: the loop's (`LoopParams`: `max_iterations`, `feedback`, `cycle_tokens`,
`max_tokens`, `temperature` of revisions, `feedback_chars`, `draft_temperature`).
"""

from __future__ import annotations

from typing import ClassVar

from tether.context import TrialContext
from tether.strategies.attempts import CUT_OFF_NOTE, Attempt, answer_format, sample
from tether.strategies.base import register_strategy
from tether.strategies.feedback import NO_DETAILS, collect
from tether.strategies.loop_params import LoopParams
from tether.strategies.refinement import Refinement, RefinementLoop


@register_strategy("self_loop")
class SelfLoop(RefinementLoop):
    """`self_loop` (L): one model, one growing conversation, revised from its own feedback."""

    name: ClassVar[str] = "self_loop"
    #: the loop's params (`tether.strategies.loop_params`), nothing of its own
    Params: ClassVar[type[LoopParams]] = LoopParams
    context_ends_loop: ClassVar[bool] = True

    def _feedback_text(self, ctx: TrialContext, attempt: Attempt) -> str:
        if attempt.artifact is None:
            return CUT_OFF_NOTE
        text = collect(ctx, self.channel, attempt.artifact).text(self.params.feedback_chars)
        return text or NO_DETAILS

    def revise(self, run: Refinement, iteration: int) -> list[Attempt]:
        """The latest reply and the feedback on it join the conversation; the model answers."""
        note = self._feedback_text(run.ctx, run.latest)
        run.conversation = [*run.conversation,
                            {"role": "assistant", "content": run.latest.reply},
                            {"role": "user",
                             "content": f"{note}\n\nRevise it. {answer_format(run.ctx)}"}]
        return sample(run.ctx, run.conversation, max_tokens=self.params.max_tokens,
                      temperature=self.params.temperature)
