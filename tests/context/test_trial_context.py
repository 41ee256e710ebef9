"""The trial context: every model call a trial makes, instruments' included, is charged
before it is made and recorded (invariant 2); a model-backed metric is recorded under
its own `metric` owner and never charged to the strategy's budget."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.strategies.trial_helpers import RoleScript, code_task, program
from tether.core.budget import BudgetSpec
from tether.core.trial import TrialRecord, TrialSpec
from tether.instruments.base import InstrumentEnv
from tether.runs.trial_runner import run_trial
from tether.suites import load_suite
from tether.testing import ScriptedModel

LONG_CRITIQUE = json.dumps([{"location": "f", "cause": "beta is missing " * 30,
                             "change": "return beta too"}])


def charged(record: TrialRecord, *, metric: bool = False) -> int:
    return sum(c.usage.output_tokens + c.usage.reasoning_tokens for c in record.calls
               if (c.role == "metric") == metric)


def spent(record: TrialRecord) -> int:
    return sum(u.output_tokens + u.reasoning_tokens for u in record.spend.values())


@pytest.mark.parametrize("total", [40, 80, 200, 2_000])
def test_critique_with_its_own_model_is_charged_and_recorded_under_a_small_budget(total):
    # H's own review call (role reviewer) is served by the proposer's double too
    proposer = ScriptedModel(RoleScript(proposer=[program("alpha")] * 10,
                                        reviewer=['{"issues": []}'] * 10),
                             model_id="scripted-proposer")
    feedback = f"critique;model=scripted:{json.dumps([LONG_CRITIQUE] * 10)}"
    spec = TrialSpec(suite="scripted", task_id="t1", strategy="proposer_reviewer",
                     strategy_params={"feedback": feedback, "max_iterations": 3},
                     models={"proposer": "p"}, budget=BudgetSpec(total=total), seed=0)
    record, _ = run_trial(spec, code_task(), model_factory=lambda _s: proposer,
                          env=InstrumentEnv(sandbox="subprocess"))
    assert record.status in ("ok", "budget_exhausted"), record.error_message
    critiques = [c for c in record.calls if c.model_id != "scripted-proposer"]
    assert critiques, "the critique instrument's calls are in the trial's record"
    assert {c.role for c in critiques} == {"reviewer"}
    # the ledger's total is exactly the recorded calls, and never past B
    assert spent(record) == charged(record) <= total
    assert record.spend["reviewer"].output_tokens == sum(
        c.usage.output_tokens for c in record.calls if c.role == "reviewer")


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="Debian chromium is not installed (scripts/setup.sh)")
@pytest.mark.parametrize("total", [60, 20_000])
def test_screenshot_judge_as_feedback_is_charged_and_as_metric_is_recorded_not_charged(total):
    task = next(t for t in load_suite("visual") if t.id == "slide_title")
    n = len(task.data["requirements"])
    verdict = json.dumps({"checks": [{"index": i, "met": i != 0, "reason": "r " * 20}
                                     for i in range(n)]})
    page = ("```html\n<html><body><h1>Quarterly results</h1>"
            "<p>Q3 2026 overview of the quarter</p></body></html>\n```")
    proposer = ScriptedModel(RoleScript(proposer=[page] * 10, reviewer=['{"issues": []}'] * 10),
                             model_id="scripted-proposer")
    judge = f"screenshot_judge;model=scripted:{json.dumps([verdict] * 10)}"
    spec = TrialSpec(suite="visual", task_id=task.id, strategy="proposer_reviewer",
                     strategy_params={"feedback": judge, "max_iterations": 2},
                     models={"proposer": "p"}, budget=BudgetSpec(total=total), seed=0)
    scored_by_judge = task.model_copy(update={"metric": judge})
    record, _ = run_trial(spec, scored_by_judge, model_factory=lambda _s: proposer)
    assert record.status in ("ok", "budget_exhausted"), record.error_message
    assert record.metric is not None and record.metric.instrument == "screenshot_judge"
    metric_calls = [c for c in record.calls if c.role == "metric"]
    assert len(metric_calls) == 1  # the delivered page, scored once
    assert "metric" not in record.spend  # recorded, never charged to B
    assert spent(record) == charged(record) <= total
    if total > 1_000:  # room for the judge as feedback: its calls are the reviewer's
        assert [c.role for c in record.calls if c.model_id != "scripted-proposer"
                and c.role != "metric"] == ["reviewer"] * 2


def test_a_model_backed_metric_must_name_its_model():
    task = code_task(metric="critique")
    proposer = ScriptedModel(RoleScript(proposer=[program("alpha")]), model_id="p")
    spec = TrialSpec(suite="scripted", task_id="t1", strategy="single_shot",
                     models={"proposer": "p"}, seed=0)
    record, _ = run_trial(spec, task, model_factory=lambda _s: proposer,
                          env=InstrumentEnv(sandbox="subprocess"))
    assert record.status == "error" and "needs its own model" in (record.error_message or "")
    assert [c.role for c in record.calls] == ["proposer"]
