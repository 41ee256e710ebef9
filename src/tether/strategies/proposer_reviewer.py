"""`proposer_reviewer` (H): a reviewer turns observations into a defect list, the proposer revises.

Iteration 0 is the single-shot draft (invariant 3). While the metric fails and
cycles remain:
1. the feedback channel observes the current best program (default `execution`,
   the task's hidden checks, as the interaction-scaling study did; `none`,
   `critique`, `critique+lint`, `critique+execution`, `execution;checks=visible` or
   any instrument spec, see `tether.strategies.feedback`);
2. a reviewer call (role `reviewer`) in a FRESH context (task, program, the channel's
   evidence) answers a JSON defect list {"issues": [{location, cause, change}]};
3. the proposer (role `proposer`) revises in a FRESH context from the task, the
   current program and that list; the revision is scored by the metric.
The best-scoring program is delivered (keep-best) and the loop stops as soon as
one passes: an already-passing draft costs no review at all. The revision starts
from the best program so far, so a worse revision is not built upon.

Params: `max_iterations` (default 3), `feedback` (channel), `cycle_tokens` (the
execution share -> cycles rule of `tether.strategies.feedback`), `max_tokens`
(proposer replies, also the draft's), `reviewer_max_tokens` (512; also each
critique call's), `temperature` of revisions (0), `feedback_chars` (4000).
`draft_temperature` (0): the temperature of iteration 0, set to the single-shot arm's
`temperature` so the draft is its artifact (invariant 3).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from tether.context import TrialContext
from tether.core.budget import BudgetExhausted
from tether.strategies.attempts import (
    PROPOSER_ROLE,
    Attempt,
    fenced,
    revision_messages,
    sample,
    shorter_retry,
    single_shot_draft,
)
from tether.strategies.base import StrategyResult, register_strategy
from tether.strategies.feedback import channel_roles, collect, feedback_cycles, parse_channel
from tether.strategies.keep_best import KeepBest
from tether.strategies.loop_params import LoopParams
from tether.strategies.review import Review, parse_review, reviewer_messages

#: the role of the reviewer's call (the channel's model-backed parts use it too)
REVIEWER_ROLE = "reviewer"


@register_strategy("proposer_reviewer")
class ProposerReviewer:
    name: ClassVar[str] = "proposer_reviewer"

    class Params(LoopParams):
        reviewer_max_tokens: int = Field(512, description="most tokens of a review (and of "
                                                          "a model-backed channel part)")

        def roles(self) -> tuple[str, ...]:
            return tuple(dict.fromkeys((PROPOSER_ROLE, REVIEWER_ROLE,
                                        *channel_roles(self.feedback))))

    def __init__(self, max_iterations: int = 3, feedback: str | list[str] = "execution",
                 cycle_tokens: int = 500, max_tokens: int = 1024,
                 reviewer_max_tokens: int = 512, temperature: float = 0.0,
                 feedback_chars: int = 4000,
                 draft_temperature: float = 0.0) -> None:
        self.max_iterations = max_iterations
        self.channel = parse_channel(feedback)
        self.cycle_tokens = cycle_tokens
        self.max_tokens = max_tokens
        self.reviewer_max_tokens = reviewer_max_tokens
        self.temperature = temperature
        #: the single-shot arm's temperature, so iteration 0 is its draft (invariant 3)
        self.draft_temperature = draft_temperature
        self.feedback_chars = feedback_chars

    @property
    def roles(self) -> tuple[str, ...]:
        """Proposer and reviewer, plus the roles of the channel's model-backed parts."""
        return tuple(dict.fromkeys((PROPOSER_ROLE, REVIEWER_ROLE, *self.channel.roles)))

    def review(self, ctx: TrialContext, attempt: Attempt) -> Review:
        """Channel observations -> a reviewer call in a fresh context -> the defect list."""
        assert attempt.artifact is not None
        evidence = collect(ctx, self.channel, attempt.artifact,
                           critique_max_tokens=self.reviewer_max_tokens)
        messages = reviewer_messages(ctx.task.prompt, fenced(ctx, attempt.artifact.text),
                                     evidence.text(self.feedback_chars))
        (reply,) = ctx.generate(REVIEWER_ROLE, messages, max_tokens=self.reviewer_max_tokens)
        return parse_review(reply.text)

    def run(self, ctx: TrialContext) -> StrategyResult:
        cycles = feedback_cycles(ctx.spec.budget, max_iterations=self.max_iterations,
                                 cycle_tokens=self.cycle_tokens)
        facts: dict[str, Any] = {"feedback": self.channel.name, "cycles_allowed": cycles,
                                 "reviews": []}
        keep = KeepBest(ctx)
        try:
            keep.consider(0, single_shot_draft(ctx, max_tokens=self.max_tokens,
                                                temperature=self.draft_temperature))
            for iteration in range(1, cycles + 1):
                if keep.done:
                    break
                if keep.best is None:
                    # The draft was cut off: nothing to review, ask again from the task.
                    (attempt,) = shorter_retry(ctx, max_tokens=self.max_tokens,
                                               temperature=self.temperature)
                    keep.consider(iteration, attempt)
                    continue
                review = self.review(ctx, keep.best)
                facts["reviews"].append({"iteration": iteration, "parsed": review.parsed,
                                         "issues": len(review.issues)})
                notes = f"A reviewer found these issues:\n{review.for_proposer()}"
                best = keep.best.artifact
                assert best is not None  # KeepBest keeps only attempts with an artifact
                (attempt,) = sample(ctx, revision_messages(ctx, best.text, notes),
                                    max_tokens=self.max_tokens, temperature=self.temperature)
                keep.consider(iteration, attempt)
        except BudgetExhausted as exc:
            return keep.result("budget_exhausted", **facts,
                               review_parse_failures=_failures(facts), budget=str(exc))
        return keep.result(**facts, review_parse_failures=_failures(facts))


def _failures(facts: dict[str, Any]) -> int:
    return sum(1 for r in facts["reviews"] if not r["parsed"])
