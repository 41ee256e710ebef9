"""`iad`: K candidates per iteration, ranked by the partial score, the best revised.

Iteration 0 is the single-shot draft (invariant 3). While the metric fails and
cycles remain, the best program so far is observed by the feedback channel
(default `execution`), and `k` revisions are sampled from one fresh-context
request (task, that program, its failures) at `temperature`. Every candidate is
scored by the task's metric; candidates are ranked by the metric observation's
partial score (a pass first, then the fraction of checks passed), and the best
one overall becomes the program the next iteration revises. The loop stops as
soon as a candidate passes; the best-scoring program is delivered (keep-best).

Params: `k` (3), `max_iterations` (3), `feedback` (channel), `cycle_tokens` (the
execution share -> cycles rule of `tether.strategies.feedback`), `temperature`
of revisions (0.8), `max_tokens` (per reply, also the draft's), `feedback_chars`.
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
    revision_messages,
    sample,
    shorter_retry,
    single_shot_draft,
)
from tether.strategies.base import StrategyResult, register_strategy
from tether.strategies.feedback import NO_DETAILS, collect, feedback_cycles, parse_channel
from tether.strategies.keep_best import KeepBest, rank_key
from tether.strategies.loop_params import LoopParams


@register_strategy("iad")
class IAD:
    name: ClassVar[str] = "iad"

    class Params(LoopParams):
        k: int = Field(3, description="revisions sampled per cycle; the best is kept")
        temperature: float = Field(0.8, description="the revisions' sampling temperature")

    def __init__(self, k: int = 3, max_iterations: int = 3, feedback: str | list[str] = "execution",
                 cycle_tokens: int = 500, temperature: float = 0.8, max_tokens: int = 1024,
                 feedback_chars: int = 4000,
                 draft_temperature: float = 0.0) -> None:
        self.k = k
        self.max_iterations = max_iterations
        self.channel = parse_channel(feedback)
        self.cycle_tokens = cycle_tokens
        self.temperature = temperature
        #: the single-shot arm's temperature, so iteration 0 is its draft (invariant 3)
        self.draft_temperature = draft_temperature
        self.max_tokens = max_tokens
        self.feedback_chars = feedback_chars

    @property
    def roles(self) -> tuple[str, ...]:
        """The proposer's calls, plus those of the channel's model-backed parts."""
        return tuple(dict.fromkeys((PROPOSER_ROLE, *self.channel.roles)))

    def run(self, ctx: TrialContext) -> StrategyResult:
        cycles = feedback_cycles(ctx.spec.budget, max_iterations=self.max_iterations,
                                 cycle_tokens=self.cycle_tokens)
        facts: dict[str, Any] = {"feedback": self.channel.name, "cycles_allowed": cycles,
                                 "k": self.k, "rankings": []}
        keep = KeepBest(ctx)
        try:
            keep.consider(0, single_shot_draft(ctx, max_tokens=self.max_tokens,
                                                temperature=self.draft_temperature))
            for iteration in range(1, cycles + 1):
                if keep.done:
                    break
                if keep.best is None:  # the draft was cut off: nothing to revise yet
                    candidates = shorter_retry(ctx, max_tokens=self.max_tokens,
                                               temperature=self.temperature, n=self.k)
                else:
                    best = keep.best.artifact
                    assert best is not None  # KeepBest keeps only attempts with an artifact
                    report = collect(ctx, self.channel, best)
                    failures = report.text(self.feedback_chars) or NO_DETAILS
                    messages = revision_messages(ctx, best.text,
                                                 f"Its failures:\n{failures}")
                    candidates = sample(ctx, messages, max_tokens=self.max_tokens,
                                        temperature=self.temperature, n=self.k)
                observed = [(c, keep.consider(iteration, c, candidate=j))
                            for j, c in enumerate(candidates)]
                order = sorted(range(len(observed)), key=lambda j: rank_key(observed[j][1]),
                               reverse=True)
                facts["rankings"].append({
                    "iteration": iteration, "order": order,
                    "scores": [o.score if o is not None and o.ok else None
                               for _, o in observed]})
        except BudgetExhausted as exc:
            return keep.result("budget_exhausted", **facts, budget=str(exc))
        return keep.result(**facts)
