"""`GenerateKwargs` / `GenerateParams`: one keyword list, one frozen form, same request keys."""

import pytest

from tether.context import TrialContext
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.models.base import DEFAULT_PARAMS, GenerateParams, make_params, request_key
from tether.testing.scripted_models import ScriptedModel

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


class _Spy:
    """A model double that keeps the params objects it was given."""

    model_id = "spy"

    def __init__(self) -> None:
        self.seen: list[GenerateParams] = []

    def generate(self, messages, params=DEFAULT_PARAMS, *, n=1, role=None):
        self.seen.append(params)
        return ScriptedModel(["ok"] * n, supports_tools=True).generate(messages, params, n=n,
                                                                      role=role)


def test_the_params_object_passes_through_every_wrapper_unchanged(tmp_path):
    from tether.models.cache import CachedModel, ResponseStore
    from tether.models.recording import RecordingModel

    spy, log = _Spy(), []
    params = GenerateParams.of(max_tokens=8, stop=["a"], tools=[TOOL], tool_choice="bash")
    wrapped = RecordingModel(CachedModel(spy, ResponseStore(tmp_path / "c.sqlite"), "off"),
                             log, role="proposer")
    wrapped.generate(MSG, params)
    assert spy.seen == [params] and spy.seen[0] is params
    assert log[0].request_hash == request_key("spy", MSG, params)


def test_params_built_directly_are_checked_as_those_built_from_keywords():
    with pytest.raises(ValueError, match="max_tokens"):
        GenerateParams(max_tokens=0)
    with pytest.raises(ValueError, match="tool_choice needs tools"):
        GenerateParams(tool_choice="bash")


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
