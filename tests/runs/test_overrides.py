"""`--set KEY=VALUE` overrides and parameter grids, and how a run records them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.errors import ConfigError
from tether.runs.config import experiment_from_dict, load_experiment
from tether.runs.overrides import apply_sets

from .conftest import SCRIPTED, write_config, write_suite

BASE = {"suites": ["code"], "models": {"proposer": "a"},
        "strategies": ["single_shot", {"name": "best_of_n", "label": "bon",
                                       "params": {"n": 2}}]}


def test_dotted_paths_reach_roles_arms_by_label_or_position_and_every_item():
    out = apply_sets(BASE, ["models.proposer=openai/x", "strategies.bon.params.n=8",
                            "strategies[0].params.max_tokens=64", "seeds=3",
                            "strategies.params.temperature=0.5", "run.concurrency=9",
                            'budgets=[512, {"total": 2048}]'])
    assert out["models"] == {"proposer": "openai/x"}
    assert out["strategies"][1]["params"] == {"n": 8, "temperature": 0.5}
    assert out["strategies"][0] == {"name": "single_shot",
                                    "params": {"max_tokens": 64, "temperature": 0.5}}
    assert out["seeds"] == 3 and out["run"] == {"concurrency": 9}
    assert out["budgets"] == [512, {"total": 2048}]
    assert BASE["strategies"][0] == "single_shot"  # the input is left as it was


@pytest.mark.parametrize("item, needle", [
    ("seeds", "expected KEY=VALUE"), ("strategies.5.params.n=1", "no item '5'"),
    ("models.proposer.x=1", "is under a value"), ("a..b=1", "bad key")])
def test_bad_overrides_are_config_errors(item, needle):
    with pytest.raises(ConfigError, match=needle):
        apply_sets(BASE, [item])


def test_a_grid_is_one_labelled_arm_per_value_and_a_list_value_is_a_grid_of_one():
    exp = experiment_from_dict({**BASE, "strategies": [
        {"name": "best_of_n", "label": "bon", "params": {"n": [1, 2, 4, 8]}},
        {"name": "self_loop", "params": {"max_iterations": [1, 2],
                                         "feedback": [["execution", "lint"]]}}]}, "t")
    arms = [(a.arm, a.params) for a in exp.strategies]
    assert [a for a, _ in arms] == ["bon[n=1]", "bon[n=2]", "bon[n=4]", "bon[n=8]",
                                    "self_loop[max_iterations=1]",
                                    "self_loop[max_iterations=2]"]
    assert arms[2][1] == {"n": 4}
    assert arms[4][1]["feedback"] == ["execution", "lint"]
    # the resolved config reads back as the same arms (list values stay one value)
    again = experiment_from_dict(exp.resolved(), "resolved")
    assert again.resolved() == exp.resolved()
    with pytest.raises(ConfigError, match="empty list"):
        experiment_from_dict({**BASE, "strategies": [
            {"name": "best_of_n", "params": {"n": []}}]}, "t")


def test_a_run_records_its_overrides_in_the_resolved_config(tmp_path: Path):
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, models="scripted:[\"x\"]")
    res = CliRunner().invoke(main, [
        "run", str(cfg), "--out", str(tmp_path / "run"), "--json",
        "--set", f"models.proposer={SCRIPTED}", "--set", "seeds=1",
        "--set", "strategies.single_shot.params.max_tokens=[16, 32]"],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["planned"] == 3 * 1 * 2
    assert sorted(a["arm"] for a in summary["arms"]) == [
        "single_shot[max_tokens=16]", "single_shot[max_tokens=32]"]
    resolved = json.loads((tmp_path / "run" / "config.resolved.json").read_text())
    assert resolved["models"][0]["proposer"] == SCRIPTED and resolved["seeds"] == [0]
    assert load_experiment(tmp_path / "run" / "config.resolved.json").resolved() == resolved
    refused = CliRunner().invoke(main, ["run", "--resume", str(tmp_path / "run"),
                                        "--set", "seeds=2"])
    assert refused.exit_code == 2 and "not allowed with --resume" in refused.output
