"""`proposer_reviewer` (H): a reviewer turns observations into a defect list, the proposer revises.

A refinement loop (`tether.strategies.refinement`: iteration 0 is the single-shot
draft, the best-scoring program is delivered, the loop stops at the first pass, so an
already-passing draft costs no review at all). Each revision:
1. the feedback channel observes the current best program (default `execution`,
   the task's hidden checks, as the interaction-scaling study did; `none`,
   `critique`, `critique+lint`, `critique+execution`, `execution;checks=visible` or
   any instrument spec, see `tether.strategies.feedback`);
2. a reviewer call (role `reviewer`) in a FRESH context (task, program, the channel's
   evidence) answers a JSON defect list {"issues": [{location, cause, change}]};
3. the proposer (role `proposer`) revises in a FRESH context from the task, the
   current program and that list; the revision is scored by the metric.
The revision starts from the best program so far, so a worse revision is not built
upon. A draft cut off before its program is asked for again from the task.

Params: the loop's (`LoopParams`: `max_iterations`, `feedback`, `cycle_tokens`,
`max_tokens` of proposer replies, `temperature` of revisions, `feedback_chars`,
`draft_temperature`), and `reviewer_max_tokens` (also each critique call's).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.strategies.attempts import Attempt, fenced
from tether.strategies.base import register_strategy
from tether.strategies.feedback import collect
from tether.strategies.loop_params import LoopParams
from tether.strategies.refinement import Refinement, RefinementLoop
from tether.strategies.review import Review, parse_review, reviewer_messages

#: the role of the reviewer's call (the channel's model-backed parts use it too)
REVIEWER_ROLE = "reviewer"


class ReviewerParams(LoopParams):
    """The loop's params and the reviewer's."""

    own_roles: ClassVar[tuple[str, ...]] = (REVIEWER_ROLE,)
    reviewer_max_tokens: params.Tokens = Field(512, description="most tokens of a review "
                                                                "(and of a model-backed "
                                                                "channel part)")


@register_strategy("proposer_reviewer")
class ProposerReviewer(RefinementLoop):
    """`proposer_reviewer` (H): a reviewer turns observations into a defect list,
    the proposer revises."""

    name: ClassVar[str] = "proposer_reviewer"
    Params: ClassVar[type[LoopParams]] = ReviewerParams
    params: ReviewerParams

    def review(self, ctx: TrialContext, attempt: Attempt) -> Review:
        """Channel observations -> a reviewer call in a fresh context -> the defect list."""
        assert attempt.artifact is not None
        evidence = collect(ctx, self.channel, attempt.artifact,
                           critique_max_tokens=self.params.reviewer_max_tokens)
        messages = reviewer_messages(ctx.task.prompt, fenced(ctx, attempt.artifact.text),
                                     evidence.text(self.params.feedback_chars))
        (reply,) = ctx.generate(REVIEWER_ROLE, messages,
                                max_tokens=self.params.reviewer_max_tokens)
        return parse_review(reply.text)

    def start_facts(self) -> dict[str, Any]:
        return {"reviews": [], "review_parse_failures": 0}

    def revise(self, run: Refinement, iteration: int) -> list[Attempt]:
        """The best program reviewed, then revised from the reviewer's defect list."""
        best = run.keep.best
        if best is None or best.artifact is None:  # the draft was cut off: nothing to review
            return self.ask_again(run.ctx)
        review = self.review(run.ctx, best)
        run.facts["reviews"].append({"iteration": iteration, "parsed": review.parsed,
                                     "issues": len(review.issues)})
        run.facts["review_parse_failures"] += 0 if review.parsed else 1
        notes = f"A reviewer found these issues:\n{review.for_proposer()}"
        return self.revise_program(run.ctx, best.artifact.text, notes)
