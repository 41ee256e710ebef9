"""Per-run cgroup v1 memory and pids limits, where the hierarchy is writable.

A cgroup gives exact limits (RSS rather than address space, so runtimes that reserve
large virtual ranges still work), exact evidence of why a run died (oom_kill and
pids "max" counters) and a list of every process to sweep at the end.
Where it is not writable the backend falls back to rlimits (see bwrap.py).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

V1_ROOT = Path("/sys/fs/cgroup")


def _own_path(controller: str) -> str | None:
    """This process's cgroup path for a v1 controller, from /proc/self/cgroup."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    return None


def _parent_dir(controller: str) -> Path | None:
    # Nest under our own cgroup so limits placed on us still apply to the sandbox.
    own = _own_path(controller)
    if own is None:
        return None
    parent = V1_ROOT / controller / own.lstrip("/")
    if not (parent / "cgroup.procs").exists() or not os.access(parent, os.W_OK):
        return None
    return parent


def available() -> bool:
    return _parent_dir("memory") is not None and _parent_dir("pids") is not None


class RunCgroup:
    """A memory and a pids cgroup for one run. Create, join (in the child), sweep."""

    def __init__(self, memory_mb: int, max_procs: int) -> None:
        name = f"tether-{uuid.uuid4().hex[:12]}"
        mem_parent, pids_parent = _parent_dir("memory"), _parent_dir("pids")
        if mem_parent is None or pids_parent is None:
            raise OSError("cgroup v1 memory/pids hierarchy not writable")
        self.mem = mem_parent / name
        self.pids = pids_parent / name
        self.mem.mkdir()
        try:
            self.pids.mkdir()
            limit = str(memory_mb * 1024 * 1024)
            (self.mem / "memory.limit_in_bytes").write_text(limit)
            try:  # memsw exists only with swap accounting; no swap is fine too
                (self.mem / "memory.memsw.limit_in_bytes").write_text(limit)
            except OSError:
                pass
            # +3 for setpriv/timeout, bwrap and bwrap's pid-1 reaper.
            (self.pids / "pids.max").write_text(str(max_procs + 3))
        except BaseException:
            self.remove()
            raise
        self._procs_files = [str(self.mem / "cgroup.procs"), str(self.pids / "cgroup.procs")]

    def join(self) -> None:
        """Move the calling process in; runs in the child between fork and exec."""
        for procs in self._procs_files:
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def set_limits(self, memory_mb: int, max_procs: int) -> None:
        """Change the limits (a warm sandbox's, before each command it runs).

        memsw may never be below the memory limit: raising, it goes first; lowering, last.
        """
        limit = str(memory_mb * 1024 * 1024)
        mem, memsw = self.mem / "memory.limit_in_bytes", self.mem / "memory.memsw.limit_in_bytes"
        raising = int(mem.read_text()) < memory_mb * 1024 * 1024
        order = [memsw, mem] if raising else [mem, memsw]
        for path in order:
            try:
                path.write_text(limit)
            except FileNotFoundError:  # no swap accounting: no memsw file
                pass
        (self.pids / "pids.max").write_text(str(max_procs + 3))

    def counters(self) -> tuple[int, int]:
        """(OOM kills, forks refused at pids.max) so far: a warm sandbox compares them
        before and after each command."""
        return _counter(self.mem / "memory.oom_control", "oom_kill"), _counter(
            self.pids / "pids.events", "max")

    def oom_killed(self) -> bool:
        try:
            for line in (self.mem / "memory.oom_control").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value) > 0
            # Older kernels lack the counter: a hit on the limit is the next best sign.
            return int((self.mem / "memory.failcnt").read_text()) > 0
        except (OSError, ValueError):
            return False

    def pids_limited(self) -> bool:
        try:
            for line in (self.pids / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value) > 0
        except (OSError, ValueError):
            pass
        return False

    def sweep(self, timeout_s: float = 3.0) -> None:
        """SIGKILL everything still in the cgroup until it is empty."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            pids = self._members()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.002)

    def members(self) -> list[int]:
        """The pids in the cgroup now."""
        return self._members()

    def _members(self) -> list[int]:
        pids: set[int] = set()
        for procs in self._procs_files:
            try:
                pids.update(int(p) for p in Path(procs).read_text().split())
            except OSError:
                pass
        return sorted(pids)

    def remove(self) -> None:
        for d in (self.mem, self.pids):
            for _ in range(250):  # rmdir fails with EBUSY until the last member is reaped
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.002)


def _counter(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0
