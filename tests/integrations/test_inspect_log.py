"""`tether export --format inspect`: a scripted run written as Inspect logs through
inspect_ai's log API, opened back by `inspect log dump` (a subprocess) and read_eval_log."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log  # noqa: E402

from tests.runs.agent_runs import SEEDS, TASKS, agent_run  # noqa: E402
from tether.cli.hub import main  # noqa: E402
from tether.runs.store import RunStore  # noqa: E402


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return agent_run(tmp_path_factory.mktemp("inspect") / "run")


@pytest.fixture(scope="module")
def logs(run_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inspect_logs") / "logs"
    result = CliRunner().invoke(main, ["export", str(run_dir), "--format", "inspect",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 Inspect logs" in result.output
    return out


def _inspect_cli() -> list[str]:
    found = shutil.which("inspect", path=str(Path(sys.executable).parent)) or \
        shutil.which("inspect")
    assert found, "inspect_ai installs the `inspect` command"
    return [found]


def test_every_arm_is_a_log_that_inspect_log_dump_opens(run_dir: Path, logs: Path):
    with RunStore.open(run_dir, readonly=True) as store:
        records = store.trials()
    arms = sorted({r.spec.arm for r in records})
    assert sorted(p.name for p in logs.glob("*.eval")) == [f"{a}.eval" for a in arms]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for arm in arms:
        dumped = subprocess.run([*_inspect_cli(), "log", "dump", str(logs / f"{arm}.eval")],
                                capture_output=True, text=True, timeout=120, env=env)
        assert dumped.returncode == 0, dumped.stderr[-2000:]
        log = json.loads(dumped.stdout)
        assert log["eval"]["task"] == arm
        mine = [r for r in records if r.spec.arm == arm]
        assert len(log["samples"]) == len(mine) == len(TASKS) * len(SEEDS)
        assert {(s["id"], s["epoch"]) for s in log["samples"]} == {
            (r.spec.task_key, r.spec.seed + 1) for r in mine}


def test_samples_carry_messages_scores_and_usage(run_dir: Path, logs: Path):
    with RunStore.open(run_dir, readonly=True) as store:
        records = {r.trial_id: r for r in store.trials()}
    n_scored = 0
    for path in logs.glob("*.eval"):
        log = read_eval_log(str(path))
        assert log.status == "success"
        for sample in log.samples or []:
            record = records[sample.metadata["trial_id"]]
            replies = [m for m in sample.messages
                       if m.role == "assistant" and "request_hash" in (m.metadata or {})]
            # the messages are the main role's conversation (the generator's here): one
            # assistant message per call of that role, each the call's own reply
            main = record.calls[0].role
            assert sample.metadata["messages_of_role"] == main
            assert [m.text for m in replies] == [c.output for c in record.calls
                                                 if c.role == main]
            assert {m.metadata["role"] for m in replies} == {main}
            # every call, of every role, is a model event
            events = [e for e in sample.events if e.event == "model"]
            assert [(e.role, e.output.completion) for e in events] == \
                [(c.role, c.output) for c in record.calls]
            # the conversation opens with what the first call was sent
            first = record.calls[0].messages
            assert [m.text for m in sample.messages[:len(first)]] == \
                [m["content"] for m in first]
            assert sample.scores["tether"].value == record.score
            assert sample.scores["tether"].metadata["passed"] == record.passed
            usage = sample.model_usage
            assert sum(u.input_tokens for u in usage.values()) == \
                sum(c.usage.input_tokens for c in record.calls)
            assert sum(u.output_tokens for u in usage.values()) == \
                sum(c.usage.output_tokens for c in record.calls)
            n_scored += 1
        scores = [s.scores["tether"].value for s in log.samples or []]
        assert log.results.scores[0].metrics["mean"].value == pytest.approx(
            sum(scores) / len(scores))
    assert n_scored == len(records)


def test_a_file_as_inspect_out_is_refused_in_one_line(run_dir: Path, tmp_path: Path):
    target = tmp_path / "x.jsonl"
    target.write_text("")
    result = CliRunner().invoke(main, ["export", str(run_dir), "--format", "inspect",
                                       "--out", str(target)])
    assert result.exit_code == 2
    assert "is a file" in result.output and "Traceback" not in result.output
