"""Crash safety with real processes: kill -9 mid-run, or Ctrl-C, then `--resume`.

The run is a real `tether run` subprocess whose scripted model holds the trials of
the last tasks (tests/runs/scripted_models.py, HOLD_ENV) until the test releases them,
so exactly the first tasks' trials are committed and two are in flight when the signal
lands: the test synchronises on the store's rows and that hold, never on a clock. The
resumed store must equal an uninterrupted run's store, trial for trial.
"""

from __future__ import annotations

import os
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
from .scripted_models import HOLD_ENV

TASKS = [(f"t{i}", w, e) for i, (w, e) in enumerate(
    [("alpha", "alpha"), ("beta", "gamma"), ("delta", "delta"), ("eps", "eps"),
     ("zeta", "eta"), ("theta", "theta")])]
N_TRIALS = len(TASKS) * 2
#: the words of the last three tasks: their trials wait until released
HELD = ["eps", "zeta", "theta"]
#: trials run in index order (task-major), so the first three tasks' trials all commit
#: and the two workers then sit on held trials
FREE = N_TRIALS - 2 * len(HELD)


def _experiment(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    write_suite(directory / "suite.json", tasks=TASKS)
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


def _start(cfg: Path, out: Path) -> tuple[subprocess.Popen, Path]:
    """The run in a subprocess, with the held tasks' trials waiting; returns the hold file
    (delete it to release them)."""
    hold = cfg.parent / "hold.txt"
    hold.write_text("\n".join(HELD) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from tether.cli import main; main()", "run", str(cfg),
         "--out", str(out), "--json"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, HOLD_ENV: str(hold)})
    return proc, hold


def _committed(out: Path) -> int:
    db = out / "run.sqlite"
    if not db.is_file():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as con:
            return con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
    except sqlite3.OperationalError:  # schema not created yet
        return 0


def _wait_for(out: Path, n: int, proc: subprocess.Popen, limit_s: float = 120) -> int:
    """Poll the store until n trials are committed (the limit is a hang guard only)."""
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

    res = CliRunner().invoke(main, ["run", "--resume", str(out), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


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
    proc, hold = _start(cfg, out)
    _wait_for(out, FREE, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    survived = _committed(out)
    assert survived == FREE  # the held trials were in flight, never committed
    hold.unlink()
    body = _resume(out)
    assert body["ran_now"] == N_TRIALS - survived and body["skipped"] == survived
    _no_duplicates(out)
    assert fingerprint(out) == reference


def test_ctrl_c_stops_cleanly_and_resumes(tmp_path: Path, reference: dict) -> None:
    cfg = _experiment(tmp_path)
    out = tmp_path / "run"
    proc, hold = _start(cfg, out)
    _wait_for(out, FREE, proc)
    proc.send_signal(signal.SIGINT)
    # The two trials in flight are held until the hold file goes, which happens only after
    # the process has exited: it can only stop by abandoning them, not by awaiting them
    # (the timeout is a hang guard).
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "resume with" in stderr
    import json

    summary = json.loads(stdout)
    assert summary["status"] == "interrupted" and summary["committed"] == FREE
    assert _committed(out) == summary["committed"]
    hold.unlink()
    body = _resume(out)
    assert body["ran_now"] == N_TRIALS - summary["committed"]
    _no_duplicates(out)
    assert fingerprint(out) == reference


def test_two_resumes_at_once_one_is_refused_and_no_trial_is_recorded_twice(
        tmp_path: Path, reference: dict) -> None:
    cfg = _experiment(tmp_path)
    out = tmp_path / "run"
    proc, hold = _start(cfg, out)
    _wait_for(out, FREE, proc)
    proc.send_signal(signal.SIGKILL)  # a crashed run, as a user would find it
    proc.wait(timeout=60)
    # the first resume holds its trials in flight (the hold file is still there) ...
    first = subprocess.Popen(
        [sys.executable, "-c", "from tether.cli import main; main()", "run", "--resume",
         str(out), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, HOLD_ENV: str(hold)})
    try:
        deadline = time.monotonic() + 120  # a hang guard only
        lock = out / ".lock"
        while not lock.is_file() or lock.read_text() != str(first.pid):
            assert first.poll() is None, "the first resume ended before taking the lock"
            assert time.monotonic() < deadline, "the first resume never took the lock"
            time.sleep(0.02)
        # ... so a second resume meets the lock
        second = subprocess.run(
            [sys.executable, "-c", "from tether.cli import main; main()", "run", "--resume",
             str(out), "--json"], capture_output=True, text=True, timeout=120)
    finally:
        hold.unlink()  # the first resume may finish now (or is released on a failure)
    assert second.returncode == 2, second.stderr
    assert f"another process holds this run directory (pid {first.pid})" in second.stderr
    assert "Traceback" not in second.stderr
    stdout, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    _no_duplicates(out)
    assert fingerprint(out) == reference
