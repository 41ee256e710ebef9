"""self_loop (L): one growing conversation, revised from the channel's feedback."""

from __future__ import annotations

from tests.strategies.trial_helpers import RoleScript, calls, charged, delivered, program, run
from tether.core.budget import BudgetSpec

L = "self_loop"


def test_conversation_grows_with_replies_and_feedback():
    script = RoleScript(proposer=[program("one"), program("alpha"), program("alpha beta")])
    record, arts = run(L, {"feedback": "scripted_partial"}, script)
    assert record.passed and delivered(record, arts) == "alpha beta\n"
    first, second, third = calls(record, "proposer")
    assert [m["role"] for m in third.messages] == ["user", "assistant", "user",
                                                    "assistant", "user"]
    # The model's own replies and the feedback on the latest attempt are in the context.
    assert third.messages[1]["content"] == first.output
    assert third.messages[3]["content"] == second.output
    assert "check for 'alpha' failed" in second.messages[2]["content"]
    assert "check for 'beta' failed" in third.messages[4]["content"]
    assert "check for 'alpha' failed" not in third.messages[4]["content"]
    assert record.extra["iteration_scores"] == [0.0, 0.5, 1.0]
    assert record.extra["iterations"] == 2


def test_already_passing_draft_makes_one_call():
    record, _ = run(L, {}, RoleScript(proposer=[program("alpha beta")]))
    assert len(record.calls) == 1 and record.extra["iterations"] == 0 and record.passed


def test_keep_best_and_iteration_cap():
    script = RoleScript(proposer=[program("alpha"), program("no"), program("none")])
    record, arts = run(L, {"max_iterations": 2, "feedback": "scripted_partial"}, script)
    assert len(record.calls) == 3
    assert delivered(record, arts) == "alpha\n"
    assert record.extra["single_shot_score"] == 0.5 and record.extra["final_score"] == 0.5
    assert record.extra["best_iteration"] == 0


def test_default_channel_without_details_still_asks_for_a_revision():
    # The default channel is `execution`; here the metric is a test double, so use `none`.
    script = RoleScript(proposer=[program("alpha"), program("alpha beta")])
    record, _ = run(L, {"feedback": "none"}, script)
    assert "does not meet the task's requirements" in calls(record, "proposer")[1].messages[2][
        "content"]
    assert record.passed


def test_truncated_revision_is_skipped_and_the_loop_goes_on():
    script = RoleScript(proposer=[program("alpha"), "```python\nalpha beta",
                                  program("alpha beta")])
    record, _ = run(L, {"feedback": "scripted_partial"}, script)
    assert record.passed and record.status == "ok"
    assert [h["status"] for h in record.extra["iteration_history"]] == ["ok", "truncated", "ok"]
    assert "cut off" in calls(record, "proposer")[2].messages[-1]["content"]


def test_budget_is_a_hard_cap_and_best_is_delivered():
    script = RoleScript(proposer=lambda m, i: program("alpha" if i.call_number == 0 else "x y"))
    record, arts = run(L, {"max_iterations": 50, "feedback": "scripted_partial"}, script,
                       budget=BudgetSpec(total=40))
    assert record.status == "budget_exhausted" and charged(record) <= 40
    assert delivered(record, arts) == "alpha\n"


def test_conversation_outgrowing_the_context_ends_the_loop_with_the_best():
    from tether.models.errors import ContextLengthExceeded

    def script(messages, info):
        if len(messages) > 3:
            raise ContextLengthExceeded("scripted: prompt exceeds the context window")
        return program("alpha" if info.call_number == 0 else "x")

    record, arts = run(L, {"max_iterations": 5, "feedback": "scripted_partial"}, script)
    assert record.status == "ok" and record.extra["stop_reason"] == "context_length"
    assert delivered(record, arts) == "alpha\n" and record.extra["iterations"] == 1


def test_a_draft_that_does_not_fit_the_context_is_an_error():
    from tether.models.errors import ContextLengthExceeded

    def script(messages, info):
        raise ContextLengthExceeded("scripted: prompt exceeds the context window")

    record, _ = run(L, {}, script)
    assert record.status == "error" and record.error_kind == "ContextLengthExceeded"
