"""A killed agent trial keeps what it did: its turns reach the store as they happen.

A real `tether run` subprocess runs one bash-agent trial (scripted model, scripted
environment) whose fourth reply is held (tests/runs/scripted_models.py), so the test
kills it with SIGKILL exactly when the store shows three turn rows: it synchronises on
the store, never on a clock. The store then shows the trial `interrupted` with those
three turns; `--resume` reruns it to the end and its partial rows give way to the
finished trial.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.systems.terminal.agent.scripted_environment import ScriptedEnvironment
from tether.cli import main
from tether.report.data import build_report
from tether.runs.store import RunStore
from tether.systems.terminal.agent.actions import FINISH_MARKER
from tether.systems.terminal.agent.strategy import Agent

from .conftest import write_config
from .scripted_models import AGENT_HOLD, HOLD_ENV, TURNS_BEFORE_HOLD

MODEL = "scripted:tests.runs.scripted_models:bash_agent"
#: the subprocess's entry point: `tether` with the agent's environment scripted
LAUNCH = ("from tests.systems.terminal.agent.scripted_environment import ScriptedEnvironment\n"
          "from tether.systems.terminal.agent.strategy import Agent\n"
          "Agent.environment_factory = staticmethod(lambda ctx, cfg: ScriptedEnvironment())\n"
          "from tether.cli import main\nmain()\n")


def _experiment(directory: Path) -> Path:
    (directory / "suite.json").write_text(json.dumps([
        {"id": "echo", "prompt": "Echo three turns, then finish.", "metric": "scripted_check",
         "artifact_kind": "shell", "data": {"expect": FINISH_MARKER}}]))
    return write_config(directory, models=MODEL, seeds="[0]", concurrency=1,
                        strategies='[[strategies]]\nname = "agent"\n')


def _turn_rows(out: Path) -> int:
    db = out / "run.sqlite"
    if not db.is_file():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as con:
            return con.execute("SELECT COUNT(*) FROM partial WHERE kind = 'turn'").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not there yet
        return 0


def _wait_for_turns(out: Path, n: int, proc: subprocess.Popen, limit_s: float = 120) -> None:
    """Poll the store until n turns are written (the limit is a hang guard only)."""
    deadline = time.monotonic() + limit_s
    while _turn_rows(out) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"fewer than {n} turns written in {limit_s}s"
        time.sleep(0.02)


def test_killed_agent_trial_keeps_its_turns_and_resume_finishes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = _experiment(tmp_path)
    out = tmp_path / "run"
    hold = tmp_path / "hold.txt"
    hold.write_text(AGENT_HOLD + "\n")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "run", str(cfg), "--out", str(out),
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, HOLD_ENV: str(hold)})
    try:
        _wait_for_turns(out, TURNS_BEFORE_HOLD, proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL

    with RunStore.open(out) as store:
        assert store.trials() == []  # nothing was committed
        (trial,) = store.interrupted()
    assert trial.status == "interrupted" and trial.extra["turns"] == TURNS_BEFORE_HOLD
    turns = trial.extra["turn_records"]
    assert [t["command"] for t in turns] == [f"echo turn {k}" for k in (1, 2, 3)]
    assert [t["output"] for t in turns] == [f"turn {k}\n" for k in (1, 2, 3)]
    assert {t["attempt"] for t in turns} == {1}

    hold.unlink()
    monkeypatch.setattr(Agent, "environment_factory",
                        staticmethod(lambda ctx, config: ScriptedEnvironment()))
    res = CliRunner().invoke(main, ["run", "--resume", str(out), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["ran_now"] == 1

    with RunStore.open(out) as store:
        assert store.interrupted() == [] and store.partial_rows(trial.trial_id) == []
        (done,) = store.trials()
        assert done.trial_id == trial.trial_id and done.status == "ok" and done.passed
        assert done.extra["exit_reason"] == "submitted"
        assert [t["command"] for t in done.extra["turn_records"]] == [
            "echo turn 1", "echo turn 2", "echo turn 3", f"echo {FINISH_MARKER}"]
        assert build_report(store).numbers["interrupted"] == []


def test_interrupted_trials_are_listed_in_the_report(tmp_path: Path) -> None:
    from tether.core.trial import TrialSpec

    from .test_runner import _run

    write_config(tmp_path, name="exp.toml")
    (tmp_path / "suite.json").write_text(json.dumps([
        {"id": "t1", "prompt": "Say alpha", "metric": "scripted_check", "artifact_kind": "text",
         "data": {"expect": "alpha"}}]))
    out = tmp_path / "run"
    _run(tmp_path / "exp.toml", out)
    spec = TrialSpec(suite="suite", task_id="t9", strategy="agent", models={"proposer": "s"},
                     seed=3)
    with RunStore.open(out) as store:
        store.start_partial(spec, 7)
        store.append_partial(spec.trial_id, "turn", {"step": 1, "command": "ls"})
        store.append_partial(spec.trial_id, "turn", {"step": 2, "command": None})
        (row,) = build_report(store).numbers["interrupted"]
    assert row == {"trial_id": spec.trial_id, "index": 7, "task": "suite/t9", "seed": 3,
                   "arm": "agent", "status": "interrupted", "turns": 2, "last_command": "ls"}


def test_a_run_written_before_partial_rows_opens_and_stays_unchanged(tmp_path: Path) -> None:
    from .test_runner import _run

    (tmp_path / "suite.json").write_text(json.dumps([
        {"id": "t1", "prompt": "Say alpha", "metric": "scripted_check", "artifact_kind": "text",
         "data": {"expect": "alpha"}}]))
    out = tmp_path / "run"
    _run(write_config(tmp_path), out)
    with sqlite3.connect(out / "run.sqlite") as con:  # as an older tether left it
        con.execute("DROP TABLE partial")
    with RunStore.open(out) as store:
        assert store.interrupted() == [] and store.partial_rows("x") == []
        assert len(build_report(store).numbers["trials"]) == 2
    res = CliRunner().invoke(main, ["report", str(out), "--json"])
    assert res.exit_code == 0, res.output
    with sqlite3.connect(out / "run.sqlite") as con:  # readers did not create it
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert "partial" not in tables
