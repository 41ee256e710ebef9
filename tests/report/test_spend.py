"""The report's Spend section: dollar costs per trial and arm, and score against the
tokens spent (mean and pass@k per budget) drawn for every arm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.runs.conftest import SCRIPTED, write_config, write_suite
from tether.cli import main

GRID = '[[strategies]]\nname = "single_shot"\nparams = {max_tokens = [16, 32]}\n'


def _invoke(*args: str):
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, models=SCRIPTED + ";price_in=1000;price_out=2000",
                       seeds="[0, 1, 2]", strategies=GRID)
    _invoke("run", str(cfg), "--out", str(tmp_path / "run"), "--json")
    return tmp_path / "run"


def test_costs_per_trial_and_arm_and_a_spend_plot_per_arm(run_dir: Path, tmp_path: Path):
    out = tmp_path / "r.html"
    numbers = json.loads(_invoke("report", str(run_dir), "--out", str(out), "--json").stdout)
    spend = numbers["spend"]
    assert [r["arm"] for r in spend["rows"]] == ["single_shot[max_tokens=16]",
                                                 "single_shot[max_tokens=32]"]
    trials = numbers["trials"]
    assert len(trials) == 18 and all(t["cost_usd"] > 0 for t in trials)
    for arm in spend["arms"]:
        mine = [t["cost_usd"] for t in trials if t["arm"] == arm["arm"]]
        assert arm["cost_usd"] == pytest.approx(sum(mine)) and arm["n_trials"] == 9
    row = spend["rows"][0]
    # 3 seeds per task: pass@1..3, at k times the tokens of one trial
    assert [p["k"] for p in row["pass_at_k"]] == [1, 2, 3]
    assert row["pass_at_k"][2]["tokens"] == pytest.approx(3 * row["tokens_mean"])
    assert row["pass_at_k"][0]["pass_at_k"] == pytest.approx(2 / 3)  # t2 never passes
    assert row["pass_at_k"][2]["pass_at_k"] == pytest.approx(2 / 3)
    calls = spend["call_costs"]
    assert all(sum(calls[t["trial_id"]]) == pytest.approx(t["cost_usd"]) for t in trials)
    page = next((tmp_path / "r_assets" / "trials").glob("*.html")).read_text()
    assert "$0.0" in page  # each call's cost beside its usage
    html = out.read_text()
    assert 'id="spend"' in html and html.count("score against tokens spent:") == 2
    plots = sorted((tmp_path / "r_assets" / "plots").glob("spend_*.png"))
    assert len(plots) == 2 and all(p.stat().st_size > 1000 for p in plots)


def test_an_unpriced_run_shows_no_cost_until_a_price_table_is_given(tmp_path: Path,
                                                                     monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path)
    _invoke("run", str(cfg), "--out", str(tmp_path / "run"), "--json")
    numbers = json.loads(_invoke("report", str(tmp_path / "run"), "--json").stdout)
    assert numbers["spend"]["priced"] is False
    assert all(t["cost_usd"] is None for t in numbers["trials"])
    assert "$0" not in (tmp_path / "run" / "report.html").read_text()
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({SCRIPTED: {"price_in": 0, "price_out": 1e6}}))
    priced = json.loads(_invoke("report", str(tmp_path / "run"), "--json",
                                "--prices", str(table)).stdout)
    (arm,) = priced["spend"]["arms"]
    out_tokens = sum(r["output_tokens_mean"] * r["n_trials"] for r in priced["summary"])
    assert arm["cost_usd"] == pytest.approx(out_tokens)
    text = _invoke("report", str(tmp_path / "run"), "--prices", str(table)).output
    assert "cost (USD" in text
