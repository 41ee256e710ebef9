"""An arm whose trials all errored has no mean and no cost in every output: the run
table, `--json`, the report's numbers and the Inspect export (never 0 or $0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.core import BudgetSpec, TrialRecord, TrialSpec
from tether.models import PriceBook

from .conftest import SCRIPTED, write_config, write_suite

PRICED = f"{SCRIPTED};price_in=1;price_out=1"


@pytest.fixture(scope="module")
def down_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    tmp = tmp_path_factory.mktemp("down")
    write_suite(tmp / "suite.json", tasks=[("d1", "model-down", "x"), ("d2", "model-down", "y")])
    cfg = write_config(tmp, models=PRICED)
    out = tmp / "run"
    table = CliRunner().invoke(main, ["run", str(cfg), "--out", str(out)])
    again = CliRunner().invoke(main, ["run", "--resume", str(out), "--json"])
    return out, table.stdout, again.stdout


def test_the_run_table_and_json_show_no_mean_and_no_cost(down_run):
    _, table, as_json = down_run
    (arm,) = json.loads(as_json)["arms"]
    assert arm["error"] == arm["trials"] == 4
    assert arm["mean_score"] is None and arm["pass_rate"] is None and arm["cost_usd"] is None
    row = next(line for line in table.splitlines() if "single_shot" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    assert cells[-1] == "-" and "$0" not in table and "0.000" not in row


def test_the_report_numbers_show_no_mean_and_no_cost(down_run):
    out, _, _ = down_run
    res = CliRunner().invoke(main, ["report", str(out), "--json"])
    assert res.exit_code == 0, res.output
    spend = json.loads(res.stdout)["spend"]
    (row,) = spend["rows"]
    assert row["score_mean"] is None and row["cost_usd"] is None
    assert row["cost_per_trial_usd"] is None
    assert [a["cost_usd"] for a in spend["arms"]] == [None]


def test_the_inspect_export_has_no_mean_for_the_arm(down_run, tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    out, _, _ = down_run
    res = CliRunner().invoke(main, ["export", str(out), "--format", "inspect",
                                    "--out", str(tmp_path / "logs")])
    assert res.exit_code == 0, res.output
    (path,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.results is not None and log.results.completed_samples == 0
    assert all("mean" not in s.metrics for s in log.results.scores)


def test_an_all_error_arm_without_calls_is_not_free():
    from tether.runs.costs import arm_cost

    spec = TrialSpec(suite="s", task_id="t", strategy="single_shot", models={"proposer": "m"},
                     budget=BudgetSpec(), seed=0)
    errored = TrialRecord(trial_id="a", index=0, spec=spec, status="error")
    ok = TrialRecord(trial_id="b", index=1, spec=spec, status="ok")
    book = PriceBook(specs=["m;price_in=1;price_out=1"])
    assert arm_cost([errored, errored], book) is None
    assert arm_cost([errored, ok], book) == 0.0  # an arm that ran: its calls' cost
