"""`tether run` against a local OpenAI-compatible server with a priced spec: a server that
omits usage gives cost `-` (null in JSON), the same spec against a server that reports
usage a cost above 0; a server claiming 100,000 tokens is charged at most what each call
asked for, and every such call is flagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.models.conftest import FaultServer
from tether.cli import main
from tether.runs.store import RunStore

from .conftest import write_config, write_suite


@pytest.fixture
def server():
    s = FaultServer()
    yield s
    s.close()


def run(tmp_path: Path, server: FaultServer, *extra: str):
    tmp_path.mkdir(exist_ok=True)
    write_suite(tmp_path / "suite.json")
    spec = f"openai-compatible/fake@{server.base_url};price_in=1;price_out=2"
    cfg = write_config(tmp_path, models=spec, seeds="[0]", concurrency=1,
                       strategies='[[strategies]]\nname = "single_shot"\n'
                                  "[strategies.params]\nmax_tokens = 64\n")
    out = tmp_path / "run"
    return CliRunner().invoke(main, ["run", str(cfg), "--out", str(out), *extra]), out


def test_missing_usage_is_cost_dash_and_reported_usage_a_cost(tmp_path: Path, server):
    server.script = [{"usage": None}]
    res, _ = run(tmp_path / "a", server, "--json")
    assert res.exit_code == 0, res.output
    (arm,) = json.loads(res.stdout)["arms"]
    assert arm["cost_usd"] is None and arm["priced"] is True
    table, _ = run(tmp_path / "b", server)
    cost_col = [line for line in table.stdout.splitlines() if "single_shot" in line]
    cells = [c.strip() for c in cost_col[0].split("│") if c.strip()]
    assert "cost" in table.stdout and cells[-1] == "-"
    assert "$0.0000" not in table.stdout
    server.script = [{}]  # usage reported
    res, _ = run(tmp_path / "c", server, "--json")
    (arm,) = json.loads(res.stdout)["arms"]
    assert arm["cost_usd"] is not None and arm["cost_usd"] > 0


def test_a_server_claiming_100k_tokens_is_charged_what_each_call_asked(tmp_path, server):
    server.script = [{"usage": {"prompt_tokens": 5, "completion_tokens": 100_000,
                                "total_tokens": 100_005}}]
    res, out = run(tmp_path, server, "--json")
    assert res.exit_code == 0, res.output
    (arm,) = json.loads(res.stdout)["arms"]
    assert arm["cost_usd"] is None
    with RunStore.open(out) as store:
        calls = [c for r in store.trials() for c in r.calls]
    assert len(calls) == 3
    for c in calls:
        assert c.usage_flag == "over_limit" and c.claimed_usage.output_tokens == 100_000
        assert c.usage.output_tokens <= c.params["max_tokens"] <= 64
    assert arm["output_tokens"] <= 3 * 64
