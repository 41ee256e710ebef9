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


#: prices in dollars per million tokens, large enough to read the cost off the token counts
PRICE = "price_in=1000000;price_out=2000000"


@pytest.fixture
def stand_in():
    """An OpenAI-compatible stand-in on 127.0.0.1 (tests/models/conftest.py): each reply
    reports 11 input and 7 output tokens."""
    from tests.models.conftest import FaultServer

    server = FaultServer()
    yield server
    server.close()


@pytest.mark.parametrize("options", [
    f"key_env=TETHER_STAND_IN_KEY;{PRICE}",
    f"{PRICE};key_env=TETHER_STAND_IN_KEY",
    f"timeout_s=20;{PRICE}",
    f"{PRICE};timeout_s=20",
    "price_out=2000000;timeout_s=20;key_env=TETHER_STAND_IN_KEY;price_in=1000000",
])
def test_a_price_beside_other_options_in_any_order_costs_money_per_arm(
        tmp_path: Path, stand_in, monkeypatch: pytest.MonkeyPatch, options: str):
    monkeypatch.setenv("TETHER_STAND_IN_KEY", "sk-stand-in")
    summary = _run(tmp_path, f"openai-compatible/fake@{stand_in.base_url};{options}")
    (arm,) = summary["arms"]
    calls = len(stand_in.requests)
    assert calls == 6 and arm["input_tokens"] == 11 * calls
    assert arm["output_tokens"] == 7 * calls
    assert arm["cost_usd"] == pytest.approx(calls * (11 * 1.0 + 7 * 2.0))
    if "key_env" in options:  # the key the spec names is the one sent
        assert set(stand_in.authorizations) == {"Bearer sk-stand-in"}


def test_an_unset_key_variable_refuses_the_run_naming_it(tmp_path: Path, stand_in,
                                                         monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("TETHER_STAND_IN_KEY", raising=False)
    write_suite(tmp_path / "suite.json")
    cfg = write_config(tmp_path, models=f"openai-compatible/fake@{stand_in.base_url};"
                                        f"{PRICE};key_env=TETHER_STAND_IN_KEY")
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(tmp_path / "run")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "set TETHER_STAND_IN_KEY" in res.output.splitlines()[0]
    assert stand_in.requests == []  # refused before any call
