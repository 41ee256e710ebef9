"""`iad`: K candidates per iteration, ranked by the partial score, the best revised.

A refinement loop (`tether.strategies.refinement`: iteration 0 is the single-shot
draft, the best-scoring program is delivered, the loop stops as soon as a candidate
passes). Each revision observes the best program so far with the feedback channel
(default `execution`) and samples `k` revisions from one fresh-context request
(task, that program, its failures) at `temperature`. Every candidate is scored by the
task's metric; candidates are ranked by the metric observation's partial score (a
pass first, then the fraction of checks passed), and the best one overall becomes
the program the next iteration revises.

Params: `k`, and the loop's (`LoopParams`: `max_iterations`, `feedback`,
`cycle_tokens`, `temperature` of revisions (its own default here), `max_tokens`,
`feedback_chars`, `draft_temperature`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from tether import params
from tether.core import Observation
from tether.strategies.attempts import Attempt
from tether.strategies.base import register_strategy
from tether.strategies.feedback import NO_DETAILS, collect
from tether.strategies.keep_best import rank_key
from tether.strategies.loop_params import LoopParams
from tether.strategies.refinement import Refinement, RefinementLoop


class IADParams(LoopParams):
    """The loop's params, `k`, and sampled revisions' own temperature."""

    k: params.Count = Field(3, description="revisions sampled per cycle; the best is kept")
    temperature: params.Temperature = Field(0.8, description="the revisions' sampling "
                                                             "temperature")


@register_strategy("iad")
class IAD(RefinementLoop):
    """`iad`: K candidates per iteration, ranked by the partial score, the best revised."""

    name: ClassVar[str] = "iad"
    Params: ClassVar[type[LoopParams]] = IADParams
    params: IADParams
    numbered_candidates: ClassVar[bool] = True

    def start_facts(self) -> dict[str, Any]:
        return {"k": self.params.k, "rankings": []}

    def revise(self, run: Refinement, iteration: int) -> list[Attempt]:
        """`k` revisions of the best program from one request showing its failures."""
        best = run.keep.best
        if best is None or best.artifact is None:  # the draft was cut off: nothing to revise
            return self.ask_again(run.ctx, n=self.params.k)
        report = collect(run.ctx, self.channel, best.artifact)
        failures = report.text(self.params.feedback_chars) or NO_DETAILS
        return self.revise_program(run.ctx, best.artifact.text, f"Its failures:\n{failures}",
                                   n=self.params.k)

    def scored(self, run: Refinement, iteration: int,
               observed: list[tuple[Attempt, Observation | None]]) -> None:
        """The iteration's candidates in rank order, with their scores."""
        order = sorted(range(len(observed)), key=lambda j: rank_key(observed[j][1]),
                       reverse=True)
        run.facts["rankings"].append({
            "iteration": iteration, "order": order,
            "scores": [o.score if o is not None and o.ok else None for _, o in observed]})
