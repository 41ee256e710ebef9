"""`self_loop` (L): one model, one growing conversation, revised from its own feedback.

Iteration 0 is the single-shot draft (invariant 3). While the metric fails and
cycles remain, the channel's feedback on the latest attempt (default `execution`:
the task's checks) is appended to the same conversation as a user turn after the
model's own reply, and the model answers with a revision. Every iteration is
scored by the metric; the best is delivered (keep-best), the loop stops as soon as
one passes. Feedback is given on the latest attempt, as in a conversation.
A conversation that outgrows the model's context window ends the loop like a spent
budget does (the best so far is delivered, `extra["stop_reason"] = "context_length"`):
the growing context is this strategy's own cost, not an infrastructure failure.

Params: `max_iterations` (revisions after the draft, default 3), `feedback` (a
channel, see `tether.strategies.feedback`), `cycle_tokens` (execution share ->
cycles), `max_tokens` (per reply, also the draft's, as in single_shot),
`temperature` of revisions (default 0), `feedback_chars` (cap on feedback text).
`draft_temperature` (0): the temperature of iteration 0, set to the single-shot arm's
`temperature` so the draft is its artifact (invariant 3).
"""

from __future__ import annotations

from typing import Any, ClassVar

from tether.context import TrialContext
from tether.core.budget import BudgetExhausted
from tether.models.base import Message
from tether.models.errors import ContextLengthExceeded
from tether.strategies.attempts import (
    CUT_OFF_NOTE,
    PROPOSER_ROLE,
    Attempt,
    answer_format,
    sample,
    single_shot_draft,
)
from tether.strategies.base import StrategyResult, register_strategy
from tether.strategies.feedback import NO_DETAILS, collect, feedback_cycles, parse_channel
from tether.strategies.keep_best import KeepBest
from tether.strategies.loop_params import LoopParams
from tether.strategies.prompting import task_messages


@register_strategy("self_loop")
class SelfLoop:
    name: ClassVar[str] = "self_loop"

    class Params(LoopParams):
        """The loop's params (`tether.strategies.loop_params`), as declared."""

    def __init__(self, max_iterations: int = 3, feedback: str | list[str] = "execution",
                 cycle_tokens: int = 500, max_tokens: int = 1024, temperature: float = 0.0,
                 feedback_chars: int = 4000,
                 draft_temperature: float = 0.0) -> None:
        self.max_iterations = max_iterations
        self.channel = parse_channel(feedback)
        self.cycle_tokens = cycle_tokens
        self.max_tokens = max_tokens
        self.temperature = temperature
        #: the single-shot arm's temperature, so iteration 0 is its draft (invariant 3)
        self.draft_temperature = draft_temperature
        self.feedback_chars = feedback_chars

    @property
    def roles(self) -> tuple[str, ...]:
        """The proposer's calls, plus those of the channel's model-backed parts."""
        return tuple(dict.fromkeys((PROPOSER_ROLE, *self.channel.roles)))

    def _feedback_text(self, ctx: TrialContext, attempt: Attempt) -> str:
        if attempt.artifact is None:
            return CUT_OFF_NOTE
        text = collect(ctx, self.channel, attempt.artifact).text(self.feedback_chars)
        return text or NO_DETAILS

    def run(self, ctx: TrialContext) -> StrategyResult:
        cycles = feedback_cycles(ctx.spec.budget, max_iterations=self.max_iterations,
                                 cycle_tokens=self.cycle_tokens)
        facts: dict[str, Any] = {"feedback": self.channel.name, "cycles_allowed": cycles}
        keep = KeepBest(ctx)
        try:
            latest = single_shot_draft(ctx, max_tokens=self.max_tokens,
                                                temperature=self.draft_temperature)
            keep.consider(0, latest)
            conversation: list[Message] = task_messages(ctx.task)
            for iteration in range(1, cycles + 1):
                if keep.done:
                    break
                note = self._feedback_text(ctx, latest)
                conversation = [*conversation, {"role": "assistant", "content": latest.reply},
                                {"role": "user",
                                 "content": f"{note}\n\nRevise it. {answer_format(ctx)}"}]
                (latest,) = sample(ctx, conversation, max_tokens=self.max_tokens,
                                   temperature=self.temperature)
                keep.consider(iteration, latest)
        except BudgetExhausted as exc:
            return keep.result("budget_exhausted", **facts, budget=str(exc))
        except ContextLengthExceeded as exc:
            if keep.best is None:  # not even the draft fit: a real error
                raise
            return keep.result(**facts, stop_reason="context_length", context=str(exc))
        return keep.result(**facts)
