"""Keep-best by the metric: never below the draft, instrument failures never read as scores."""

from __future__ import annotations

from tests.strategies.trial_helpers import RoleScript, code_task, delivered, program, run
from tether.core.observation import Observation
from tether.strategies.keep_best import rank_key


def test_ties_keep_the_earlier_iteration():
    script = RoleScript(proposer=[program("alpha"), program("alpha again"), program("beta")])
    record, arts = run("self_loop", {"max_iterations": 2, "feedback": "scripted_partial"},
                       script)
    assert record.extra["iteration_scores"] == [0.5, 0.5, 0.5]
    assert record.extra["best_iteration"] == 0 and delivered(record, arts) == "alpha\n"


def test_a_pass_beats_any_partial_score_and_errors_rank_last():
    def obs(**kw):
        return Observation(instrument="m", version="1", grounded=True, **kw)

    assert rank_key(obs(passed=True, score=0.2)) > rank_key(obs(passed=False, score=0.9))
    assert rank_key(obs(passed=False, score=0.0)) > rank_key(obs(error="sandbox down"))
    assert rank_key(obs(passed=False, score=0.0)) > rank_key(None)


def test_a_draft_cut_off_scores_as_single_shot_would_and_the_loop_recovers():
    script = RoleScript(proposer=["```python\nalpha", program("alpha beta")])
    record, _ = run("self_loop", {"feedback": "scripted_partial"}, script)
    assert record.extra["single_shot_score"] == 0.0
    assert record.extra["single_shot_passed"] is False
    assert record.extra["single_shot_status"] == "truncated"
    assert record.passed


def test_only_cut_off_replies_is_the_truncated_outcome():
    script = RoleScript(proposer=["```python\nalpha"] * 3)
    record, _ = run("self_loop", {"max_iterations": 2, "feedback": "none"}, script)
    assert record.status == "truncated" and record.artifact is None
    assert record.extra["final_passed"] is False


def test_metric_failure_stops_the_loop_and_the_trial_is_an_error():
    script = RoleScript(proposer=[program("alpha")])
    record, _ = run("self_loop", {"feedback": "none"}, script,
                    task=code_task(metric="scripted_broken"))
    assert len(record.calls) == 1
    assert record.status == "error" and record.error_kind == "instrument"
    assert record.extra["single_shot_score"] is None and record.extra["final_score"] is None
