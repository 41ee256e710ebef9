"""Keep the best iteration by the task's metric (invariant 3), and say how each one did.

Every loop (self-loop, proposer-reviewer, IAD) scores each iteration with
`ctx.metric` (the task's metric instrument, cached per artifact) and delivers the
best-scoring one. Iteration 0 is the single-shot draft and a later iteration
replaces the best only when strictly better (a pass beats a fail, then the higher
partial score), so the delivered artifact never scores below the draft.

An iteration whose metric observation is an instrument error has no score
(invariant 6): the loop stops there and delivers that artifact, so the runner
records the trial as an instrument error instead of a silent keep-the-draft.
"""

from __future__ import annotations

import time
from typing import Any

from tether.context import TrialContext
from tether.core import LoopFacts, Observation, rank_key
from tether.strategies.attempts import Attempt
from tether.strategies.base import StrategyResult

__all__ = ["KeepBest", "rank_key"]


class KeepBest:
    """The best attempt so far and the history of every iteration's metric."""

    def __init__(self, ctx: TrialContext) -> None:
        self.ctx = ctx
        self.best: Attempt | None = None
        self.best_obs: Observation | None = None
        self.best_iteration: int | None = None
        self.history: list[dict[str, Any]] = []
        #: set when the metric instrument failed on an iteration; the loop must stop
        self.failed: Attempt | None = None

    def consider(self, iteration: int, attempt: Attempt,
                 **facts: Any) -> Observation | None:
        """Score `attempt` with the metric, record it, keep it if it is the best so far."""
        obs = self.ctx.metric(attempt.artifact) if attempt.artifact is not None else None
        self.history.append({
            "iteration": iteration,
            # when the iteration was scored (Unix time, seconds): an export shows its score
            # then; the metric of an artifact seen before is its cached observation
            "scored_at": time.time(),
            "status": attempt.status if obs is None or obs.ok else "instrument_error",
            "score": obs.score if obs is not None and obs.ok else None,
            "passed": obs.passed if obs is not None and obs.ok else None,
            "artifact": attempt.artifact.digest if attempt.artifact is not None else None,
            **facts,
        })
        if obs is not None and obs.error is not None:
            self.failed = attempt
            return obs
        if attempt.artifact is not None and (
                self.best is None or rank_key(obs) > rank_key(self.best_obs)):
            self.best, self.best_obs, self.best_iteration = attempt, obs, iteration
        return obs

    @property
    def passed(self) -> bool:
        return bool(self.best_obs is not None and self.best_obs.passed)

    @property
    def done(self) -> bool:
        """Nothing more to do: the best passes, or the metric itself failed."""
        return self.passed or self.failed is not None

    def facts(self, stop_reason: str | None = None) -> LoopFacts:
        """Paired facts of the trial: single-shot (iteration 0) against the final."""
        first = self.history[0] if self.history else {}
        # A draft without an artifact (cut off) scores as single_shot would: 0, not passed.
        ss_score = first.get("score") if first.get("artifact") else 0.0
        ss_passed = first.get("passed") if first.get("artifact") else False
        if self.failed is not None and not self.passed:  # delivers what could not be scored
            final_score, final_passed = None, None
        elif self.best_obs is None:  # nothing delivered: scores as not passing
            final_score, final_passed = 0.0, False
        else:
            final_score, final_passed = self.best_obs.score, bool(self.best_obs.passed)
        return LoopFacts(
            single_shot_score=ss_score,
            single_shot_passed=ss_passed,
            single_shot_status=first.get("status"),
            final_score=final_score,
            final_passed=final_passed,
            best_iteration=self.best_iteration,
            # revisions made after the draft (IAD scores several candidates per iteration)
            iterations=max(len({h["iteration"] for h in self.history}) - 1, 0),
            iteration_scores=[h["score"] for h in self.history],
            iteration_history=self.history,
            stop_reason=stop_reason,
        )

    def result(self, status: str = "ok", **extra: Any) -> StrategyResult:
        """The strategy's result: the best artifact (or the unscorable one), with the facts.

        A loop that knows why it stopped says so with `stop_reason=` (e.g. context_length);
        otherwise it is derived: passed, budget, truncated, instrument_error or cycles."""
        said = extra.pop("stop_reason", None)
        if said is not None:
            return StrategyResult(self.best.artifact if self.best is not None else None,
                                  status=status if self.best is not None else "truncated",
                                  extra=extra, facts=self.facts(said))
        if self.failed is not None and not self.passed:
            return StrategyResult(self.failed.artifact, status="ok", extra=extra,
                                  facts=self.facts("instrument_error"))
        if self.best is None:
            status = "truncated" if status == "ok" else status
            return StrategyResult(None, status=status, extra=extra,
                                  facts=self.facts(_stop_reason(status, passed=False)))
        return StrategyResult(self.best.artifact, status=status, extra=extra,
                              facts=self.facts(_stop_reason(status, self.passed)))


def _stop_reason(status: str, passed: bool) -> str:
    if passed:
        return "passed"
    return {"budget_exhausted": "budget", "truncated": "truncated"}.get(status, "cycles")
