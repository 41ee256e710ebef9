"""iad: K candidates per iteration ranked by the metric's partial score, the best revised."""

from __future__ import annotations

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

TASK = code_task(("a1", "b2", "c3"))


def test_candidates_are_ranked_and_the_best_is_revised():
    script = RoleScript(proposer=[
        program("nothing"),                                       # draft: 0
        program("a1"), program("a1 b2"), program("zero"),         # iteration 1
        program("a1 b2 c3"), program("a1"), program("b2"),        # iteration 2
    ])
    record, arts = run("iad", {"k": 3, "feedback": "scripted_partial"}, script, task=TASK)
    assert record.passed and delivered(record, arts) == "a1 b2 c3\n"
    first, second = record.extra["rankings"]
    assert first["order"] == [1, 0, 2] and first["scores"][1] > first["scores"][0]
    # The second iteration revises the best candidate of the first (a1 b2) from its failures.
    revise = calls(record, "proposer")[4].messages[-1]["content"]
    assert "```python\na1 b2\n```" in revise and "check for 'c3' failed" in revise
    assert record.extra["iterations"] == 2
    # One request per iteration with n=k: the k candidates are its samples 0..k-1.
    assert [c.sample_index for c in calls(record, "proposer")] == [0, 0, 1, 2, 0, 1, 2]


def test_stops_as_soon_as_a_candidate_passes():
    script = RoleScript(proposer=[program("a1"), program("a1 b2 c3"), program("x"),
                                  program("y")])
    record, _ = run("iad", {"k": 3, "max_iterations": 5, "feedback": "scripted_partial"},
                    script, task=TASK)
    assert record.passed and len(record.calls) == 4 and record.extra["iterations"] == 1


def test_keep_best_when_all_candidates_are_worse():
    script = RoleScript(proposer=[program("a1 b2")] + [program("zero")] * 6)
    record, arts = run("iad", {"k": 3, "max_iterations": 2}, script, task=TASK)
    assert delivered(record, arts) == "a1 b2\n"
    assert record.extra["final_score"] == record.extra["single_shot_score"]


def test_budget_cap_holds():
    script = RoleScript(proposer=lambda m, i: program("a1"))
    record, arts = run("iad", {"k": 3, "max_iterations": 20}, script, task=TASK,
                       budget=BudgetSpec(total=50))
    assert record.status == "budget_exhausted" and charged(record) <= 50
    assert delivered(record, arts) == "a1\n"
