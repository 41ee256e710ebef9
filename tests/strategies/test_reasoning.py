"""reasoning (R): native thinking when the backend has it, a think-then-answer prompt otherwise."""

from __future__ import annotations

import pytest

from tests.strategies.trial_helpers import charged, code_task, delivered, program, run
from tether.core.budget import BudgetSpec
from tether.errors import ConfigError
from tether.models.base import Completion, GenerateParams, Usage
from tether.strategies import build_strategy
from tether.strategies.reasoning import supports_native_thinking
from tether.testing.scripted_models import ScriptedModel


class ScriptedThinkingModel(ScriptedModel):
    """Test double of a reasoning backend: thinks `thinking_budget` words, then answers."""

    reasoning = True

    def __init__(self, answer: str) -> None:
        super().__init__(lambda m, i: answer, model_id="scripted-thinking")
        self.answer = answer
        self.seen: list[GenerateParams] = []

    def _sample(self, messages, params, index):
        self.seen.append(params)
        thought = params.thinking_budget or 0
        words = self.answer.split()[: params.max_tokens]
        return Completion(text=self.answer, reasoning="hmm " * thought, finish_reason="stop",
                          usage=Usage(10, len(words), thought), sample_index=index)


def test_prompt_mode_for_models_without_native_thinking():
    reply = "<think>" + "step " * 40 + "</think>\n" + program("alpha beta")
    record, arts = run("reasoning", {}, lambda m, i: reply, budget=BudgetSpec(total=1000))
    assert record.extra["mode"] == "prompt" and record.passed
    assert delivered(record, arts) == "alpha beta\n"  # the thinking is not the program
    assert "<think>" in record.calls[0].messages[-1]["content"]
    # The thinking is output: it is charged (40 words of it plus the answer).
    assert record.calls[0].usage.output_tokens == len(reply.split())


def test_prompt_mode_call_is_capped_by_the_budget():
    seen = []

    def script(messages, info):
        seen.append(info.params.max_tokens)
        return program("alpha beta")

    record, _ = run("reasoning", {"thinking_budget": 5000}, script,
                    budget=BudgetSpec(total=300))
    assert seen == [300] and charged(record) <= 300


def test_native_mode_maps_thinking_within_the_budget():
    model = ScriptedThinkingModel(program("alpha beta"))
    record, _ = run("reasoning", {"max_tokens": 100, "min_thinking": 500}, None, model=model,
                    budget=BudgetSpec(total=1000))
    assert record.extra["mode"] == "native" and record.passed
    (params,) = model.seen
    # The backend asks the provider for max_tokens + thinking_budget: that sum fits.
    assert params.thinking_budget == 900 and params.max_tokens == 100
    assert charged(record) <= 1000
    assert "<think>" not in record.calls[0].messages[-1]["content"]


def test_native_thinking_below_the_minimum_is_not_requested():
    model = ScriptedThinkingModel(program("alpha beta"))
    record, _ = run("reasoning", {"max_tokens": 1024}, None, model=model,
                    budget=BudgetSpec(total=1000))
    (params,) = model.seen
    assert params.thinking_budget is None and params.max_tokens == 1000
    assert record.extra["thinking_budget"] == 0


def test_input_output_budget_leaves_room_for_the_prompt():
    model = ScriptedThinkingModel(program("alpha beta"))
    record, _ = run("reasoning", {"max_tokens": 100, "min_thinking": 1}, None, model=model,
                    budget=BudgetSpec(total=1000, count="input+output"))
    (params,) = model.seen
    assert params.max_tokens >= 50  # the answer is not starved by thinking
    assert record.tokens("input") + charged(record) <= 1000


def test_native_mode_without_a_finite_budget_uses_the_thinking_budget():
    model = ScriptedThinkingModel(program("alpha beta"))
    run("reasoning", {"thinking_budget": 2000, "max_tokens": 500}, None, model=model)
    assert model.seen[0].thinking_budget == 2000 and model.seen[0].max_tokens == 500


def test_auto_detects_native_thinking_through_wrappers():
    class Wrapper:
        def __init__(self, inner):
            self.inner = inner

    assert supports_native_thinking(Wrapper(ScriptedThinkingModel("x")))
    assert not supports_native_thinking(Wrapper(ScriptedModel(["x"])))


def test_nothing_left_in_the_budget_is_budget_exhausted():
    record, _ = run("reasoning", {"mode": "prompt"}, lambda m, i: program("alpha"),
                    budget=BudgetSpec(total=10, shares={"proposer": 0.05}))
    assert record.status == "budget_exhausted" and record.calls == []


def test_bad_mode_is_a_config_error():
    with pytest.raises(ConfigError):
        build_strategy("reasoning", {"mode": "deep"})


def test_truncated_reply_is_the_truncated_outcome():
    record, _ = run("reasoning", {"mode": "prompt"}, lambda m, i: "<think>" + "x " * 50,
                    task=code_task(), budget=BudgetSpec(total=20))
    assert record.status == "truncated"
