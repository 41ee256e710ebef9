"""The trial contract: budgeted, seeded, recorded calls; recorded observations; cached metric."""

from __future__ import annotations

import pytest

from tether.context import TrialContext
from tether.core.artifact import Artifact
from tether.core.budget import BudgetExhausted, BudgetSpec
from tether.core.observation import Observation
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.errors import ConfigError
from tether.instruments.base import register_instrument
from tether.models.base import sample_seed
from tether.strategies.base import build_strategy, declared_roles, strategy_names, strategy_roles
from tether.testing.scripted_models import CallInfo, ScriptedModel

TASK = Task(id="t", suite="s", prompt="Say alpha", metric="scripted_counting_check",
            artifact_kind="text", data={"expect": "alpha"})
MESSAGES = [{"role": "user", "content": "Say alpha"}]


@register_instrument("scripted_counting_check")
class ScriptedCountingCheck:
    """Test double: passes on 'alpha' and counts how often it observed anything."""

    name = "scripted_counting_check"
    version = "1"
    grounded = True
    observed = 0

    def observe(self, artifact, task, env) -> Observation:
        type(self).observed += 1
        ok = "alpha" in artifact.text
        return Observation(instrument=self.name, version=self.version, grounded=True,
                           score=float(ok), passed=ok)


def spec(seed: int = 0, total: int | None = None, count: str = "output",
         shares: dict | None = None) -> TrialSpec:
    return TrialSpec(suite="s", task_id="t", strategy="single_shot",
                     models={"proposer": "scripted"},
                     budget=BudgetSpec(total=total, count=count, shares=shares or {}),
                     seed=seed)


def seed_recorder() -> tuple[ScriptedModel, list[int]]:
    seeds: list[int] = []

    def answer(messages, info: CallInfo) -> str:
        seeds.append(sample_seed(info.params.seed, info.sample_index))  # what a backend uses
        return "one two three four five six seven eight"  # 8 words = 8 scripted tokens

    return ScriptedModel(answer), seeds


def test_budget_is_never_exceeded_and_exhaustion_raises() -> None:
    model, _ = seed_recorder()
    ctx = TrialContext(spec(total=20), TASK, {"proposer": model})
    ctx.generate("proposer", MESSAGES, max_tokens=8)
    ctx.generate("proposer", MESSAGES, max_tokens=8)
    (last,) = ctx.generate("proposer", MESSAGES, max_tokens=8)  # lowered to fit: 4 left
    assert last.finish_reason == "length" and last.usage.output_tokens == 4
    assert ctx.ledger.charged() == 20 and ctx.ledger.remaining() == 0
    with pytest.raises(BudgetExhausted):
        ctx.generate("proposer", MESSAGES, max_tokens=8)
    assert ctx.ledger.exhausted and ctx.ledger.charged() == 20
    assert len(ctx.calls) == 3  # the refused call never reached the model


def test_n_samples_share_the_budget_and_shares_cap_a_role() -> None:
    model, _ = seed_recorder()
    ctx = TrialContext(spec(total=40, shares={"reviewer": 0.25}), TASK, {"proposer": model})
    outs = ctx.generate("proposer", MESSAGES, max_tokens=8, n=3)
    assert len(outs) == 3 and ctx.ledger.charged("proposer") == 24
    (rev,) = ctx.generate("reviewer", MESSAGES, max_tokens=8)
    assert rev.usage.output_tokens == 8
    (rev,) = ctx.generate("reviewer", MESSAGES, max_tokens=8)  # 10 of the 40 are the reviewer's
    assert rev.usage.output_tokens == 2
    with pytest.raises(BudgetExhausted):
        ctx.generate("reviewer", MESSAGES, max_tokens=8)
    assert ctx.ledger.charged() <= 40


def test_input_tokens_count_when_configured() -> None:
    model, _ = seed_recorder()
    long = [{"role": "user", "content": "word " * 200}]
    ctx = TrialContext(spec(total=50, count="input+output"), TASK, {"proposer": model})
    with pytest.raises(BudgetExhausted):  # the prompt alone is estimated above the cap
        ctx.generate("proposer", long, max_tokens=8)
    assert ctx.calls == []


def test_seeds_distinct_per_call_and_sample_and_reproducible() -> None:
    model, seeds = seed_recorder()
    ctx = TrialContext(spec(seed=3), TASK, {"proposer": model})
    ctx.generate("proposer", MESSAGES, n=3)
    ctx.generate("proposer", MESSAGES, n=2)
    assert len(set(seeds)) == 5
    again_model, again = seed_recorder()
    ctx2 = TrialContext(spec(seed=3), TASK, {"proposer": again_model})
    ctx2.generate("proposer", MESSAGES, n=3)
    ctx2.generate("proposer", MESSAGES, n=2)
    assert again == seeds
    assert [c.request_hash for c in ctx2.calls] == [c.request_hash for c in ctx.calls]
    other_model, other = seed_recorder()
    TrialContext(spec(seed=4), TASK, {"proposer": other_model}).generate("proposer", MESSAGES,
                                                                          n=3)
    assert not set(other) & set(seeds)
    assert len({c.request_hash for c in ctx.calls}) == 5  # five distinct samples, five keys


def test_rng_is_seeded_by_the_trial() -> None:
    model, _ = seed_recorder()
    a = TrialContext(spec(seed=9), TASK, {"proposer": model}).rng.random()
    b = TrialContext(spec(seed=9), TASK, {"proposer": model}).rng.random()
    c = TrialContext(spec(seed=10), TASK, {"proposer": model}).rng.random()
    assert a == b != c


def test_calls_record_role_usage_and_output_and_roles_fall_back() -> None:
    proposer = ScriptedModel(["p-answer"], model_id="scripted-p")
    ctx = TrialContext(spec(), TASK, {"proposer": proposer})
    assert ctx.model("reviewer") is proposer
    ctx.generate("reviewer", MESSAGES)
    (call,) = ctx.calls
    assert call.role == "reviewer" and call.model_id == "scripted-p"
    assert call.output == "p-answer" and call.usage.output_tokens == 1
    assert call.messages == MESSAGES
    assert ctx.ledger.spent["reviewer"].output_tokens == 1


def test_missing_proposer_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="no proposer"):
        TrialContext(spec(), TASK, {"reviewer": ScriptedModel(["x"])})


def test_observations_recorded_and_metric_cached_per_artifact() -> None:
    ScriptedCountingCheck.observed = 0
    ctx = TrialContext(spec(), TASK, {"proposer": ScriptedModel(["x"])})
    good, bad = Artifact(kind="text", text="alpha"), Artifact(kind="text", text="beta")
    assert ctx.metric(good).passed and ctx.metric(good).passed
    assert not ctx.metric(bad).passed
    assert ScriptedCountingCheck.observed == 2  # the repeated artifact was not observed again
    fb = ctx.observe("scripted_check", bad, purpose="feedback")
    assert fb.passed is False
    assert [(o.purpose, o.artifact) for o in ctx.observations] == [
        ("metric", good.digest), ("metric", bad.digest), ("feedback", bad.digest)]
    assert set(ctx.artifacts) == {good.digest, bad.digest}


def test_instrument_failure_is_an_error_observation_not_a_score() -> None:
    ctx = TrialContext(spec(), TASK, {"proposer": ScriptedModel(["x"])})
    obs = ctx.observe("scripted_check;fail_with=boom", Artifact(kind="text", text="alpha"))
    assert obs.error and "boom" in obs.error
    assert obs.score is None and obs.passed is None and not obs.ok


def test_registry() -> None:
    assert "single_shot" in strategy_names()
    assert build_strategy("single_shot", {"max_tokens": 5}).params.max_tokens == 5
    with pytest.raises(ConfigError, match="unknown strategy"):
        build_strategy("no_such_strategy")
    with pytest.raises(ConfigError, match="unknown parameter .colour."):
        build_strategy("single_shot", {"colour": "blue"})


def test_offered_tool_specs_count_as_input_when_configured() -> None:
    from tether.core.budget import estimate_input_tokens
    from tether.models.base import function_tool
    from tether.testing.scripted_models import ScriptedModel

    tool = function_tool("bash", "Run a command. " * 20, {"type": "object"})
    assert estimate_input_tokens(MESSAGES, [tool]) > estimate_input_tokens(MESSAGES) + 100
    allowed = []

    def script(messages, info):
        allowed.append(info.params.max_tokens)
        return "ok"

    for tools in (None, [tool]):
        ctx = TrialContext(spec(total=400, count="input+output"), TASK,
                           {"proposer": ScriptedModel(script, supports_tools=True)})
        ctx.generate("proposer", MESSAGES, max_tokens=1000, tools=tools)
    assert allowed[1] < allowed[0] - 100  # the specs' share of the cap is not given out


_VARIANTS = ({}, {"verifier": False}, {"n": 1}, {"n": 2}, {"pick": "oracle"},
             {"selector": "llm"}, {"feedback": "critique"})


@pytest.mark.parametrize("name", strategy_names())
def test_roles_read_from_the_declaration_are_the_built_strategys(name: str) -> None:
    # every registered strategy, with each variant of params it accepts: the config check
    # (which builds nothing) sees the roles the running strategy will charge
    checked = 0
    for params in _VARIANTS:
        try:
            declared = strategy_roles(name, params)
        except ConfigError:
            continue  # not this strategy's params (or a required one is missing)
        assert declared == declared_roles(build_strategy(name, params)), params
        checked += 1
    assert checked or name == "compiled_harness"


class _OldPlugin:
    """A plugin written before declarations: fixed roles, no Params."""

    name = "old_plugin"
    roles = ("proposer", "critic")
    built = 0

    def __init__(self, rounds: int = 1) -> None:
        _OldPlugin.built += 1


class _OldDynamicPlugin(_OldPlugin):
    """Roles computed per instance: the one case a config check builds."""

    name = "old_dynamic_plugin"

    def __init__(self, critic: bool = False) -> None:
        super().__init__()
        self.critic = critic

    @property
    def roles(self) -> tuple[str, ...]:
        return ("proposer", "critic") if self.critic else ("proposer",)


def test_an_undeclared_plugin_keeps_working_from_its_signature(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tether.strategies.base import STRATEGIES

    strategy_names()  # load the registry before swapping its entries
    monkeypatch.setattr(STRATEGIES, "_entries", {**STRATEGIES._entries,
                                                 "old_plugin": _OldPlugin,
                                                 "old_dynamic_plugin": _OldDynamicPlugin})
    _OldPlugin.built = 0
    assert strategy_roles("old_plugin", {"rounds": 2}) == ("proposer", "critic")
    assert _OldPlugin.built == 0  # a roles tuple on the class: nothing built
    with pytest.raises(ConfigError, match="unknown parameter 'round'") as info:
        strategy_roles("old_plugin", {"round": 2})
    assert "did you mean 'rounds'?" in (info.value.hint or "")
    assert strategy_roles("old_dynamic_plugin", {"critic": True}) == ("proposer", "critic")
    assert _OldPlugin.built == 1
