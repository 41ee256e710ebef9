"""What a process killed with SIGKILL leaves (its quota mounted, its work dirs) is reaped
at the next start of a tether process; what a live process owns is left alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.systems.terminal.agent.task_factory import make_task
from tether.sandbox.quota import is_mounted

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a quota needs root")

# A terminal attempt and a hook-style worker with quotas, then SIGKILL: no finally runs.
KILLED = """
import json, os, signal, sys
from tether.sandbox import BwrapSandbox, SandboxedWorker, WorkerLimits
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.harbor import load_harbor_task
env = TerminalEnvironment.for_task(load_harbor_task(sys.argv[1]))
env.start()
(env.app_dir / "left.txt").write_text("x")
worker = SandboxedWorker(BwrapSandbox(), "def f():\\n    return 1\\n",
                         limits=WorkerLimits(disk_mb=16))
assert worker.call("f").value == 1
print(json.dumps({"dirs": [str(env.root), str(worker.workdir)],
                  "images": [str(env._quota.image), str(worker._quota.image)]}), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""
# The next start: a tether process that opens and closes one attempt of its own.
NEXT = """
import sys
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.harbor import load_harbor_task
with TerminalEnvironment.for_task(load_harbor_task(sys.argv[1])) as env:
    env.execute("true")
"""


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=120)


def _force_cleanup(paths: list[Path]) -> None:
    for p in paths:
        if is_mounted(p):
            subprocess.run(["umount", "-l", str(p)], check=False)
        if p.is_dir():
            subprocess.run(["rm", "-rf", str(p)], check=False)
        elif p.exists():
            p.unlink()


@needs_root
def test_a_killed_processes_quota_mounts_and_dirs_are_reaped_at_the_next_start(tmp_path):
    task = make_task(tmp_path, setup=None)
    killed = _python(KILLED, str(task))
    assert killed.returncode == -9, killed.stderr[-2000:]
    left = json.loads(killed.stdout)
    dirs, images = [Path(d) for d in left["dirs"]], [Path(i) for i in left["images"]]
    try:
        assert all(is_mounted(d) for d in dirs) and all(i.exists() for i in images)
        nxt = _python(NEXT, str(task))
        assert nxt.returncode == 0, nxt.stderr[-2000:]
        assert [d for d in dirs if is_mounted(d)] == []
        assert [p for p in [*dirs, *images] if p.exists()] == []
    finally:
        _force_cleanup([*dirs, *images])


def test_a_live_owner_and_names_not_ours_are_left_alone(tmp_path):
    from tether.sandbox.reaper import reap_stale

    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True).stdout.strip()
        keep = [tmp_path / f"tether-attempt-{sleeper.pid}-live",
                tmp_path / f"tether-wrk-{os.getpid()}-mine",
                tmp_path / f"tether-attempt-kept-{dead}",
                tmp_path / f"someone-else-{dead}-x"]
        gone = [tmp_path / f"tether-attempt-{dead}-stale", tmp_path / f"tether-sess-{dead}-s"]
        for d in keep + gone:
            (d / "sub").mkdir(parents=True)
        (tmp_path / f"tether-quota-{dead}-x.img").write_bytes(b"\0")
        reaped = reap_stale(tmp_path)
        assert all(d.exists() for d in keep)
        assert not any(d.exists() for d in gone)
        assert sorted(reaped.dirs) == sorted(gone)
        assert reaped.files == [tmp_path / f"tether-quota-{dead}-x.img"]
    finally:
        sleeper.kill()
        sleeper.wait()


def test_owned_names_carry_the_pid():
    from tether.sandbox.reaper import owned_dir

    d = owned_dir("wrk")
    try:
        assert d.parent == Path(tempfile.gettempdir())
        assert d.name.startswith(f"tether-wrk-{os.getpid()}-")
    finally:
        d.rmdir()
