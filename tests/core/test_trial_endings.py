"""A terminal-agent trial's verdict follows its ending (the turn-level best-of-N paper's
rule): only an attempt that submitted can pass; the verifier's observation stays."""

from __future__ import annotations

import pytest

from tests.report.conftest import make_record
from tether.core import AgentEndState


@pytest.mark.parametrize("ending, passed, score", [
    ("pass", True, 1.0), ("wrong_submission", False, 0.0), ("time_limit", False, 0.0),
    ("out_of_context", False, 0.0), ("format_error", False, 0.0),
])
def test_the_verdict_follows_the_ending_when_the_verifier_passes_the_state(ending, passed,
                                                                          score):
    record = make_record(0, "t", 0, "agent", None, passed=ending != "wrong_submission",
                         extra={"end_state": ending})
    assert (record.passed, record.score) == (passed, score)
    assert record.stopped_by_harness is AgentEndState(ending).stopped
    if ending != "wrong_submission":
        assert record.metric is not None and record.metric.passed is True  # kept as seen


def test_trials_without_an_agent_ending_keep_the_metrics_verdict():
    plain = make_record(0, "t", 0, "single_shot", None, passed=True)
    odd = make_record(1, "t", 0, "agent", None, passed=True, extra={"end_state": "paused"})
    assert (plain.passed, odd.passed) == (True, True) and not odd.stopped_by_harness
    errored = make_record(2, "t", 0, "agent", None, status="error",
                          extra={"end_state": "agent_error"})
    assert errored.passed is None and errored.score is None
