"""The screenshot judge: a real screenshot reaches a (scripted) VLM; its opinion is ungrounded."""

from __future__ import annotations

import base64
import json
import shutil

import pytest

from tests.instruments.bound_generate import bound_env
from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.errors import ConfigError
from tether.instruments.base import InstrumentEnv, build_instrument
from tether.models.base import Message
from tether.models.recording import CallRecord
from tether.runs.standalone_generate import recorded_generate
from tether.systems.pages.screenshot_judge import ScreenshotJudge, parse_judgement
from tether.testing import ScriptedModel

pytestmark = pytest.mark.browser

TASK = Task(id="slide", suite="t", prompt="A slide titled Hello", artifact_kind="html",
            metric="geometry", data={"modality": "slide",
                                     "requirements": ["Title reads Hello", "Two columns"]})
HTML = "<html><body><h1>Hello</h1></body></html>"


def test_real_screenshot_reaches_the_judge_and_the_reply_scores() -> None:
    if not shutil.which("chromium"):
        pytest.skip("Debian chromium is not installed (scripts/setup.sh installs it)")
    seen: list[list[Message]] = []

    def vlm(messages: list[Message], info: object) -> str:
        seen.append(messages)
        return json.dumps({"checks": [{"index": 0, "met": True, "reason": "title ok"},
                                      {"index": 1, "met": False, "reason": "one column"}]})

    judge = ScreenshotJudge()
    log: list[CallRecord] = []
    obs = judge.observe(Artifact(kind="html", text=HTML), TASK,
                        bound_env(ScriptedModel(vlm, model_id="scripted-vlm"), log,
                                  role="metric"))
    assert [(c.role, c.model_id) for c in log] == [("metric", "scripted-vlm")]
    assert obs.grounded is False and obs.error is None
    assert obs.score == 0.5 and obs.passed is False
    assert [d.location for d in obs.defects] == ["requirement 1"]
    image = seen[0][1]["content"][1]["image_url"]["url"]
    png = base64.b64decode(image.split(",", 1)[1])
    assert png.startswith(b"\x89PNG") and len(png) > 1000
    assert "1. Two columns" in seen[0][1]["content"][0]["text"]


def test_unreadable_reply_is_an_error_not_a_score() -> None:
    if not shutil.which("chromium"):
        pytest.skip("Debian chromium is not installed (scripts/setup.sh installs it)")
    judge = build_instrument('screenshot_judge;model=scripted:["looks great to me"]')
    log: list[CallRecord] = []
    obs = judge.observe(Artifact(kind="html", text=HTML), TASK,
                        InstrumentEnv(generate=recorded_generate(log, role="metric")))
    assert len(log) == 1  # the unreadable reply's call is recorded all the same
    assert obs.error and obs.score is None and obs.passed is None


def test_parse_judgement_requires_every_requirement() -> None:
    ok = parse_judgement('<think>hm</think> {"checks": [{"met": true}, {"met": false}]}', 2)
    assert [c["met"] for c in ok] == [True, False]
    with pytest.raises(ValueError, match=r"requirement\(s\) \[1\]"):
        parse_judgement('{"checks": [{"index": 0, "met": true}]}', 2)
    with pytest.raises(ValueError):
        parse_judgement("no json here", 1)


def test_parse_judgement_reads_the_object_despite_braces_after_it() -> None:
    # the shared reply reader decodes from the object's start; a first-{ to last-} match
    # used to fail on the closing remark's braces and turn a clear answer into an error
    text = '{"checks": [{"met": true}]} (format: {index, met})'
    assert [c["met"] for c in parse_judgement(text, 1)] == [True]


def test_judge_without_a_model_cannot_score_outside_a_trial() -> None:
    if not shutil.which("chromium"):
        pytest.skip("Debian chromium is not installed (scripts/setup.sh installs it)")
    judge = build_instrument("screenshot_judge")  # inside a trial the role's model serves it
    log: list[CallRecord] = []
    env = InstrumentEnv(generate=recorded_generate(log, role="metric"))
    with pytest.raises(ConfigError, match="needs its model named"):
        judge.observe(Artifact(kind="html", text=HTML), TASK, env)
    assert log == []
    with pytest.raises(ConfigError, match=r"parameter model: expected str \| None \(got 3\)"):
        build_instrument("screenshot_judge;model=3")
