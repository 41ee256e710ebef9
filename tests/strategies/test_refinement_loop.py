"""The refinement loop itself (invariant 3): iteration 0 is the single-shot draft, the
best-scoring iteration is delivered, so a reviewed trial never scores below single-shot.

Driven through a test-double loop whose `revise()` just asks the scripted model again,
so every iteration's score is the script's: the loop's rule is tested once, here,
apart from how self_loop, proposer_reviewer and iad revise."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from tests.strategies.trial_helpers import RoleScript, calls, code_task, program, run
from tether.context import TrialContext
from tether.core.budget import BudgetSpec
from tether.core.observation import Observation
from tether.core.trial import TrialSpec
from tether.instruments.base import InstrumentEnv
from tether.models.errors import ContextLengthExceeded
from tether.strategies.attempts import Attempt, sample
from tether.strategies.base import StrategyResult
from tether.strategies.loop_params import LoopParams
from tether.strategies.prompting import task_messages
from tether.strategies.refinement import Refinement, RefinementLoop
from tether.testing.scripted_models import ScriptedModel

#: program bodies by the partial score `scripted_partial` gives them on code_task()'s checks
BODY = {0.0: "nothing", 0.5: "alpha", 1.0: "alpha beta"}
SCORED = {score: program(body) for score, body in BODY.items()}


class RevisionParams(LoopParams):
    n: int = 1


class ScriptedRevisions(RefinementLoop):
    """Test double: each revision is the model's next reply to the task, `n` at a time."""

    name: ClassVar[str] = "scripted_revisions"
    Params = RevisionParams
    params: RevisionParams

    def __init__(self, **values: Any) -> None:
        super().__init__(RevisionParams(**values))
        self.seen: list[tuple[int, list[Observation | None]]] = []

    def revise(self, run: Refinement, iteration: int) -> list[Attempt]:
        return sample(run.ctx, task_messages(run.ctx.task), max_tokens=self.params.max_tokens,
                      temperature=self.params.temperature, n=self.params.n)

    def scored(self, run: Refinement, iteration: int,
               observed: list[tuple[Attempt, Observation | None]]) -> None:
        self.seen.append((iteration, [obs for _, obs in observed]))


def _run(loop: RefinementLoop, replies: list[str] | Any, *,
         budget: BudgetSpec | None = None) -> tuple[StrategyResult, TrialContext]:
    script = RoleScript(proposer=replies)
    spec = TrialSpec(suite="scripted", task_id="t1", strategy=loop.name, strategy_params={},
                     models={"proposer": "scripted:test"}, budget=budget or BudgetSpec())
    model = ScriptedModel(script, model_id="scripted-test")  # the id trial_helpers.run uses
    ctx = TrialContext(spec, code_task(), {"proposer": model}, InstrumentEnv(sandbox="subprocess"))
    return loop.run(ctx), ctx


def _text(result: StrategyResult) -> str | None:
    return result.artifact.text if result.artifact is not None else None


@pytest.mark.parametrize("scores, best", [
    ([0.5, 0.0, 0.0, 0.0], 0),     # every revision worse: the draft is delivered
    ([0.0, 0.5, 0.0, 0.0], 1),     # a better revision, then worse ones: not the latest
    ([0.5, 0.5, 0.0, 0.5], 0),     # ties keep the earlier iteration
    ([0.0, 0.0, 0.5, 1.0], 3),     # the last one is the best
    ([0.0, 1.0], 1),               # a pass ends the loop: no further call
])
def test_the_best_scoring_iteration_is_delivered_never_below_the_draft(scores, best):
    result, ctx = _run(ScriptedRevisions(max_iterations=3, feedback="none"),
                       [SCORED[s] for s in scores])
    facts = result.facts
    assert facts is not None
    assert len(ctx.calls) == len(scores) and facts.iteration_scores == scores
    assert facts.best_iteration == best and _text(result) == BODY[scores[best]] + "\n"
    assert facts.final_score == max(scores) >= facts.single_shot_score == scores[0]
    assert facts.stop_reason == ("passed" if max(scores) == 1.0 else "cycles")


def test_iteration_0_is_the_single_shot_request():
    loop = ScriptedRevisions(max_iterations=1, feedback="none", max_tokens=77,
                             temperature=0.9, draft_temperature=0.3)
    _, ctx = _run(loop, [SCORED[0.0], SCORED[0.5]])
    single, _ = run("single_shot", {"max_tokens": 77, "temperature": 0.3},
                    RoleScript(proposer=[SCORED[0.0]]))
    (reference,) = calls(single, "proposer")
    draft, revision = ctx.calls
    assert draft.request_hash == reference.request_hash and draft.params == reference.params
    assert draft.messages == reference.messages
    assert revision.params["temperature"] == 0.9  # revisions use the loop's own temperature


def test_every_candidate_is_scored_and_the_best_one_kept():
    loop = ScriptedRevisions(n=3, max_iterations=1, feedback="none")
    result, _ = _run(loop, [SCORED[0.0], SCORED[0.0], SCORED[0.5], SCORED[0.0]])
    assert result.facts is not None and result.facts.iteration_scores == [0.0, 0.0, 0.5, 0.0]
    assert result.facts.best_iteration == 1 and _text(result) == "alpha\n"
    ((iteration, observed),) = loop.seen
    assert iteration == 1 and [o.score for o in observed if o is not None] == [0.0, 0.5, 0.0]


def test_a_refused_call_ends_the_loop_with_the_best_so_far():
    def replies(messages: Any, info: Any) -> str:
        return SCORED[0.5] if info.call_number == 0 else program("x y z w v u t s r q p o")

    result, ctx = _run(ScriptedRevisions(max_iterations=50, feedback="none"), replies,
                       budget=BudgetSpec(total=40))
    assert result.status == "budget_exhausted" and _text(result) == "alpha\n"
    assert result.facts is not None and result.facts.stop_reason == "budget"
    assert result.extra["budget"] and ctx.ledger.charged() <= 40


def test_a_context_overflow_is_an_error_unless_the_loop_says_it_ends_the_loop():
    def replies(messages: Any, info: Any) -> str:
        if info.call_number > 0:
            raise ContextLengthExceeded("scripted: prompt exceeds the context window")
        return SCORED[0.5]

    with pytest.raises(ContextLengthExceeded):
        _run(ScriptedRevisions(feedback="none"), replies)

    class Growing(ScriptedRevisions):
        context_ends_loop: ClassVar[bool] = True

    result, _ = _run(Growing(feedback="none"), replies)
    assert result.status == "ok" and _text(result) == "alpha\n"
    assert result.facts is not None and result.facts.stop_reason == "context_length"
