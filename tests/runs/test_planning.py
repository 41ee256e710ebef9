"""`tether run --plan`: counts, worst-case tokens, cost and duration; never a model call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.core.budget import BudgetSpec
from tether.runs.planning import worst_tokens
from tether.runs.shipped import SHIPPED_DIR

from .conftest import SCRIPTED, write_config, write_suite

SHIPPED = sorted(SHIPPED_DIR.glob("*.toml"))


@pytest.fixture
def no_model_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("--plan built a model")

    monkeypatch.setattr("tether.models.registry.parse_model", refuse)
    monkeypatch.setattr("tether.runs.runner.CachingModelFactory.__call__", refuse)


def _plan(*args: str) -> dict:
    res = CliRunner().invoke(main, ["run", *args, "--plan", "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_there_are_shipped_configs():
    assert len(SHIPPED) >= 10


@pytest.mark.parametrize("config", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_plans_without_a_model_call(config: Path, no_model_calls,
                                                         tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a plan writes no run directory
    numbers = _plan(str(config))
    assert numbers["trials"] > 0 and numbers["arms"]
    assert sum(r["trials"] for r in numbers["arms"]) == numbers["trials"]
    assert numbers["duration_basis"]
    assert not list(tmp_path.iterdir())


def test_plan_counts_tokens_cost_and_duration(tmp_path: Path, no_model_calls):
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, models="local/smollm2-135m;price_in=1;price_out=2",
                       extra="budgets = [100, {total = 1000, count = \"input+output\"}]",
                       strategies='[[strategies]]\nname = "single_shot"\n'
                                  'params = {max_tokens = 64}\n')
    numbers = _plan(str(cfg))
    small, shared = numbers["arms"]
    assert numbers["trials"] == 3 * 2 * 2 and small["trials"] == 6
    # the strategy's own cap is below the output budget; the shared cap holds both kinds
    assert small["worst_output_tokens_per_trial"] == 64 and small["cost_covers"] == "output"
    assert small["worst_cost_usd"] == pytest.approx(6 * 64 * 2 / 1e6)
    assert shared["worst_output_tokens_per_trial"] == 1000
    assert shared["cost_covers"] == "input+output"
    assert shared["worst_cost_usd"] == pytest.approx(6 * 1000 * 2 / 1e6)
    # no speed of the model measured anywhere: the duration is unknown, never guessed
    assert numbers["expected_duration_s"] is None
    assert numbers["speeds"] == {"local/smollm2-135m": None}
    assert "no measured speed for local/smollm2-135m" in numbers["duration_basis"]
    # 6 x 64 + 6 x 1000 tokens at 1000 tokens/s; the in-process model answers one call
    # at a time, so the 2 trials in flight do not divide its time
    given = _plan(str(cfg), "--tokens-per-s", "1000")
    assert given["expected_duration_s"] == pytest.approx((6 * 64 + 6 * 1000) / 1000)
    assert given["speeds"]["local/smollm2-135m"] == {"tokens_per_s": 1000.0, "source": "given"}


def test_test_doubles_take_no_time_and_unknown_prices_no_cost(tmp_path: Path):
    write_suite(tmp_path / "suite.json")
    numbers = _plan(str(write_config(tmp_path, models=SCRIPTED)))
    assert numbers["expected_duration_s"] == 0.0
    assert numbers["worst_cost_usd"] is None


def test_unbounded_strategies_say_uncapped_never_a_guess():
    assert worst_tokens("no_such", {}, BudgetSpec()) == (None, None)
    assert worst_tokens("turn_bon", {"n": 2, "step_limit": 10, "max_tokens": 100},
                        BudgetSpec()) == (10 * (2 * 100 + 512), None)
    assert worst_tokens("no_such", {}, BudgetSpec(total=500)) == (500, None)


def test_budget_sized_strategies_are_counted_as_they_run():
    """n = "auto" draws total // sample_tokens samples (at most max_n), each up to
    max_tokens; a reasoning call without a thinking budget asks for the whole budget."""
    auto = {"n": "auto", "sample_tokens": 1500, "max_n": 10, "max_tokens": 1024}
    assert worst_tokens("best_of_n", auto, BudgetSpec(total=20000)) == (10 * 1024 + 64, None)
    assert worst_tokens("best_of_n", auto, BudgetSpec(total=5000)) == (3 * 1024 + 64, None)
    assert worst_tokens("best_of_n", auto, BudgetSpec()) == (1024 + 64, None)
    r = {"mode": "auto", "max_tokens": 1024}
    assert worst_tokens("reasoning", r, BudgetSpec(total=20000)) == (20000, None)
    assert worst_tokens("reasoning", r, BudgetSpec()) == (4096 + 1024, None)
    assert worst_tokens("reasoning", {**r, "thinking_budget": 16000},
                        BudgetSpec(total=20000)) == (17024, None)


def _recorded_run(run_dir: Path, model_id: str, calls: list[tuple[int, float, bool]]) -> None:
    """A run store whose one trial made `calls` (output tokens, latency s, cache hit)."""
    from tether.core import TrialRecord, TrialSpec
    from tether.models import CallRecord, Usage
    from tether.runs.store import RunStore

    spec = TrialSpec(suite="s", task_id="t", strategy="single_shot", models={"proposer": "m"})
    record = TrialRecord(trial_id=spec.trial_id, index=0, spec=spec, status="ok", calls=[
        CallRecord(role="proposer", model_id=model_id, request_hash=f"{i:064x}",
                   sample_index=0, usage=Usage(input_tokens=300, output_tokens=out),
                   latency_s=latency, cache_hit=hit, messages=[], output="x")
        for i, (out, latency, hit) in enumerate(calls)])
    with RunStore(run_dir, create=True) as store:
        store.write_config({"suites": ["s"]})
        store.commit_trial(record, [])


def test_the_duration_comes_from_the_models_recorded_speed(tmp_path: Path, no_model_calls,
                                                          monkeypatch: pytest.MonkeyPatch):
    """Calls the model made in an earlier run under runs/ (cache hits left out) give its
    speed: output tokens per second of call time, prompt processing included."""
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, models="local/smollm2-135m",
                       strategies='[[strategies]]\nname = "single_shot"\n'
                                  'params = {max_tokens = 64}\n')
    _recorded_run(tmp_path / "runs" / "earlier", "local/smollm2-135m",
                  [(100, 4.0, False), (60, 4.0, False), (500, 0.001, True)])
    _recorded_run(tmp_path / "runs" / "other-model", "openai/gpt-4o-mini", [(100, 1.0, False)])
    monkeypatch.chdir(tmp_path)
    numbers = _plan(str(cfg))
    speed = numbers["speeds"]["local/smollm2-135m"]
    assert speed["tokens_per_s"] == pytest.approx(160 / 8.0)
    assert speed["source"] == "over 2 recorded calls: runs/earlier"
    assert numbers["expected_duration_s"] == pytest.approx(6 * 64 / 20.0)
    assert "20.0 tokens/s" in numbers["duration_basis"]


def test_measure_speed_times_one_call_of_each_model(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch):
    from tether.runs.speed import Speed, measured_speed
    from tether.testing.scripted_models import ScriptedModel

    timed = measured_speed("x", build=lambda spec: ScriptedModel(["def f():\n    pass"] * 2))
    assert timed is not None and timed.tokens_per_s > 0
    assert timed.source.startswith("measured now: ") and "-token prompt in " in timed.source
    asked: list[str] = []

    def fake(spec: str) -> Speed:
        asked.append(spec)
        return Speed(8.0, "measured now: 64 tokens after a 310-token prompt in 8.0 s")
    monkeypatch.setattr("tether.cli.run_plan.measured_speed", fake)
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, models="openai/gpt-4o-mini",
                       strategies='[[strategies]]\nname = "single_shot"\n'
                                  'params = {max_tokens = 64}\n')
    numbers = _plan(str(cfg), "--measure-speed")
    assert asked == ["openai/gpt-4o-mini"]
    # a remote model's calls overlap: 6 x 64 tokens at 8 tokens/s over 2 trials in flight
    assert numbers["expected_duration_s"] == pytest.approx(6 * 64 / 8.0 / 2)


def test_speed_options_need_plan(tmp_path: Path):
    write_suite(tmp_path / "suite.json")
    res = CliRunner().invoke(main, ["run", str(write_config(tmp_path)), "--measure-speed"])
    assert res.exit_code == 2 and "apply with --plan only" in res.output
