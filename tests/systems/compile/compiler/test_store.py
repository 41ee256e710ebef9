"""One process at a time in a compile's run directory (the run store's lock): a second
compile or resume exits 2, and the lock goes with the compile that held it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.systems.compile.compiler.conftest import STUDENT_SPEC, TEACHER_SPEC
from tether.cli.hub import main
from tether.errors import ConfigError
from tether.runs import holds_directory
from tether.systems.compile.compiler import Compiler

from .conftest import toy_config

ROOT = Path(__file__).resolve().parents[4]
# Another process: takes the directory's lock, says so, and holds it until stdin closes.
_HOLDER = ("import sys\nfrom pathlib import Path\nfrom tether.runs import lock_directory\n"
           "lock_directory(Path(sys.argv[1]), what='run directory', hint='')\n"
           "print('held', flush=True)\nsys.stdin.read()\n")
_TINY = ["--setting", "toy", "--teacher", TEACHER_SPEC, "--student", STUDENT_SPEC,
         "--probe", "2", "--validation", "2", "--test", "2", "--rounds", "0",
         "--comparators", "none"]


def _hold(directory: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(directory)], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(timeout=30) == 0


def test_a_resume_or_a_compile_into_a_held_directory_exits_2(tmp_path: Path) -> None:
    build = tmp_path / "build"
    assert CliRunner().invoke(main, ["compile", *_TINY, "--out", str(build)]).exit_code == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    holders = [_hold(build), _hold(empty)]
    try:
        for args, where, holder in (
                (["compile", "--resume", str(build)], build, holders[0]),
                (["compile", *_TINY, "--out", str(empty)], empty, holders[1])):
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 2, result.output
            errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
            assert errors == [f"error: {where}: another process holds this run directory "
                              f"(pid {holder.pid})"], result.stderr
    finally:
        for holder in holders:
            _release(holder)
    # the holder is gone: its lock went with it
    assert CliRunner().invoke(main, ["compile", "--resume", str(build)]).exit_code == 0


def test_two_real_compiles_into_one_directory_one_refused(tmp_path: Path) -> None:
    """Two `tether compile` processes started together on one --out: one compiles, the
    other exits 2 (whichever lost the race), and the run is the winner's alone."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = tmp_path / "build"
    cmd = [sys.executable, "-c", "from tether.cli import main; main()", "compile",
           "--setting", "toy", "--teacher", TEACHER_SPEC, "--student", STUDENT_SPEC,
           "--probe", "6", "--validation", "6", "--test", "8", "--rounds", "1",
           "--comparators", "none", "--out", str(out), "--json"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    done = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in procs]
    codes = sorted(code for code, _ in done)
    assert codes == [0, 2], done
    refused = next(err for code, err in done if code == 2)
    assert str(out) in refused and ("another process holds this run directory" in refused
                                    or "already holds a compile" in refused), refused


def test_the_lock_goes_with_the_compile_that_ended_or_failed(tmp_path: Path) -> None:
    out = tmp_path / "o"
    compiler = Compiler(toy_config(out, probe=2, validation=2, test=2, rounds=0,
                                   comparators=[]))
    assert holds_directory(out)
    compiler.run()
    assert not holds_directory(out)
    failing = tmp_path / "f"
    with pytest.raises(ConfigError):  # an unknown teacher spec, found after the store opened
        Compiler(toy_config(failing, teacher="no-such-backend/model"))
    assert not holds_directory(failing)
    _release(_hold(failing))  # free for another process
