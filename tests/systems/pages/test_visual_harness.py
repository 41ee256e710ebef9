"""The visual harness: proposer-reviewer on rendered pages, scored by geometry whatever the channel.

Real Chromium measures every page; the proposer, reviewer and screenshot VLM are
scripted test doubles, so the loop's wiring (what reaches whom) is what is tested.
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from tether.core.budget import BudgetSpec
from tether.core.trial import TrialSpec
from tether.models.base import Message, text_of
from tether.runs.trial_runner import run_trial
from tether.suites import load_suite
from tether.testing import ScriptedModel

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(shutil.which("chromium") is None,
                                 reason="Debian chromium is not installed (scripts/setup.sh)")]

OVERLAPPING = """```html
<html><body style="margin:0">
<div style="position:absolute;left:100px;top:100px;font-size:60px">Quarterly results</div>
<div style="position:absolute;left:120px;top:110px;font-size:60px">Q3 2026 overview</div>
</body></html>
```"""
CLEAN = """```html
<html><body style="margin:0">
<div style="position:absolute;left:100px;top:100px;font-size:60px">Quarterly results</div>
<div style="position:absolute;left:100px;top:300px;font-size:40px">Q3 2026</div>
</body></html>
```"""
REVIEW = json.dumps({"issues": [{"location": "subtitle", "cause": "overlaps the title",
                                 "change": "move the subtitle below the title"}]})


def _has_image(messages: list[Message]) -> bool:
    return any(isinstance(m.get("content"), list)
               and any(p.get("type") == "image_url" for p in m["content"]) for m in messages)


def _run(feedback: str) -> tuple[Any, dict[str, list[list[Message]]]]:
    task = next(t for t in load_suite("visual") if t.id == "slide_title")
    seen: dict[str, list[list[Message]]] = {"proposer": [], "reviewer": [], "vlm": []}

    def proposer(messages: list[Message], info: Any) -> str:
        seen["proposer"].append(messages)
        return OVERLAPPING if len(seen["proposer"]) == 1 else CLEAN

    def reviewer(messages: list[Message], info: Any) -> str:
        if _has_image(messages):
            seen["vlm"].append(messages)
            n = len(task.data["requirements"])
            return json.dumps({"checks": [{"index": i, "met": i != 4, "reason": "overlap"}
                                          for i in range(n)]})
        seen["reviewer"].append(messages)
        return REVIEW

    models = {"proposer": ScriptedModel(proposer), "reviewer": ScriptedModel(reviewer)}
    spec = TrialSpec(suite="visual", task_id=task.id, strategy="proposer_reviewer",
                     strategy_params={"feedback": feedback, "max_iterations": 3},
                     models={"proposer": "p", "reviewer": "r"},
                     budget=BudgetSpec(total=20_000), seed=0)
    record, _ = run_trial(spec, task, model_factory=lambda s: models[
        "proposer" if s == "p" else "reviewer"])
    return record, seen


@pytest.mark.parametrize("feedback", ["geometry", "screenshot_vlm", "none"])
def test_metric_is_geometry_whatever_the_channel(feedback: str) -> None:
    record, seen = _run(feedback)
    assert record.status == "ok", record.error_message
    assert record.metric is not None and record.metric.instrument == "geometry"
    assert record.metric.passed and record.score == 0.0
    assert record.extra["single_shot_score"] > 0  # the draft overlapped: defects counted
    assert len(seen["proposer"]) == 2 and len(seen["reviewer"]) == 1  # early stop on pass
    review_prompt = " ".join(text_of(m) for m in seen["reviewer"][0])
    if feedback == "geometry":
        assert "text_overlap" in review_prompt and "px" in review_prompt
        assert not seen["vlm"]
    elif feedback == "screenshot_vlm":
        assert len(seen["vlm"]) == 1 and "screenshot" in review_prompt
        assert "text_overlap" not in review_prompt
    else:
        assert not seen["vlm"] and "text_overlap" not in review_prompt
    # the reviewer's list reached the proposer's revision
    assert "move the subtitle below the title" in text_of(seen["proposer"][1][-1])


def test_shipped_visual_experiment_compares_the_three_channels() -> None:

    from tether.runs.config import load_experiment
    from tether.runs.expansion import expand
    from tether.runs.shipped import SHIPPED_DIR

    path = SHIPPED_DIR / "visual_harness.toml"
    exp = load_experiment(path)
    channels = {a.arm: a.params.get("feedback") for a in exp.strategies}
    assert channels == {"single_shot": None, "H-geometry": "geometry",
                        "H-screenshot": "screenshot_vlm", "H-none": "none"}
    trials = expand(exp, load_suite("visual"))
    assert len(trials) == 12 * 4
