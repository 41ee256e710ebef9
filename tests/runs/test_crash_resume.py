"""Crash safety with real processes: kill -9 mid-run, or Ctrl-C, then `--resume`.

The run is a real `tether run` subprocess whose metric instrument is slowed down
(`scripted_check;delay_s=...`) so trials are in flight when the signal lands. The
resumed store must equal an uninterrupted run's store, trial for trial.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main

from .conftest import fingerprint, write_config, write_suite

TASKS = [(f"t{i}", w, e) for i, (w, e) in enumerate(
    [("alpha", "alpha"), ("beta", "gamma"), ("delta", "delta"), ("eps", "eps"),
     ("zeta", "eta"), ("theta", "theta")])]
N_TRIALS = len(TASKS) * 2
DELAY = "scripted_check;delay_s=0.25"


def _experiment(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    write_suite(directory / "suite.json", tasks=TASKS, metric=DELAY)
    return write_config(directory, concurrency=2)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The store of an uninterrupted run of the experiment."""
    base = tmp_path_factory.mktemp("reference")
    cfg = _experiment(base)
    res = CliRunner().invoke(main, ["run", str(cfg), "--out", str(base / "run"), "--json",
                                    "--concurrency", "4"])
    assert res.exit_code == 0, res.output
    return fingerprint(base / "run")


def _start(cfg: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "from tether.cli import main; main()", "run", str(cfg),
         "--out", str(out), "--json"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def _committed(out: Path) -> int:
    db = out / "run.sqlite"
    if not db.is_file():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as con:
            return con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0


def _wait_for(out: Path, n: int, proc: subprocess.Popen, limit_s: float = 60) -> int:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        done = _committed(out)
        if done >= n:
            return done
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"run committed fewer than {n} trials in {limit_s}s")


def _resume(out: Path) -> dict:
    import json

    start = time.monotonic()
    res = CliRunner().invoke(main, ["run", "--resume", str(out), "--json"])
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    body["seconds"] = time.monotonic() - start
    return body


def _no_duplicates(out: Path) -> None:
    with sqlite3.connect(out / "run.sqlite") as con:
        ids = [r[0] for r in con.execute("SELECT trial_id FROM trials")]
        calls = con.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    assert len(ids) == len(set(ids)) == N_TRIALS
    assert calls == N_TRIALS  # one call per single-shot trial: nothing left from a dead attempt
    assert (out / "trials.jsonl").read_text().count("\n") == N_TRIALS


def test_kill_9_mid_run_then_resume_equals_uninterrupted(tmp_path: Path,
                                                         reference: dict) -> None:
    cfg = _experiment(tmp_path)
    out = tmp_path / "run"
    proc = _start(cfg, out)
    _wait_for(out, 3, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    survived = _committed(out)
    assert 3 <= survived < N_TRIALS  # killed with trials still to do
    body = _resume(out)
    assert body["ran_now"] == N_TRIALS - survived and body["skipped"] == survived
    _no_duplicates(out)
    assert fingerprint(out) == reference


def test_ctrl_c_stops_cleanly_and_resumes(tmp_path: Path, reference: dict) -> None:
    cfg = _experiment(tmp_path)
    out = tmp_path / "run"
    proc = _start(cfg, out)
    _wait_for(out, 2, proc)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=20)
    stopped_in = time.monotonic() - sent
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "resume with" in stderr
    assert stopped_in < 5  # in-flight trials are abandoned, not awaited
    import json

    summary = json.loads(stdout)
    assert summary["status"] == "interrupted" and summary["committed"] < N_TRIALS
    assert _committed(out) == summary["committed"]
    body = _resume(out)
    assert body["ran_now"] == N_TRIALS - summary["committed"]
    _no_duplicates(out)
    assert fingerprint(out) == reference
