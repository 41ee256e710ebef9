"""The refinement loop: draft, review, revise, keep the best (invariant 3).

`self_loop`, `proposer_reviewer` and `iad` are one loop that differs only in how an
iteration revises; each subclasses `RefinementLoop` and writes `revise()`:
1. iteration 0 is the single-shot draft: the request `single_shot` makes, at
   `draft_temperature` (the single-shot arm's `temperature`), so the draft is its artifact;
2. while the best so far fails and feedback cycles remain, `revise()` makes the
   iteration's attempts (one, or several candidates) and the loop scores each one with
   the task's metric (`KeepBest`);
3. the best-scoring attempt is delivered: a later iteration replaces it only when
   strictly better, so a reviewed trial never scores below single-shot on the metric.
The loop stops as soon as one attempt passes, when the metric instrument itself fails,
or when the budget refuses a call (`budget_exhausted`, the best so far delivered).

Shared params (`LoopParams`, `tether.strategies.loop_params`, where they are declared):
`max_iterations` (revisions after the draft), `feedback` (a channel, see
`tether.strategies.feedback`), `cycle_tokens` (the execution share -> cycles rule of
`tether.strategies.feedback`), `max_tokens` (per proposer reply, also the draft's, as in
single_shot), `temperature` of revisions, `feedback_chars` (cap on feedback text),
`draft_temperature`. A loop is built from its validated params and reads them from
`self.params`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from tether.context import TrialContext
from tether.core import BudgetExhausted, Observation
from tether.models import ContextLengthExceeded, Message
from tether.strategies.attempts import (
    Attempt,
    revision_messages,
    sample,
    shorter_retry,
    single_shot_draft,
)
from tether.strategies.base import StrategyResult
from tether.strategies.feedback import feedback_cycles, parse_channel
from tether.strategies.keep_best import KeepBest
from tether.strategies.loop_params import LoopParams
from tether.strategies.prompting import task_messages


@dataclass
class Refinement:
    """One trial of a refinement loop: what `revise()` reads and adds to."""

    ctx: TrialContext
    keep: KeepBest
    #: the trial's facts beside the loop's: the strategy's `start_facts`, grown per iteration
    facts: dict[str, Any]
    #: the newest attempt (the draft at first; the last candidate of an iteration)
    latest: Attempt
    #: the conversation a loop that continues one context extends (fresh-context loops
    #: leave it at the task's messages)
    conversation: list[Message]


class RefinementLoop(ABC):
    """Draft, then revise while the metric fails and cycles remain; deliver the best."""

    name: ClassVar[str]
    #: the loop's declaration (a subclass of `LoopParams`: the shared params and its own)
    Params: ClassVar[type[LoopParams]] = LoopParams
    #: each iteration's attempts are candidates of one request, numbered in the history
    numbered_candidates: ClassVar[bool] = False
    #: a conversation that outgrows the model's context window ends the loop like a spent
    #: budget (the best so far delivered): the growing context is the strategy's own cost
    context_ends_loop: ClassVar[bool] = False

    def __init__(self, params: LoopParams | None = None) -> None:
        self.params = params if params is not None else self.Params()
        self.channel = parse_channel(self.params.feedback)

    @property
    def roles(self) -> tuple[str, ...]:
        """The proposer's, the strategy's own, then those of the channel's model-backed parts."""
        return self.params.roles()

    @abstractmethod
    def revise(self, run: Refinement, iteration: int) -> list[Attempt]:
        """The attempts of one iteration after the draft (the loop scores them)."""

    def start_facts(self) -> dict[str, Any]:
        """The strategy's own facts, recorded after the loop's (revise may grow them)."""
        return {}

    def scored(self, run: Refinement, iteration: int,
               observed: list[tuple[Attempt, Observation | None]]) -> None:
        """Called with each iteration's attempts and their metric observations (by default
        nothing more is recorded than the loop's own history)."""
        return None

    def ask_again(self, ctx: TrialContext, n: int = 1) -> list[Attempt]:
        """`n` fresh attempts from the task, after every reply so far was cut off."""
        return shorter_retry(ctx, max_tokens=self.params.max_tokens,
                             temperature=self.params.temperature, n=n)

    def revise_program(self, ctx: TrialContext, program: str, notes: str,
                       n: int = 1) -> list[Attempt]:
        """`n` revisions of `program` from `notes`, in a fresh context."""
        return sample(ctx, revision_messages(ctx, program, notes),
                      max_tokens=self.params.max_tokens, temperature=self.params.temperature,
                      n=n)

    def run(self, ctx: TrialContext) -> StrategyResult:
        cycles = feedback_cycles(ctx.spec.budget, max_iterations=self.params.max_iterations,
                                 cycle_tokens=self.params.cycle_tokens)
        facts: dict[str, Any] = {"feedback": self.channel.name, "cycles_allowed": cycles,
                                 **self.start_facts()}
        keep = KeepBest(ctx)
        try:
            # the single-shot arm's temperature, so iteration 0 is its draft (invariant 3)
            draft = single_shot_draft(ctx, max_tokens=self.params.max_tokens,
                                      temperature=self.params.draft_temperature)
            keep.consider(0, draft)
            run = Refinement(ctx, keep, facts, draft, task_messages(ctx.task))
            for iteration in range(1, cycles + 1):
                if keep.done:
                    break
                attempts = self.revise(run, iteration)
                observed = [(a, keep.consider(iteration, a, **self._number(j)))
                            for j, a in enumerate(attempts)]
                run.latest = attempts[-1] if attempts else run.latest
                self.scored(run, iteration, observed)
        except BudgetExhausted as exc:
            return keep.result("budget_exhausted", **facts, budget=str(exc))
        except ContextLengthExceeded as exc:
            # an error for a loop of fresh contexts, and for any loop with nothing to deliver
            if not self.context_ends_loop or keep.best is None:
                raise
            return keep.result(**facts, stop_reason="context_length", context=str(exc))
        return keep.result(**facts)

    def _number(self, j: int) -> dict[str, int]:
        return {"candidate": j} if self.numbered_candidates else {}
