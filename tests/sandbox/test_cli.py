"""`tether sandbox exec` through click's test runner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli.sandbox import sandbox


def test_exec_json_subprocess(tmp_path: Path) -> None:
    src = tmp_path / "prog.py"
    src.write_text("print(len(open('prog.py').read()))\n")
    result = CliRunner().invoke(
        sandbox,
        [
            "exec",
            "--backend",
            "subprocess",
            "--json",
            "--file",
            str(src),
            "--",
            "python3",
            "prog.py",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["returncode"] == 0 and payload["stdout"] == "35\n"
    assert "prog.py" in payload["files_out"]


def test_exec_bwrap_human_and_failure(bwrap) -> None:
    runner = CliRunner()
    ok = runner.invoke(sandbox, ["exec", "--", "sh", "-c", "echo hello-from-sandbox"])
    assert ok.exit_code == 0, ok.output
    assert "hello-from-sandbox" in ok.stdout and "returncode" in ok.stdout
    bad = runner.invoke(sandbox, ["exec", "--timeout-s", "0.5", "--json", "--", "sleep", "5"])
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["killed_reason"] == "timeout"


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a quota needs root")
def test_exec_disk_mb_bounds_the_work_dir(bwrap) -> None:
    runner = CliRunner()
    full = runner.invoke(
        sandbox,
        ["exec", "--disk-mb", "32", "--json", "--", "sh", "-c", ": > f; fallocate -n -l 2G f"],
    )
    payload = json.loads(full.stdout)
    assert full.exit_code == 1 and payload["disk_quota_mb"] == 32
    assert payload["killed_reason"] == "disk_quota"


def test_exec_bwrap_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tether.sandbox.bwrap.shutil.which", lambda name: None)
    result = CliRunner().invoke(sandbox, ["exec", "--", "true"])
    assert result.exit_code == 2
    assert "bwrap" in result.stderr and "hint" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
