"""The critique instrument: a model's opinion, parsed leniently, marked ungrounded."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.errors import ConfigError
from tether.instruments.base import INSTRUMENTS, InstrumentEnv, build_instrument
from tether.instruments.critique import CritiqueInstrument, critique_messages, parse_critique
from tether.models.recording import CallRecord
from tether.models.registry import parse_model
from tether.runs.standalone_generate import recorded_generate
from tether.testing.scripted_models import ScriptedModel

from .bound_generate import bound_env

TASK = Task(id="t", suite="test", prompt="Write add(a, b).", metric="execution",
            data={"checks": "assert add(1, 2) == 3  # HIDDEN"})


def test_messages_carry_prompt_and_program_but_not_hidden_checks():
    messages = critique_messages(TASK, "def add(a, b):\n    return a - b\n")
    text = "\n".join(m["content"] for m in messages)
    assert "Write add(a, b)." in text and "return a - b" in text
    assert "HIDDEN" not in text


def test_parse_json_list_in_prose_and_fences():
    reply = ('Sure.\n```json\n[{"location": "line 2", "cause": "subtracts", '
             '"change": "use +"}]\n```')
    (d,) = parse_critique(reply)
    assert (d.kind, d.location, d.message, d.evidence["change"]) == (
        "critique", "line 2", "subtracts", "use +")
    assert parse_critique("[]") == []
    wrapped = parse_critique('{"issues": [{"issue": "a"}, {"issue": "b"}]}')
    assert [d.message for d in wrapped] == ["a", "b"]


def test_unparseable_reply_is_one_defect_not_an_error():
    (d,) = parse_critique("The function subtracts instead of adding.")
    assert d.message.startswith("The function subtracts") and d.evidence["unparsed"]


def test_observe_with_a_named_model_is_ungrounded_and_every_call_is_recorded():
    reply = '[{"location": "add", "cause": "wrong operator", "change": "a + b"}]'
    inst = build_instrument(f"critique;model=scripted:{json.dumps([reply])}")
    log: list[CallRecord] = []
    env = InstrumentEnv(sandbox="subprocess", generate=recorded_generate(log, role="metric"))
    obs = inst.observe(Artifact(kind="program", text="def add(a, b): return a - b"), TASK, env)
    assert obs.grounded is False and obs.passed is False and obs.score is None
    assert obs.defects[0].message == "wrong operator"
    assert [(c.role, c.output) for c in log] == [("metric", reply)]


def test_the_instrument_owns_no_model_and_needs_a_bound_generate():
    inst = build_instrument("critique")  # the role's model serves it inside a trial
    log: list[CallRecord] = []
    obs = inst.observe(Artifact(kind="program", text="x = 1"), TASK,
                       bound_env(parse_model('scripted:["[]"]'), log))
    assert obs.passed is True and obs.defects == [] and len(log) == 1
    with pytest.raises(ConfigError, match="no budgeted generate"):
        inst.observe(Artifact(kind="program", text="x = 1"), TASK, InstrumentEnv())
    with pytest.raises(ValidationError, match="model"):  # a model object: refused
        CritiqueInstrument.Params(model=parse_model('scripted:["[]"]'))
    with pytest.raises(ConfigError, match="parameter model: expected str | None"):
        INSTRUMENTS.check("critique", {"model": 3})


def test_pages_get_the_page_reviewers_prompt_and_programs_keep_theirs():
    page = critique_messages(TASK, "<div>slide</div>", "html")
    assert "HTML/CSS pages" in page[0]["content"] and "```html\n<div>slide</div>" in \
        page[1]["content"]
    assert "Python" not in page[0]["content"]
    program = critique_messages(TASK, "x = 1")
    assert program == critique_messages(TASK, "x = 1", "program")
    assert "Python programs" in program[0]["content"]


def test_observe_sends_an_html_artifact_with_the_page_prompt():
    seen = []

    def script(messages, info):
        seen.append(messages)
        return "[]"

    inst = CritiqueInstrument()
    obs = inst.observe(Artifact(kind="html", text="<p>hi</p>"), TASK,
                       bound_env(ScriptedModel(script)))
    assert obs.passed and "HTML/CSS pages" in seen[0][0]["content"]
