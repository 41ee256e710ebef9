"""Dollar costs per call, trial and arm: in `tether run --json` and its table; unknown
prices stay unknown (never $0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.models.base import Usage
from tether.models.pricing import Price, PriceBook
from tether.models.recording import CallRecord
from tether.runs.costs import call_cost, fmt_usd, total

from .conftest import SCRIPTED, write_config, write_suite


def _call(model_id: str, inp: int, out: int, reasoning: int = 0, hit: bool = False):
    return CallRecord(role="proposer", model_id=model_id, request_hash="h", sample_index=0,
                      usage=Usage(inp, out, reasoning), latency_s=0.0, cache_hit=hit,
                      messages=[], output="")


def test_call_cost_bills_reasoning_as_output_and_cache_hits_as_free():
    book = PriceBook({"m": Price(1.0, 10.0)})
    assert call_cost(_call("m", 1000, 100, 50), book) == pytest.approx((1000 + 1500) / 1e6)
    assert call_cost(_call("m", 1000, 100, hit=True), book) == 0.0
    assert call_cost(_call("other", 1000, 100), book) is None
    assert total([0.5, None, 1.0]) is None and total([0.5, 1.0]) == 1.5
    assert fmt_usd(None) == "-" and fmt_usd(0.0123) == "$0.0123"


def _run(tmp_path: Path, models: str, *extra: str) -> dict:
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, models=models)
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(tmp_path / "run"),
                                    "--json", *extra], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_a_priced_spec_gives_each_arm_its_dollar_cost(tmp_path: Path):
    summary = _run(tmp_path, SCRIPTED + ";price_in=1000;price_out=2000")
    (arm,) = summary["arms"]
    expected = (arm["input_tokens"] * 1000 + arm["output_tokens"] * 2000) / 1e6
    assert arm["cost_usd"] == pytest.approx(expected) and arm["cost_usd"] > 0


def test_no_price_is_no_cost_and_a_price_table_is_kept_with_the_run(tmp_path: Path):
    assert _run(tmp_path, SCRIPTED)["arms"][0]["cost_usd"] is None
    table = tmp_path / "prices.toml"
    table.write_text(f'["{SCRIPTED}"]\nprice_in = 1000\nprice_out = 0\n')
    other = tmp_path / "second"
    other.mkdir()
    summary = _run(other, SCRIPTED, "--prices", str(table))
    (arm,) = summary["arms"]
    assert arm["cost_usd"] == pytest.approx(arm["input_tokens"] * 1000 / 1e6)
    # a resume without --prices still prices the run from the table it was started with
    again = CliRunner().invoke(main, ["run", "--resume", str(other / "run"), "--json"],
                               catch_exceptions=False)
    assert json.loads(again.stdout)["arms"][0]["cost_usd"] == pytest.approx(arm["cost_usd"])


def test_a_bad_price_table_is_a_one_line_usage_error(tmp_path: Path):
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path)
    bad = tmp_path / "prices.json"
    bad.write_text("{not json")
    res = CliRunner().invoke(main, ["run", str(cfg), "--prices", str(bad)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "price table" in res.output
