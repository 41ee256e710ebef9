"""One process at a time in a build directory: a second compile or resume exits 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from tests.systems.compile.compiler.conftest import STUDENT_SPEC, TEACHER_SPEC
from tether.cli.hub import main
from tether.systems.compile.compiler.store import BuildDir

ROOT = Path(__file__).resolve().parents[4]
FIXTURE = ROOT / "tests" / "fixtures" / "compile_build"
# Another process: takes the directory's lock, says so, and holds it until stdin closes.
_HOLDER = ("import sys\nfrom tether.systems.compile.compiler.store import BuildDir\n"
           "BuildDir(sys.argv[1]).lock()\nprint('held', flush=True)\nsys.stdin.read()\n")


def _hold(build: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(build)], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(timeout=30) == 0


def test_a_resume_or_a_compile_into_a_held_directory_exits_2(tmp_path: Path) -> None:
    build = tmp_path / "build"
    shutil.copytree(FIXTURE, build)
    holder = _hold(build)
    try:
        for args in (["compile", "--resume", str(build)],
                     ["compile", "--setting", "toy", "--teacher", TEACHER_SPEC, "--student",
                      STUDENT_SPEC, "--out", str(build)]):
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 2, result.output
            errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
            assert errors == [f"error: {build}: another process holds this build directory "
                              f"(pid {holder.pid})"], result.stderr
    finally:
        _release(holder)
    # the holder is gone: its lock went with it
    assert CliRunner().invoke(main, ["compile", "--resume", str(build)]).exit_code == 0


def test_two_real_compiles_into_one_directory_one_refused(tmp_path: Path) -> None:
    """Two `tether compile` processes started together on one --out: one builds, the
    other exits 2 (whichever lost the race), and the build is the winner's alone."""
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
    assert str(out) in refused and ("another process holds this build directory" in refused
                                    or "already holds a compile" in refused), refused


def test_the_lock_is_the_process_s_and_released_by_unlock(tmp_path: Path) -> None:
    d = BuildDir(tmp_path / "b")
    assert d.lock() is True
    assert BuildDir(tmp_path / "b").lock() is False  # this process holds it already
    d.unlock()
    holder = _hold(tmp_path / "b")  # free again for another process
    _release(holder)
