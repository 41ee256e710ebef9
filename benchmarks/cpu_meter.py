"""CPU seconds of one process and of everything it starts, for benchmarks/whole_eval.py.

Where this process may make a cgroup v1 `cpuacct` group (as root, with the hierarchy
mounted), the measured process starts inside a group of its own (joined before it
execs), so every process it starts, sandboxed ones included, is counted, reaped or not.
Otherwise the reaped children's rusage is read instead: it misses processes nobody
reaped into this tree (bwrap does not reap its pid namespace's init into its own
accounting), and the meter says so (`exact` is False).
"""

from __future__ import annotations

import os
import resource
import signal
import time
import uuid
from pathlib import Path

CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def _own_group() -> Path | None:
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "cpuacct" in controllers.split(","):
                group = CPUACCT / path.lstrip("/")
                return group if (group / "cgroup.procs").exists() else None
    except OSError:
        pass
    return None


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CpuMeter:
    """Counts one measured process tree: start it with `preexec_fn=meter.join`."""

    def __init__(self) -> None:
        self.group: Path | None = None
        parent = _own_group()
        if parent is not None:
            try:
                group = parent / f"whole-eval-{uuid.uuid4().hex[:10]}"
                group.mkdir()
                self.group = group
            except OSError:
                self.group = None
        self.exact = self.group is not None
        self._rusage_start = _children_cpu()

    def join(self) -> None:
        """Runs in the measured child between fork and exec: into the group."""
        if self.group is not None:
            fd = os.open(self.group / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def seconds(self) -> float:
        if self.group is not None:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        return _children_cpu() - self._rusage_start

    def close(self) -> None:
        """Kill what is left in the group (a side stopped at its timeout), remove it."""
        if self.group is None:
            return
        for _ in range(200):
            pids = [int(p) for p in (self.group / "cgroup.procs").read_text().split()]
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                self.group.rmdir()
                return
            except OSError:
                time.sleep(0.01)
