"""The shipped experiment configs: they validate, expand as designed, and every arm runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.strategies.trial_helpers import RoleScript, code_task, program
from tether.core.trial import TrialSpec
from tether.instruments.base import InstrumentEnv
from tether.models.scripted import ScriptedModel
from tether.runs import run_trial
from tether.runs.config import load_experiment
from tether.runs.expand import expand

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
TASKS = [code_task(), code_task().model_copy(update={"id": "t2"})]


def _arms(name: str):
    exp = load_experiment(EXPERIMENTS / name)
    return exp, expand(exp, TASKS)


def test_code_scaling_is_r_s_l_h_at_three_budgets_and_three_seeds():
    exp, trials = _arms("code_scaling.toml")
    assert exp.suites == ["code"] and exp.seeds == [0, 1, 2]
    assert {a.arm for a in exp.strategies} >= {"R", "S", "L", "H"}
    assert sorted({t.spec.budget.total for t in trials}) == [1000, 5000, 20000]
    assert len(trials) == len(TASKS) * len(exp.strategies) * 3 * 3
    assert exp.models[0].proposer == "local/smollm2-135m"


def test_feedback_channels_differ_only_in_the_channel():
    exp, trials = _arms("feedback_channels.toml")
    channels = [a.params["feedback"] for a in exp.strategies]
    assert channels == ["none", "critique", "critique+lint", "critique+execution"]
    assert {a.name for a in exp.strategies} == {"proposer_reviewer"}
    assert len({t.spec.budget.label for t in trials}) == 1


def test_allocation_simplex_has_nine_distinct_splits_of_10k():
    exp, trials = _arms("allocation_simplex.toml")
    splits = [(b.shares["proposer"], b.shares["execution"], b.shares["reviewer"])
              for b in exp.budgets]
    assert splits == [(0.8, 0.1, 0.1), (0.5, 0.25, 0.25), (0.4, 0.4, 0.2), (0.4, 0.2, 0.4),
                      (0.33, 0.34, 0.33), (0.25, 0.25, 0.5), (0.2, 0.4, 0.4), (0.1, 0.8, 0.1),
                      (0.1, 0.1, 0.8)]
    assert all(b.total == 10000 and abs(sum(b.shares.values()) - 1) < 1e-9 for b in exp.budgets)
    # Reports group by budget label: the nine splits must stay nine budgets.
    assert len({t.spec.budget.label for t in trials}) == 9


@pytest.mark.parametrize("config", ["code_scaling.toml", "feedback_channels.toml",
                                    "allocation_simplex.toml"])
def test_every_arm_runs_a_trial_within_its_budget(config):
    """One trial per (arm, budget) with a scripted model that never passes: the loops
    run until their cycles or budget end, and no trial spends past its total."""
    exp, trials = _arms(config)
    seen = set()
    for planned in trials:
        key = (planned.spec.arm, planned.spec.budget.label)
        if key in seen or planned.spec.seed != 0 or planned.task.id != "t1":
            continue
        seen.add(key)
        params = dict(planned.spec.strategy_params)
        if "critique" in str(params.get("feedback", "")) or "lint" in str(
                params.get("feedback", "")) or params.get("feedback") == "execution":
            params["feedback"] = "scripted_partial"  # no sandbox or critique model here
        spec = TrialSpec(**{**planned.spec.model_dump(), "strategy_params": params})
        model = ScriptedModel(RoleScript(
            proposer=lambda m, i: program("alpha " + "pad " * 150),
            reviewer=lambda m, i: '{"issues": [{"location": "f", "cause": "c", "change": "x"}]}',
        ), model_id="scripted-test")
        record, _ = run_trial(spec, planned.task, model_factory=lambda _s, m=model: m,
                              env=InstrumentEnv(sandbox="subprocess"))
        assert record.status in ("ok", "budget_exhausted"), (key, record.error_message)
        total = spec.budget.total
        assert sum(c.usage.output_tokens + c.usage.reasoning_tokens
                   for c in record.calls) <= total
        for role, share in spec.budget.shares.items():
            spent = sum(c.usage.output_tokens for c in record.calls if c.role == role)
            assert spent <= int(share * total)
    assert len(seen) == len(exp.strategies) * len(exp.budgets)


@pytest.mark.parametrize("config", ["turn_bon.toml", "agent_tool_calls.toml"])
def test_terminal_experiments_validate_and_every_arm_builds(config):
    from tether.strategies.base import build_strategy

    exp = load_experiment(EXPERIMENTS / config)
    assert exp.suites == ["terminal"]
    for arm in exp.strategies:
        assert build_strategy(arm.name, arm.params).name == arm.name


def test_tool_call_experiment_compares_the_two_protocols_on_one_model():
    exp = load_experiment(EXPERIMENTS / "agent_tool_calls.toml")
    assert [a.params["protocol"] for a in exp.strategies] == ["text", "tool_calls"]
    assert exp.models[0].proposer.startswith("openai-compatible/")


def test_the_tb2_config_gives_attempts_room_for_the_papers_65_to_70_turns():
    exp = load_experiment(EXPERIMENTS / "turn_bon_tb2.toml")
    limits = {a.arm: a.params["step_limit"] for a in exp.strategies}
    assert limits and all(v >= 2 * 70 for v in limits.values()), limits
