"""Run one process with a wall clock, capped output and a whole-group kill.

One thread, one selector over stdout, stderr, stdin and a pidfd: the pidfd tells us
the moment the process exits, so a straggler that keeps our pipes open (an escaped
daemon under the unsafe backend) cannot make us wait past a short drain grace.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .invocation import ExecSpec, HeadTailBuffer, SandboxResult, classify

if TYPE_CHECKING:
    from .cgroups import RunCgroup

# After the process exits (or we kill it) keep reading this long for buffered output.
DRAIN_GRACE_S = 0.5


@dataclass
class ProcOutcome:
    returncode: int | None
    stdout: str
    stderr: str
    stdout_elided: int
    stderr_elided: int
    timed_out: bool
    output_limited: bool
    duration_s: float

    def result(
        self, killed_reason: str | None, *, disk_quota_mb: int | None = None
    ) -> SandboxResult:
        """The SandboxResult of this outcome; both backends report through this."""
        return SandboxResult(
            returncode=self.returncode,
            stdout=self.stdout,
            stderr=self.stderr,
            timed_out=self.timed_out,
            # killed_reason is only ever set to a KilledReason literal; the local is typed str
            killed_reason=killed_reason,  # type: ignore[arg-type]
            duration_s=self.duration_s,
            stdout_elided=self.stdout_elided,
            stderr_elided=self.stderr_elided,
            disk_quota_mb=disk_quota_mb,
        )


@dataclass
class Launch:
    """How a backend starts one process for an ExecSpec, without running it yet.

    One-shot runs (`execute`) and long-lived workers (worker.py) start processes the
    same way from this: the full command line (privilege drop, bwrap), the environment
    outside the sandbox and the preexec hook that applies limits, plus the per-run
    cgroup when there is one (its counters say why a process died; close() removes it).
    """

    cmd: list[str]
    cwd: str
    env: dict[str, str]
    preexec_fn: Callable[[], None]
    cgroup: RunCgroup | None = None
    #: descriptors the command inherits (a seccomp program for bwrap); closed by close()
    fds: tuple[int, ...] = ()

    def sweep(self) -> None:
        """SIGKILL whatever is still in the cgroup (no-op without one)."""
        if self.cgroup is not None:
            self.cgroup.sweep()

    def evidence(self) -> dict[str, Any]:
        """classify()'s oom_killed / pids_limited: exact with a cgroup, else None."""
        if self.cgroup is None:
            return {"oom_killed": None, "pids_limited": None}
        return {
            "oom_killed": self.cgroup.oom_killed(),
            "pids_limited": self.cgroup.pids_limited(),
        }

    def close(self) -> None:
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        if self.cgroup is not None:
            self.cgroup.remove()


def execute(launch: Launch, spec: ExecSpec) -> SandboxResult:
    """Run a launch to completion under spec's limits; classify why it ended."""
    try:
        out = run_monitored(
            launch.cmd,
            cwd=launch.cwd,
            env=launch.env,
            stdin=spec.stdin,
            timeout_s=spec.timeout_s,
            output_cap_chars=spec.output_cap_chars,
            hard_output_bytes=spec.hard_output_bytes,
            preexec_fn=launch.preexec_fn,
            pass_fds=launch.fds,
            on_finish=launch.sweep,
        )
        reason = classify(
            timed_out=out.timed_out,
            output_limited=out.output_limited,
            returncode=out.returncode,
            stderr=out.stderr,
            disk_full=spec.disk_full(),
            **launch.evidence(),
        )
    finally:
        launch.close()
    return out.result(reason, disk_quota_mb=spec.disk_quota_mb())


def shell_status(returncode: int) -> int:
    """Python's -N for "killed by signal N" as the shell's 128+N (SandboxResult's rule).

    Under bwrap a signal inside the sandbox already arrives as 128+N (bwrap and timeout
    forward it); only the processes we kill ourselves, or the unsafe backend's, give -N.
    """
    return 128 - returncode if returncode < 0 else returncode


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_monitored(
    cmd: Sequence[str],
    *,
    cwd: str,
    env: dict[str, str],
    stdin: bytes | None,
    timeout_s: float,
    output_cap_chars: int,
    hard_output_bytes: int,
    preexec_fn: Callable[[], None] | None = None,
    pass_fds: Sequence[int] = (),
    on_finish: Callable[[], None] | None = None,
) -> ProcOutcome:
    """Run cmd in its own session; SIGKILL its process group on timeout or at the end.

    on_finish runs after the group kill and before reaping (cgroup sweep goes there).
    """
    start = time.monotonic()
    proc = subprocess.Popen(
        list(cmd),
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # own process group: one killpg reaches every child
        preexec_fn=preexec_fn,
        pass_fds=tuple(pass_fds),
        close_fds=True,
    )
    bufs = {"out": HeadTailBuffer(output_cap_chars), "err": HeadTailBuffer(output_cap_chars)}
    timed_out = output_limited = False
    sel = selectors.DefaultSelector()
    pidfd = os.pidfd_open(proc.pid)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        sel.register(proc.stdout, selectors.EVENT_READ, "out")
        sel.register(proc.stderr, selectors.EVENT_READ, "err")
        sel.register(pidfd, selectors.EVENT_READ, "exit")
        pending = memoryview(stdin or b"")
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE, "in")
        deadline = start + timeout_s
        drain_until: float | None = None  # set once the process is gone or killed

        def stop(now: float) -> None:
            nonlocal drain_until
            kill_group(proc.pid)
            drain_until = now + DRAIN_GRACE_S

        while True:
            readers = [k for k in sel.get_map().values() if k.data in ("out", "err")]
            now = time.monotonic()
            if drain_until is not None and (not readers or now >= drain_until):
                break
            if drain_until is None and now >= deadline:
                timed_out = True
                stop(now)
                continue
            wait = (drain_until if drain_until is not None else deadline) - now
            for key, _ in sel.select(timeout=max(wait, 0.0)):
                if key.data == "exit":
                    sel.unregister(pidfd)
                    drain_until = time.monotonic() + DRAIN_GRACE_S
                elif key.data == "in":
                    try:
                        n = os.write(key.fd, pending[:65536])
                        pending = pending[n:]
                    except (BrokenPipeError, BlockingIOError) as exc:
                        if isinstance(exc, BlockingIOError):
                            continue
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(key.fileobj)
                        # only pipe files are registered with the selector, and they have close()
                        key.fileobj.close()  # type: ignore[union-attr]
                else:
                    data = os.read(key.fd, 65536)
                    if not data:
                        sel.unregister(key.fileobj)
                        continue
                    buf = bufs[key.data]
                    buf.feed(data)
                    if buf.total_bytes > hard_output_bytes and not output_limited:
                        output_limited = True
                        stop(time.monotonic())
    finally:
        sel.close()
        os.close(pidfd)
        # Always sweep the group: background children of a finished command go too.
        kill_group(proc.pid)
        if on_finish is not None:
            on_finish()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                try:
                    stream.close()
                except OSError:
                    pass
        try:
            returncode: int | None = shell_status(proc.wait(timeout=5))
        except subprocess.TimeoutExpired:
            returncode = None
    out, out_el = bufs["out"].finish()
    err, err_el = bufs["err"].finish()
    return ProcOutcome(
        returncode=returncode,
        stdout=out,
        stderr=err,
        stdout_elided=out_el,
        stderr_elided=err_el,
        timed_out=timed_out,
        output_limited=output_limited,
        duration_s=time.monotonic() - start,
    )
