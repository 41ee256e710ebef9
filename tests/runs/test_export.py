"""`tether export`: chat-jsonl per call / per trajectory and preference pairs, each line
checked against the module's JSON schema, and nothing the model did not see or say."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from tests.runs.agent_runs import SECRET, agent_run, loop_run
from tether.cli.hub import main
from tether.runs.export import CHAT_SCHEMA, PREFERENCE_SCHEMA, ExportCounts, export_examples
from tether.runs.store import RunStore


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return agent_run(tmp_path_factory.mktemp("export") / "run")


@pytest.fixture(scope="module")
def loop_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return loop_run(tmp_path_factory.mktemp("export_loop") / "run")


def _export(run: Path, out: Path, *args: str) -> list[dict]:
    result = CliRunner().invoke(main, ["export", str(run), "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert f"{len(lines)} examples" in result.output
    return [json.loads(line) for line in lines]


def _check(rows: list[dict], schema: dict) -> None:
    for row in rows:
        jsonschema.validate(row, schema)


def test_per_call_is_one_example_per_recorded_call(run_dir: Path, tmp_path: Path):
    rows = _export(run_dir, tmp_path / "calls.jsonl")
    _check(rows, CHAT_SCHEMA)
    # agent: 3 generator calls x 4 trials; turn_bon: 6 generator + 3 selector x 4 trials
    assert len(rows) == 3 * 4 + 9 * 4
    with RunStore.open(run_dir, readonly=True) as store:
        records = {r.trial_id: r for r in store.trials()}
    for row in rows:
        record = records[row["metadata"]["trial_id"]]
        call = next(c for c in record.calls
                    if c.request_hash == row["metadata"]["request_hash"])
        # the messages are the call's own, then exactly its reply
        assert row["messages"][:-1] == call.messages
        assert row["messages"][-1] == {"role": "assistant", "content": call.output}
        assert row["metadata"]["passed"] == record.passed
        assert SECRET not in json.dumps(row["messages"])


def test_roles_and_only_passed_filter(run_dir: Path, tmp_path: Path):
    rows = _export(run_dir, tmp_path / "gen.jsonl", "--roles", "generator", "--only", "passed")
    _check(rows, CHAT_SCHEMA)
    # passed: agent seed 0 of two tasks (3 calls each), every turn_bon trial (6 each)
    assert len(rows) == 2 * 3 + 4 * 6
    assert {r["metadata"]["role"] for r in rows} == {"generator"}
    assert all(r["metadata"]["passed"] for r in rows)


def test_per_trajectory_is_the_executed_conversation(run_dir: Path, tmp_path: Path):
    rows = _export(run_dir, tmp_path / "traj.jsonl", "--per", "trajectory",
                   "--roles", "generator")
    _check(rows, CHAT_SCHEMA)
    assert len(rows) == 8
    bon = [r for r in rows if r["metadata"]["strategy"] == "turn_bon"]
    text = json.dumps(bon[0]["messages"])
    # the conversation holds the executed commands, never the candidate left unpicked
    assert "touch done.txt" in text and "touch x.txt" not in text
    assert bon[0]["messages"][-1]["role"] == "assistant"
    assert "COMPLETE_TASK_AND_SUBMIT" in bon[0]["messages"][-1]["content"]


def test_preference_pairs_from_a_loop(loop_dir: Path, tmp_path: Path):
    rows = _export(loop_dir, tmp_path / "pref.jsonl", "--format", "preference")
    _check(rows, PREFERENCE_SCHEMA)
    assert len(rows) == 1
    (row,) = rows
    assert row["metadata"]["chosen_iteration"] == 1
    assert row["metadata"]["rejected_iteration"] == 0
    assert "alpha beta" in row["chosen"][0]["content"]
    assert "beta" not in row["rejected"][0]["content"]
    assert row["prompt"][-1]["role"] == "user"


def test_preference_skips_trials_that_are_not_loops(run_dir: Path):
    counts = ExportCounts()
    with RunStore.open(run_dir, readonly=True) as store:
        rows = list(export_examples(store, fmt="preference", counts=counts))
    assert rows == [] and counts.skipped == {"not a loop trial": 8}


def test_tool_calls_travel_with_the_reply(tmp_path: Path):
    from tether.models.base import Usage
    from tether.models.recording import CallRecord
    from tether.runs.export import assistant_message

    call = CallRecord(role="generator", model_id="m", request_hash="h", sample_index=0,
                      usage=Usage(), latency_s=0.0, cache_hit=False,
                      messages=[{"role": "user", "content": "go"}], output="",
                      tool_calls=[{"id": "c1", "type": "function",
                                   "function": {"name": "bash", "arguments": "{}"}}])
    msg = assistant_message(call)
    assert msg["tool_calls"][0]["function"]["name"] == "bash"
    jsonschema.validate({"messages": [*call.messages, msg],
                         "metadata": {"trial_id": "x", "task": "s/t", "strategy": "agent",
                                      "arm": "agent", "seed": 0, "status": "ok",
                                      "score": 1.0, "passed": True, "role": "generator",
                                      "model_id": "m", "request_hash": "h",
                                      "per": "call"}}, CHAT_SCHEMA)


def test_schema_rejects_a_line_without_the_reply():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"messages": [{"role": "user", "content": "x"}],
                             "metadata": {}}, CHAT_SCHEMA)


def test_trajectory_bon_exports_the_delivered_attempts_conversation(tmp_path: Path):
    run = agent_run(tmp_path / "run", with_trajectory=True)
    rows = _export(run, tmp_path / "traj.jsonl", "--per", "trajectory")
    traj = [r for r in rows if r["metadata"]["strategy"] == "trajectory_bon"]
    # one generator conversation per trial: the delivered attempt's (the trajectory
    # selector's call is not part of that attempt)
    assert [r["metadata"]["role"] for r in traj] == ["generator"] * 4
    gen = next(r for r in traj if r["metadata"]["role"] == "generator")
    text = json.dumps(gen["messages"])
    assert "touch done.txt" in text and "touch x.txt" not in text
