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
    # 6 x 64 + 6 x 1000 tokens at 65 tokens/s, 2 trials in flight
    assert numbers["expected_duration_s"] == pytest.approx((6 * 64 + 6 * 1000) / 65 / 2)
    assert _plan(str(cfg), "--tokens-per-s", "1000")["expected_duration_s"] == \
        pytest.approx((6 * 64 + 6 * 1000) / 1000 / 2)


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
