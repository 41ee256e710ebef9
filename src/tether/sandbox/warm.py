"""Warm sandboxes: many short commands without starting a sandbox for each.

A one-shot run (`Sandbox.run`) mounts a disk quota, makes a cgroup, starts setpriv,
timeout and bwrap, and takes all of it down again: about a tenth of a second, most of
it the quota's mount, before the command starts. A code evaluation runs one such
command per check, so that is most of what tether adds to the model's own time.
`WarmPool.run` takes the same arguments and returns the same `SandboxResult`, but runs
the command in a sandbox that is already up (a *slot*): each slot is one bwrap sandbox,
started as a one-shot one is (same user, namespaces, mounts, quota and cgroup), whose
process (_warm_child.py) forks and execs one command at a time.

What each command gets, as with a fresh sandbox:
- a fresh, empty work directory (`/work/run`, made by the host before the command and
  removed after it; the slot's root above it belongs to root, so the command can write
  nowhere else but the scratch dirs, which are emptied after every command);
- its stdin, a proof nonce say, read by the slot only after the command's fork;
- limits of its own: a slot runs one command at a time, so its cgroup's memory and
  process limits (set for each command) are that command's alone; its rlimits and its
  deadline are set per command too;
- a clean slate: after the command every process it left is killed and what it could
  have left in the sandbox is removed (see _warm_child.py); a slot that cannot be
  cleaned, that timed out, flooded its output or died is discarded, never reused.
The pool keeps one slot per command in flight (threads share it), starts slots on
demand and closes them all in `close()` (and at exit).

Only the bwrap backend has warm slots: the clean slate needs the sandbox's own pid
namespace (every other process in it is the command's). `warm_or_cold` gives the
unsafe subprocess backend's one-shot runs unchanged.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Mapping, Sequence

from ._warm_slot import Limits, WarmSlot
from .base import Sandbox, SandboxError, SandboxResult, as_bytes
from .bwrap import BwrapSandbox
from .quota import DEFAULT_DISK_MB

#: how long a command waits for a busy slot before it starts one more (a check that
#: hangs until its limit must not hold up the ones behind it)
PATIENCE_S = 1.0


class WarmPool:
    """`Sandbox.run` for many short commands, in warm slots (see the module doc).

    Thread-safe: each command in flight has a slot of its own. Up to `slots_at_once`
    slots (one per CPU and one more, by default: commands are short and CPU-bound, so
    more would only take turns on the CPUs) are kept; a command that finds them all
    busy waits for one, and after PATIENCE_S starts one more; at most `max_slots`
    commands run at once.
    """

    name = "bwrap"

    def __init__(self, sandbox: BwrapSandbox, *, mount_at: str = "/work",
                 max_slots: int = 64, slots_at_once: int | None = None,
                 python: str = "python3") -> None:
        if not isinstance(sandbox, BwrapSandbox):
            raise TypeError("warm slots need the bwrap sandbox (its own pid namespace)")
        self.sandbox = sandbox
        self.mount_at = mount_at
        self.python = python
        self.slots_at_once = slots_at_once or (os.cpu_count() or 1) + 1
        self._idle: list[WarmSlot] = []
        self._busy = 0  # slots running a command now
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a slot became idle, or failed
        self._starting = 0  # slots `prestart` is starting now
        self._slots = threading.BoundedSemaphore(max_slots)
        self.closed = False
        #: slots started, and commands run, so far
        self.starts = 0
        self.runs = 0
        atexit.register(self.close)

    def run(self, argv: Sequence[str], *, files: Mapping[str, bytes | str] | None = None,
            stdin: bytes | str | None = None, timeout_s: float = 30, memory_mb: int = 512,
            max_procs: int = 64, max_file_mb: int = 16, env: Mapping[str, str] | None = None,
            disk_mb: int | None = DEFAULT_DISK_MB, python_in_fork: bool = False
            ) -> SandboxResult:
        """Run argv once in a fresh work dir, as `Sandbox.run` does (no network, no
        caller's work dir). Raises SandboxError when a slot cannot be started.

        python_in_fork: argv is `python3 SCRIPT ARGS...` of a script tether trusts (the
        check runner, which runs the untrusted program in processes of its own): a fork
        of the slot's interpreter runs it, which saves starting an interpreter (and
        reading the host's site-packages) for each command. Everything else (work dir,
        stdin, limits, clean slate) is as for any command."""
        if not argv:
            raise ValueError("argv must not be empty")
        if python_in_fork and (len(argv) < 2 or argv[0] != "python3"):
            raise ValueError("python_in_fork runs `python3 SCRIPT ARGS...`")
        limits = Limits(memory_mb, max_procs, max_file_mb)
        with self._slots:
            slot = self._take(disk_mb or None, limits)
            reusable = False
            try:
                result, reusable = slot.run(argv, files, as_bytes(stdin) or b"", timeout_s,
                                            limits, dict(env or {}), python_in_fork)
            finally:
                self._give_back(slot, reusable)
        return result

    def _take(self, disk_mb: int | None, limits: Limits) -> WarmSlot:
        with self._lock:
            self.runs += 1
            waiting_since = time.monotonic()
            while True:
                if self.closed:
                    raise SandboxError("the warm sandbox pool is closed")
                for i, slot in enumerate(self._idle):
                    if slot.fits(disk_mb, limits):
                        self._busy += 1
                        return self._idle.pop(i)
                if disk_mb != DEFAULT_DISK_MB:
                    break  # slots of another size are never kept waiting for
                if self._starting:  # one on its way is further along than a new one
                    self._changed.wait()
                    waiting_since = time.monotonic()
                    continue
                left = PATIENCE_S - (time.monotonic() - waiting_since)
                if self._busy + len(self._idle) < self.slots_at_once or left <= 0:
                    break
                self._changed.wait(timeout=left)
            self.starts += 1
            self._busy += 1
        try:
            return WarmSlot(self.sandbox, disk_mb=disk_mb, mount_at=self.mount_at,
                            python=self.python, limits=limits)
        except BaseException:
            with self._lock:
                self._busy -= 1
                self._changed.notify_all()
            raise

    def _give_back(self, slot: WarmSlot, reusable: bool) -> None:
        with self._lock:
            self._busy -= 1
            # kept while there is use for it (slots started past `slots_at_once` for slow
            # commands, or for other sizes, are not all kept)
            if reusable and not self.closed and len(self._idle) < 2 * self.slots_at_once:
                self._idle.append(slot)
                self._changed.notify()
                return
            self._changed.notify()  # a place is free: a waiting command may start a slot
        slot.close()

    def prestart(self, count: int) -> None:
        """Start slots in the background until `count` (at most `slots_at_once`) are idle
        or starting, so that the first commands of a run (its first checks) find them
        ready; returns at once. A slot that fails to start is dropped: the command that
        needs one then starts its own, and reports why if it cannot."""
        with self._lock:
            if self.closed:
                return
            wanted = min(count, self.slots_at_once) - len(self._idle) - self._starting
            self._starting += max(wanted, 0)
            self.starts += max(wanted, 0)
        for _ in range(wanted):
            threading.Thread(target=self._start_ahead, name="tether-warm-prestart",
                             daemon=True).start()

    def _start_ahead(self) -> None:
        slot: WarmSlot | None = None
        try:
            slot = WarmSlot(self.sandbox, disk_mb=DEFAULT_DISK_MB, mount_at=self.mount_at,
                            python=self.python)
        except Exception:  # noqa: BLE001 - see prestart: the command's own start reports it
            pass
        finally:
            with self._lock:  # idle (or failed) and no longer starting, in one step
                self._starting -= 1
                if slot is not None and not self.closed:
                    self._idle.append(slot)
                    slot = None
                self._changed.notify_all()
            if slot is not None:  # the pool closed meanwhile
                slot.close()

    def close(self) -> None:
        """Close every idle slot; slots in use close when their command ends."""
        with self._lock:
            self.closed = True
            idle, self._idle = self._idle, []
        _close_all(idle)
        atexit.unregister(self.close)

    def __enter__(self) -> WarmPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close_all(slots: list[WarmSlot]) -> None:
    """Close slots side by side (each waits for an unmount), one after another where
    no thread can be started any more (late in the interpreter's exit)."""
    threads = [threading.Thread(target=slot.close, name="tether-warm-close")
               for slot in slots]
    started = []
    for slot, thread in zip(slots, threads, strict=True):
        try:
            thread.start()
            started.append(thread)
        except RuntimeError:
            slot.close()
    for thread in started:
        thread.join()


def warm_or_cold(sandbox: Sandbox) -> WarmPool | Sandbox:
    """A warm pool over the bwrap sandbox; any other backend as it is (one-shot runs)."""
    return WarmPool(sandbox) if isinstance(sandbox, BwrapSandbox) else sandbox
