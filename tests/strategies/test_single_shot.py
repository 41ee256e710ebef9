"""single_shot through `run_trial`: the delivered artifact, its metric, and every end state."""

from __future__ import annotations

from tether.core.budget import BudgetSpec
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.instruments.base import InstrumentEnv
from tether.runs.trial_runner import run_trial

ENV = InstrumentEnv(sandbox="subprocess")


def task(metric: str = "scripted_check", kind: str = "text", prompt: str = "Say alpha") -> Task:
    return Task(id="t", suite="s", prompt=prompt, metric=metric, artifact_kind=kind,
                data={"expect": "alpha"})


def spec(reply: str, *, budget: BudgetSpec | None = None, **params) -> TrialSpec:
    import json

    return TrialSpec(suite="s", task_id="t", strategy="single_shot", strategy_params=params,
                     models={"proposer": "scripted:" + json.dumps([reply])},
                     budget=budget or BudgetSpec(), seed=1)


def test_ok_trial_is_scored_by_the_task_metric() -> None:
    record, artifacts = run_trial(spec("alpha!"), task(), env=ENV)
    assert record.status == "ok" and record.passed is True and record.score == 1.0
    assert record.metric.instrument == "scripted_check"
    assert artifacts[record.artifact].text == "alpha!"
    assert record.artifact_kind == "text"
    assert len(record.calls) == 1 and record.calls[0].output == "alpha!"
    assert record.spend["proposer"].output_tokens == 1
    assert [o.purpose for o in record.observations] == ["metric"]


def test_failing_artifact_is_a_fail_not_an_error() -> None:
    record, _ = run_trial(spec("beta"), task(), env=ENV)
    assert record.status == "ok" and record.passed is False and record.score == 0.0
    assert record.metric.defects[0].kind == "missing"


def test_program_artifact_comes_from_the_fenced_block() -> None:
    record, artifacts = run_trial(spec("Here:\n```python\nprint('alpha')\n```\n"),
                                  task(kind="program"), env=ENV)
    assert record.status == "ok" and artifacts[record.artifact].text == "print('alpha')\n"


def test_model_error_ends_in_error_with_its_kind() -> None:
    bad = TrialSpec(suite="s", task_id="t", strategy="single_shot",
                    models={"proposer": "scripted:tests.runs.scripted_models:echo_word"})
    record, _ = run_trial(bad, task(prompt="Say model-down"), env=ENV)
    assert record.status == "error" and record.error_kind == "ModelError"
    assert "down" in record.error_message
    assert record.passed is None and record.score is None and record.metric is None


def test_instrument_error_is_an_error_never_a_zero() -> None:
    record, _ = run_trial(spec("alpha"), task(metric="scripted_check;fail_with=boom"), env=ENV)
    assert record.status == "error" and record.error_kind == "instrument"
    assert "boom" in record.error_message
    assert record.metric.error and record.passed is None and record.score is None
    assert record.artifact is not None  # what was delivered is still kept


def test_budget_exhaustion_before_the_first_call() -> None:
    budget = BudgetSpec(total=5, count="input+output")
    record, _ = run_trial(spec("alpha", budget=budget), task(prompt="word " * 50), env=ENV)
    assert record.status == "budget_exhausted" and record.calls == []
    assert record.passed is False and record.score == 0.0  # no artifact: an outcome, scored 0


def test_truncated_reply_ends_truncated() -> None:
    record, _ = run_trial(spec("```python\nprint('alpha')"), task(kind="program"), env=ENV)
    assert record.status == "truncated" and record.artifact is None
    # cut by the token limit before the fence closed
    long = "```python\n" + "x = 1\n" * 20 + "```"
    record, _ = run_trial(spec(long, max_tokens=4), task(kind="program"), env=ENV)
    assert record.status == "truncated" and record.calls[0].usage.output_tokens == 4


def test_unknown_model_spec_is_an_error_trial() -> None:
    bad = TrialSpec(suite="s", task_id="t", strategy="single_shot",
                    models={"proposer": "nonsense"})
    record, _ = run_trial(bad, task(), env=ENV)
    assert record.status == "error" and record.error_kind == "UnknownModelError"


def test_a_loops_draft_is_the_single_shot_request_at_any_temperature() -> None:
    """Invariant 3 at temperature 0.7: single_shot and the loops' iteration 0 are one request
    (same messages, parameters and seed), so the same request hash."""
    from tests.strategies.trial_helpers import RoleScript, code_task, program, run

    def script() -> RoleScript:
        return RoleScript(proposer=[program("alpha")] * 5, reviewer=['{"issues": []}'] * 5)

    single, _ = run("single_shot", {"temperature": 0.7}, script())
    for loop in ("proposer_reviewer", "self_loop", "iad"):
        looped, _ = run(loop, {"draft_temperature": 0.7, "max_iterations": 1}, script(),
                        roles=("proposer", "reviewer"), task=code_task())
        assert looped.calls[0].request_hash == single.calls[0].request_hash, loop
    plain, _ = run("proposer_reviewer", {"max_iterations": 1}, script(),
                   roles=("proposer", "reviewer"))
    assert plain.calls[0].request_hash != single.calls[0].request_hash  # the test can fail
