"""Feedback channels: parsing, formatting and the execution-share cycle rule."""

from __future__ import annotations

import pytest

from tether.core.budget import BudgetSpec
from tether.core.observation import Defect, Observation
from tether.strategies.feedback import (
    Channel,
    FeedbackReport,
    feedback_cycles,
    format_observation,
    parse_channel,
)


@pytest.mark.parametrize("value, expected", [
    ("none", Channel("none")),
    ("critique", Channel("critique", ("critique",))),
    ("critique+lint", Channel("critique+lint", ("critique", "static"))),
    ("critique+execution", Channel("critique+execution", ("critique", "execution"))),
    ("critique+execution;checks=visible",
     Channel("critique+execution;checks=visible", ("critique", "execution;checks=visible"))),
    ("execution", Channel("execution", ("execution",))),
    (["critique", "geometry"], Channel("critique+geometry", ("critique", "geometry"))),
    ("critique;model=scripted:[]", Channel("critique;model=scripted:[]",
                                           ("critique;model=scripted:[]",))),
    ("screenshot_vlm", Channel("screenshot_vlm", ("screenshot_judge",))),
])
def test_parse_channel(value, expected):
    assert parse_channel(value) == expected
    assert parse_channel("none").empty


def test_format_observation_shows_expected_and_actual_and_never_hides_errors():
    obs = Observation(instrument="execution", version="1", grounded=True, score=0.5,
                      passed=False, defects=[Defect(kind="assert", message="assert f(2) == 4",
                                                    location="check 3",
                                                    evidence={"expected": 4, "actual": 5})])
    text = format_observation(obs)
    assert "score 0.50" in text and "check 3" in text and "expected 4, got 5" in text
    said = obs.model_copy(update={"defects": [Defect(kind="a", message="left is 5, right 4",
                                                      evidence={"expected": 4, "actual": 5})]})
    assert "got 5" not in format_observation(said)  # not said twice
    broken = Observation(instrument="execution", version="1", grounded=True, error="sandbox down")
    assert "could not run: sandbox down" in format_observation(broken)


def test_report_text_is_capped():
    obs = Observation(instrument="x", version="1", grounded=True, passed=False, score=0.0,
                      defects=[Defect(kind="k", message="m" * 100)] * 100)
    text = FeedbackReport(channel="x", observations=[obs]).text(max_chars=500)
    assert len(text) < 600 and "cut at 500" in text


@pytest.mark.parametrize("shares, total, expected", [
    ({}, 10_000, 3),                      # no execution share: max_iterations
    ({"execution": 0.1}, None, 3),        # unlimited budget: max_iterations
    ({"execution": 0.1}, 10_000, 2),      # 1000 / 500
    ({"execution": 0.8}, 10_000, 3),      # 16, capped by max_iterations
    ({"execution": 0.01}, 10_000, 1),     # at least one cycle
])
def test_feedback_cycles(shares, total, expected):
    budget = BudgetSpec(total=total, shares=shares)
    assert feedback_cycles(budget, max_iterations=3, cycle_tokens=500) == expected
