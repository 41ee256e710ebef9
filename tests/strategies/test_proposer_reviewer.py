"""proposer_reviewer (H): fresh-context reviews, defect lists reaching the proposer, keep-best."""

from __future__ import annotations

import json

from tests.strategies.trial_helpers import (
    RoleScript,
    calls,
    charged,
    code_task,
    delivered,
    program,
    run,
)
from tether.core.budget import BudgetSpec

ISSUE = json.dumps({"issues": [{"location": "f", "cause": "beta is missing",
                                "change": "return beta too (CHANGE-MARKER)"}]})
H = "proposer_reviewer"


def test_already_passing_draft_costs_no_review():
    script = RoleScript(proposer=[program("alpha beta")], reviewer=[])
    record, _ = run(H, {}, script, roles=("proposer", "reviewer"))
    assert record.status == "ok" and record.passed
    assert len(record.calls) == 1 and calls(record, "reviewer") == []
    assert record.extra["iterations"] == 0
    assert record.extra["single_shot_passed"] is True


def test_early_stop_when_revision_passes():
    script = RoleScript(proposer=[program("alpha"), program("alpha beta")], reviewer=[ISSUE])
    record, arts = run(H, {"max_iterations": 3}, script, roles=("proposer", "reviewer"))
    assert record.passed and delivered(record, arts) == "alpha beta\n"
    assert len(calls(record, "proposer")) == 2 and len(calls(record, "reviewer")) == 1
    assert record.extra["iterations"] == 1
    assert record.extra["single_shot_score"] == 0.5 and record.extra["final_score"] == 1.0
    assert record.extra["iteration_scores"] == [0.5, 1.0]


def test_reviewer_sees_channel_evidence_in_fresh_context_and_proposer_gets_its_list():
    script = RoleScript(proposer=[program("alpha"), program("alpha beta")], reviewer=[ISSUE])
    record, _ = run(H, {"feedback": "scripted_partial"}, script, roles=("proposer", "reviewer"))
    (review,) = calls(record, "reviewer")
    # Fresh context: system + one user turn, holding the task, program and evidence.
    assert [m["role"] for m in review.messages] == ["system", "user"]
    user = review.messages[1]["content"]
    assert "Write f()" in user and "alpha" in user
    assert "check for 'beta' failed" in user and "expected beta" in user
    revision = calls(record, "proposer")[1]
    assert [m["role"] for m in revision.messages] == ["user"]
    assert "CHANGE-MARKER" in revision.messages[0]["content"]
    assert "```python\nalpha\n```" in revision.messages[0]["content"]


def test_feedback_none_shows_reviewer_only_task_and_program():
    script = RoleScript(proposer=[program("alpha"), program("alpha beta")], reviewer=[ISSUE])
    record, _ = run(H, {"feedback": "none"}, script, roles=("proposer", "reviewer"))
    user = calls(record, "reviewer")[0].messages[1]["content"]
    assert "Write f()" in user and "alpha" in user
    assert "failed" not in user and "Evidence" not in user


def test_lint_channel_reaches_reviewer():
    script = RoleScript(proposer=[program("alpha  # TODO"), program("alpha beta")],
                        reviewer=[ISSUE])
    record, _ = run(H, {"feedback": "scripted_lint+scripted_partial"}, script,
                    roles=("proposer", "reviewer"))
    user = calls(record, "reviewer")[0].messages[1]["content"]
    assert "TODO left in code" in user and "check for 'beta' failed" in user
    purposes = [(o.purpose, o.observation.instrument) for o in record.observations]
    assert ("feedback", "scripted_lint") in purposes


def test_metric_is_the_tasks_whatever_the_channel():
    # The channel (lint) passes, the metric fails: the trial is scored by the metric.
    script = RoleScript(proposer=[program("alpha"), program("alpha")], reviewer=[ISSUE])
    record, _ = run(H, {"feedback": "scripted_lint", "max_iterations": 1}, script,
                    roles=("proposer", "reviewer"))
    assert record.metric.instrument == "scripted_partial"
    assert record.passed is False and record.score == 0.5


def test_keep_best_never_below_single_shot():
    script = RoleScript(proposer=[program("alpha"), program("nothing"), program("zilch")],
                        reviewer=[ISSUE, ISSUE])
    record, arts = run(H, {"max_iterations": 2}, script, roles=("proposer", "reviewer"))
    assert record.extra["iteration_scores"] == [0.5, 0.0, 0.0]
    assert delivered(record, arts) == "alpha\n" and record.score == 0.5
    assert record.extra["final_score"] >= record.extra["single_shot_score"]
    # Each revision starts from the best program so far, not from the worse one.
    assert "```python\nalpha\n```" in calls(record, "proposer")[2].messages[0]["content"]


def test_reviewer_parse_failure_is_counted_and_its_text_still_reaches_the_proposer():
    script = RoleScript(proposer=[program("alpha"), program("alpha beta")],
                        reviewer=["I think beta is missing, add NOTE-MARKER."])
    record, _ = run(H, {}, script, roles=("proposer", "reviewer"))
    assert record.passed and record.extra["review_parse_failures"] == 1
    assert "NOTE-MARKER" in calls(record, "proposer")[1].messages[0]["content"]


def test_budget_exhausted_mid_loop_delivers_best_and_never_overspends():
    # 4 words per proposer reply, 20 per review; total 30 fits draft + one review + part
    # of one revision (capped), then nothing fits.
    review = "x " * 19 + "y"
    script = RoleScript(proposer=lambda m, i: program("alpha") if i.call_number == 0
                        else program("nothing at all here"),
                        reviewer=lambda m, i: review)
    record, arts = run(H, {"max_iterations": 5}, script, budget=BudgetSpec(total=30),
                       roles=("proposer", "reviewer"))
    assert record.status == "budget_exhausted"
    assert charged(record) <= 30
    assert delivered(record, arts) == "alpha\n"
    assert record.extra["single_shot_score"] == 0.5


def test_reviewer_share_caps_reviews():
    script = RoleScript(proposer=lambda m, i: program("alpha"), reviewer=lambda m, i: ISSUE)
    record, _ = run(H, {"max_iterations": 10}, script,
                    budget=BudgetSpec(total=200, shares={"reviewer": 0.1}),
                    roles=("proposer", "reviewer"))
    reviewer_tokens = sum(c.usage.output_tokens for c in calls(record, "reviewer"))
    assert reviewer_tokens <= 20 and record.status == "budget_exhausted"
    assert charged(record) <= 200


def test_execution_share_sets_the_number_of_cycles():
    script = RoleScript(proposer=lambda m, i: program("alpha"), reviewer=lambda m, i: ISSUE)
    record, _ = run(H, {"max_iterations": 10, "cycle_tokens": 100}, script,
                    budget=BudgetSpec(total=1000, shares={"execution": 0.2}),
                    roles=("proposer", "reviewer"))
    assert record.extra["cycles_allowed"] == 2
    assert len(calls(record, "reviewer")) == 2 and record.extra["iterations"] == 2
    assert record.status == "ok"


def test_instrument_failure_of_the_metric_is_an_error_not_a_score():
    script = RoleScript(proposer=[program("alpha")], reviewer=[])
    record, _ = run(H, {}, script, task=code_task(metric="scripted_broken"),
                    roles=("proposer", "reviewer"))
    assert record.status == "error" and record.error_kind == "instrument"
    assert record.passed is None and calls(record, "reviewer") == []


def test_execution_channel_feeds_the_failing_checks_to_the_reviewer():
    """The real execution instrument (unsafe subprocess backend, for tests) as channel
    and metric: the reviewer sees the failing check with its operands."""
    from tether.core.task import Task

    task = Task(id="add", suite="scripted", prompt="Write add(a, b) returning the sum.",
                metric="execution",
                data={"checks": "assert add(1, 2) == 3\nassert add(2, 2) == 4\n",
                      "entry_point": "add"})
    script = RoleScript(proposer=[program("def add(a, b):\n    return a - b"),
                                  program("def add(a, b):\n    return a + b")],
                        reviewer=[ISSUE])
    record, arts = run(H, {"feedback": "execution"}, script, task=task,
                       roles=("proposer", "reviewer"))
    evidence = calls(record, "reviewer")[0].messages[1]["content"]
    assert "add(1, 2) == 3" in evidence and "-1" in evidence
    assert record.passed and record.extra["single_shot_passed"] is False
    assert record.metric.instrument == "execution"


def _critic_or_reviewer(critique: str):
    """Reviewer-role script: critique requests (critique_messages) get `critique`."""
    def answer(messages, info):
        if "without running them" in messages[0]["content"]:
            return critique
        return ISSUE
    return answer


def test_critique_channel_makes_a_budgeted_reviewer_call_whose_defects_reach_the_review():
    critique = '[{"location": "f", "cause": "CRITIC-SAYS beta missing", "change": "add beta"}]'
    script = RoleScript(proposer=[program("alpha"), program("alpha beta")],
                        reviewer=_critic_or_reviewer(critique))
    record, _ = run(H, {"feedback": "critique"}, script, roles=("proposer", "reviewer"))
    critic, review = calls(record, "reviewer")
    assert "without running them" in critic.messages[0]["content"]
    assert "CRITIC-SAYS beta missing" in review.messages[1]["content"]
    assert "add beta" in review.messages[1]["content"]
    # Critique without execution: the failing checks are not shown.
    assert "check for 'beta' failed" not in review.messages[1]["content"]
    assert record.passed


def test_critique_plus_lint_uses_the_real_static_instrument():
    critique = '[{"location": "f", "cause": "CRITIC-SAYS", "change": "x"}]'
    script = RoleScript(proposer=[program("import os\nalpha = 1"), program("alpha beta")],
                        reviewer=_critic_or_reviewer(critique))
    record, _ = run(H, {"feedback": "critique+lint"}, script, roles=("proposer", "reviewer"))
    review = calls(record, "reviewer")[1].messages[1]["content"]
    assert "CRITIC-SAYS" in review and "F401" in review  # ruff: `os` imported but unused
    assert any(o.purpose == "feedback" and o.observation.instrument == "static"
               for o in record.observations)
