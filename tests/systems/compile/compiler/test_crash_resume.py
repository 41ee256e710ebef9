"""kill -9 in the middle of a real `tether compile`, then `--resume`: the same numbers as a
compile never interrupted, nothing scored twice, and the same after losing `run.sqlite`.

The compile is a real subprocess whose scripted student holds one call (the first
proposal's fourth validation item, held_student below) until the test releases it, so
exactly the items before it are committed when the signal lands: the test synchronises
on the store's rows and that hold, never on a clock.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.runs.scripted_models import HOLD_ENV, wait_while_held
from tests.systems.compile.compiler.conftest import TEACHER_SPEC
from tether.cli.hub import main
from tether.systems.compile.report import hc_numbers
from tether.testing.scripted_teacher import student as scripted_student

ROOT = Path(__file__).resolve().parents[4]
#: the held call: the first proposal (v1: a `Fact:` prompt without v2's answer contract)
#: on the validation item "What is 3 plus 11?"
HOLD = "v1-sum-3-11"
STUDENT = "scripted:tests.systems.compile.compiler.test_crash_resume:held_student"
ARGS = ["--setting", "toy", "--teacher", TEACHER_SPEC, "--student", STUDENT,
        "--probe", "6", "--validation", "6", "--test", "8", "--rounds", "2",
        "--comparators", "h0,oneshot", "--json"]


def held_student(messages: list[dict[str, Any]], info: Any) -> str:
    """TEST DOUBLE: the scripted student; the held call waits while HOLD is listed."""
    text = str(messages[-1]["content"])
    if "Fact:" in text and "3 plus 11?" in text and "one word" not in text:
        wait_while_held(HOLD)
    return str(scripted_student(messages, info))


def _committed(out: Path) -> list[tuple[str, str, str]]:
    """(label, split, item) of every committed trial, read as another process would."""
    db = out / "run.sqlite"
    if not db.is_file():
        return []
    try:
        with sqlite3.connect(db, timeout=1) as con:
            rows = con.execute("SELECT record FROM trials ORDER BY idx").fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return []
    found = []
    for (text,) in rows:
        record = json.loads(text)
        found.append((record["spec"]["label"], record["extra"]["split"],
                      record["extra"]["item_id"]))
    return found


def _wait_for(out: Path, n: int, proc: subprocess.Popen[str], limit_s: float = 240) -> None:
    """Poll the store until n trials are committed (the limit is a hang guard only)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if len(_committed(out)) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"the compile committed fewer than {n} trials in {limit_s}s")


def _compile(args: list[str]) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["compile", *args])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def _report(out: Path) -> dict[str, Any]:
    """The numbers of the compile's report section."""
    hc = hc_numbers(out)
    hc.pop("dir")
    hc["config"].pop("out")
    return hc


def _calls(out: Path) -> int:
    with sqlite3.connect(out / "run.sqlite") as con:
        return int(con.execute("SELECT COUNT(*) FROM events WHERE kind = 'student_call'"
                               ).fetchone()[0])


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("reference") / "run"
    return out, _compile([*ARGS, "--out", str(out)])


def test_kill_9_mid_build_then_resume_equals_an_uninterrupted_compile(
        tmp_path: Path, reference: tuple[Path, dict[str, Any]]) -> None:
    ref_out, ref_result = reference
    ref_trials = _committed(ref_out)
    held = next(i for i, (label, split, item) in enumerate(ref_trials)
                if label.startswith("harness ") and split == "validation"
                and item == "sum-3-11")
    out = tmp_path / "killed"
    hold = tmp_path / "hold.txt"
    hold.write_text(HOLD + "\n")
    env = {**os.environ, HOLD_ENV: str(hold),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    proc = subprocess.Popen([sys.executable, "-c", "from tether.cli import main; main()",
                             "compile", *ARGS, "--out", str(out)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for(out, held, proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    # exactly the items before the held one, in the same order as the reference
    assert _committed(out) == ref_trials[:held]
    hold.unlink()
    lost = tmp_path / "lost"  # the same kill, and then run.sqlite lost as well
    # never copied: run.sqlite's -shm was once seen to vanish mid-copy just after the
    # kill (CI), and the copy loses all of run.sqlite* anyway
    shutil.copytree(out, lost, ignore=shutil.ignore_patterns("run.sqlite*"))
    assert not list(lost.glob("run.sqlite*"))

    for resumed in (out, lost):
        result = _compile(["--resume", str(resumed), "--json"])
        assert result == ref_result
        assert _report(resumed) == _report(ref_out)
        # nothing scored twice: one trial each, one log line each, the same student calls
        assert sorted(_committed(resumed)) == sorted(ref_trials)
        lines = (resumed / "trials.jsonl").read_text().splitlines()
        assert len(lines) == len(ref_trials)
        assert _calls(resumed) == _calls(ref_out)
