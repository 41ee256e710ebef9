"""`GenerateKwargs` / `GenerateParams`: one keyword list, one frozen form, same request keys."""

import pytest

from tether.context import TrialContext
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.models.base import GenerateParams, make_params, request_key
from tether.models.scripted import ScriptedModel

TOOL = {"type": "function", "function": {"name": "bash", "description": "d",
                                         "parameters": {"type": "object"}}}
MSG = [{"role": "user", "content": "hi"}]


def test_of_matches_the_positional_form_and_the_defaults():
    assert GenerateParams.of() == GenerateParams()
    kw = GenerateParams.of(max_tokens=64, temperature=0.5, top_p=0.9, seed=3, stop=["x"],
                           thinking_budget=100, tools=[TOOL], tool_choice="bash")
    assert kw == make_params(64, 0.5, 0.9, 3, ["x"], 100, tools=[TOOL], tool_choice="bash")
    assert request_key("m", MSG, kw) == request_key("m", MSG, make_params(
        64, 0.5, 0.9, 3, ["x"], 100, tools=[TOOL], tool_choice="bash"))


def test_as_kwargs_round_trips_and_leaves_unused_tool_keywords_out():
    plain = GenerateParams.of(max_tokens=8, stop=["a", "b"])
    assert plain.as_kwargs() == {"max_tokens": 8, "temperature": 0.0, "top_p": 1.0,
                                 "seed": None, "stop": ["a", "b"], "thinking_budget": None}
    tooled = GenerateParams.of(tools=[TOOL], tool_choice="required")
    assert GenerateParams.of(**tooled.as_kwargs()) == tooled
    assert GenerateParams.of(**plain.as_kwargs()) == plain


def test_bad_keywords_and_values_are_refused():
    with pytest.raises(TypeError, match="temprature"):
        GenerateParams.of(temprature=0.1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="max_tokens"):
        GenerateParams.of(max_tokens=0)
    with pytest.raises(ValueError, match="tool_choice needs tools"):
        GenerateParams.of(tool_choice="bash")


def context() -> TrialContext:
    spec = TrialSpec(suite="t", task_id="x", strategy="single_shot",
                     models={"proposer": "scripted:[]"})
    task = Task(id="x", suite="t", prompt="p", metric="scripted_check")
    return TrialContext(spec, task, {"proposer": ScriptedModel(["a", "b", "c"])})


def test_a_trial_call_takes_params_or_keywords_with_the_same_request():
    by_kw, by_params = context(), context()
    by_kw.generate("proposer", MSG, max_tokens=32, temperature=0.3, stop=["z"])
    by_params.generate("proposer", MSG,
                       params=GenerateParams.of(max_tokens=32, temperature=0.3, stop=["z"]))
    assert by_kw.calls[0].request_hash == by_params.calls[0].request_hash


def test_a_trial_call_keeps_its_own_seed_and_default_max_tokens():
    ctx = context()
    with pytest.raises(TypeError, match="seeds every call"):
        ctx.generate("proposer", MSG, seed=5)
    with pytest.raises(TypeError, match="not both"):
        ctx.generate("proposer", MSG, params=GenerateParams(), max_tokens=3)
    ctx.generate("proposer", MSG)
    expected = GenerateParams.of(max_tokens=1024, seed=0)
    assert ctx.calls[0].request_hash == request_key("scripted", MSG, expected)
