"""A long-lived sandboxed Python worker: load a program once, call its functions often.

Harness hooks (teacher-written Python called thousands of times) and warm Blender
processes need the same thing: one interpreter inside the sandbox that answers JSON
requests, so each call costs a pipe round trip instead of a sandbox start.

    with SandboxedWorker(BwrapSandbox(), "def add(a, b):\\n    return a + b\\n") as w:
        reply = w.call("add", 1, 2)        # WorkerReply(ok=True, value=3, ...)

The child is started by the backend's own launch (setpriv, bwrap, cgroup or rlimits,
cleared environment; see bwrap.py), so it gets the same isolation as a one-shot run:
no network, read-only system, only the work dir writable, memory and process limits.
It differs in one point: there is no `timeout` wrapper around it, since it lives
across many calls. Each call has a host-side deadline instead, and bwrap's
--die-with-parent ends the worker with its host.

Failure policy: a call that raises keeps the worker (its reply says `raised`); a
timeout, crash, memory kill, output flood or garbled reply kills the whole process
group and the next call starts a new child (`restarts` counts them).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, TypedDict

from ._worker_proc import Exchange, Exit, WorkerProcess
from .base import (
    DEFAULT_HARD_OUTPUT_BYTES,
    DEFAULT_OUTPUT_CAP_CHARS,
    ExecSpec,
    Sandbox,
    SandboxError,
    classify,
)
from .lasting_thread import from_lasting_thread
from .quota import DiskQuota
from .reaper import owned_dir

ErrorKind = Literal[
    "timeout", "crash", "memory", "output_limit", "raised", "unserialisable", "load", "protocol"
]
State = Literal["fresh", "persistent"]
CHILD_SOURCE = (Path(__file__).parent / "_worker_child.py").read_text()


class _Output(TypedDict):
    """What a call printed, as WorkerReply's fields (splatted into each reply)."""

    stdout: str
    stderr: str
    stdout_elided: int
    stderr_elided: int


@dataclass(frozen=True)
class WorkerLimits:
    """Limits of one worker; memory and processes hold for the child's whole life."""

    memory_mb: int = 512  # cgroup memory (or RLIMIT_AS) of the child and its children
    max_procs: int = 64  # processes the program may have at once
    max_file_mb: int = 16  # largest file the program may write
    call_timeout_s: float = 30.0  # default deadline of one call
    start_timeout_s: float = 60.0  # start the interpreter and run the program's top level
    output_cap_chars: int = DEFAULT_OUTPUT_CAP_CHARS  # stdout/stderr kept per call
    hard_output_bytes: int = DEFAULT_HARD_OUTPUT_BYTES  # a call printing more is killed
    max_reply_bytes: int = 64 * 1024 * 1024  # a longer reply line is a protocol error
    #: a filesystem of this size mounted over the worker's own work dir (quota.py);
    #: None: only max_file_mb bounds what the program writes
    disk_mb: int | None = None


@dataclass(frozen=True)
class WorkerReply:
    """The outcome of one call.

    kind says why ok is False: `raised` (the function raised: error_type, message and
    the traceback's tail say what), `unserialisable` (its return value is not JSON),
    `load` (the program itself raised or did not compile), `timeout`, `crash` (the
    child died: exit, signal), `memory` (memory limit: killed, or MemoryError),
    `output_limit` (printed more than hard_output_bytes), `protocol` (garbled reply).
    stdout/stderr are what the call printed, capped head+tail.
    """

    ok: bool
    value: Any = None
    kind: ErrorKind | None = None
    error_type: str = ""
    message: str = ""
    traceback: str = ""
    stdout: str = ""
    stderr: str = ""
    stdout_elided: int = 0
    stderr_elided: int = 0
    duration_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# The worker ends the child after these kinds; after `raised`/`unserialisable` the
# interpreter is intact and stays (a MemoryError, though caught, leaves it doubtful).
_RESTART_KINDS = frozenset({"timeout", "crash", "memory", "output_limit", "protocol"})


class SandboxedWorker:
    """A persistent sandboxed Python process running one program's functions.

    program is Python source defining functions; it is compiled and run once when the
    child starts. call(name, *args) calls program function `name` with JSON args.
    With state="fresh" (the default) every call runs in new module globals (the
    source re-executed), from the start directory, with `random` reseeded, and the
    child has a fixed PYTHONHASHSEED: a result cannot depend on earlier calls, except
    through imported modules' state or files in the work dir, which persist. With
    state="persistent" calls share the globals the program set up at load (counters,
    caches, a loaded model). call(..., fresh=...) overrides the state per call.

    isolate_calls=True (for code called often that must not keep state: harness hooks)
    runs every fresh call in a fork of the loaded interpreter that exits after it, so
    not even module state survives a call, and after each call the host kills every
    process the call left behind (forks, daemons, setsid'd children: the worker's
    process tree, group and cgroup are scanned). Without it, calls share the
    interpreter: not an isolation boundary between calls. All calls share the work
    dir (mounted at mount_at, writable; limits.disk_mb bounds it when the worker made
    it itself). Raises
    SandboxError when the child cannot be started at all (infrastructure failure).
    Thread-safe: calls are serialised.
    """

    def __init__(
        self,
        sandbox: Sandbox,
        program: str,
        *,
        limits: WorkerLimits | None = None,
        state: State = "fresh",
        python: str = "python3",
        filename: str = "program.py",
        hash_seed: int = 0,
        env: Mapping[str, str] | None = None,
        ro_binds: Mapping[str, str] | None = None,
        workdir: Path | None = None,
        mount_at: str = "/work",
        isolate_calls: bool = False,
    ) -> None:
        if state not in ("fresh", "persistent"):
            raise ValueError(f"state must be 'fresh' or 'persistent', not {state!r}")
        self.sandbox = sandbox
        self.program = program
        self.limits = limits or WorkerLimits()
        self.state: State = state
        self.python = python
        self.filename = filename
        self.hash_seed = hash_seed
        self.env = {**dict(env or {}), "PYTHONHASHSEED": str(hash_seed)}
        self.mount_at = mount_at
        self.isolate_calls = isolate_calls
        self._owned = workdir is None
        self.workdir = Path(workdir) if workdir else owned_dir("wrk")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._quota: DiskQuota | None = None
        if self._owned and self.limits.disk_mb is not None:
            self._quota = DiskQuota(self.workdir, self.limits.disk_mb)
        #: processes killed after calls because a call left them behind
        self.strays_killed = 0
        # Staged copies of unreadable ro binds live here (bwrap), removed on close.
        self._scratch = owned_dir("binds")
        self._ro_binds, _ = sandbox._prepare_binds(dict(ro_binds or {}), {}, self._scratch)
        self._proc: WorkerProcess | None = None
        self._load_error: WorkerReply | None = None
        self._lock = threading.Lock()
        self._next_id = 0
        self.starts = 0
        self.closed = False

    @property
    def restarts(self) -> int:
        """Children started after the first one (after a crash, timeout, kill...)."""
        return max(self.starts - 1, 0)

    @property
    def disk_quota_mb(self) -> int | None:
        """The quota in force on the work dir (None: none could be mounted or asked)."""
        return self._quota.enforced_mb if self._quota is not None else None

    @property
    def pid(self) -> int | None:
        """Host pid of the running child's process group leader; None when none runs."""
        return self._proc.pid if self._proc is not None else None

    def call(
        self, name: str, *args: Any, timeout_s: float | None = None, fresh: bool | None = None
    ) -> WorkerReply:
        """Call program function `name` with JSON-serialisable args; never raises for
        what the program does (see WorkerReply.kind), only for infrastructure failures
        (SandboxError) and arguments JSON cannot hold (TypeError/ValueError)."""
        if fresh is None:
            fresh = self.state == "fresh"
        timeout = self.limits.call_timeout_s if timeout_s is None else timeout_s
        with self._lock:
            if self.closed:
                raise SandboxError("worker is closed")
            request_id = self._next_id
            self._next_id += 1
            message = _line({"id": request_id, "name": name, "args": list(args), "fresh": fresh,
                             "isolated": self.isolate_calls})
            if self._load_error is not None:
                return self._load_error  # the same program fails the same way again
            start = time.monotonic()
            reply = self._start() if self._proc is None else None
            if reply is None:
                assert self._proc is not None
                reply = self._reply(self._exchange(self._proc, message, timeout), request_id)
            if self.isolate_calls and self._proc is not None:
                self.strays_killed += self._proc.kill_strays()
        return replace(reply, duration_s=time.monotonic() - start)

    def close(self) -> None:
        """Kill the child (its whole process group) and remove the temp dirs."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            self._stop()
            shutil.rmtree(self._scratch, ignore_errors=True)
            if self._quota is not None:
                self._quota.close()
            if self._owned:
                shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> SandboxedWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> WorkerReply | None:
        """Start a child and load the program; a WorkerReply if that failed."""
        self.starts += 1
        self.sandbox._prepare_workdir(self.workdir)  # e.g. chown to the sandbox user
        reply_read, reply_write = os.pipe()
        spec = ExecSpec(
            argv=[self.python, "-c", CHILD_SOURCE, str(reply_write)],
            host_workdir=self.workdir,
            mount_at=self.mount_at,
            stdin=None,
            timeout_s=self.limits.start_timeout_s,
            memory_mb=self.limits.memory_mb,
            max_procs=self.limits.max_procs,
            max_file_mb=self.limits.max_file_mb,
            network=False,
            env=self.env,
            ro_binds=self._ro_binds,
        )
        try:
            launch = self.sandbox._launch(spec, outer_timeout=False)
        except BaseException:
            os.close(reply_read)
            os.close(reply_write)
            raise
        # forked from a thread that lasts: a worker outlives the thread that first
        # called it (a trial's, a pool's), which --die-with-parent would end it with
        proc = from_lasting_thread(lambda: WorkerProcess(launch, reply_read, reply_write))
        try:
            return self._load(proc)
        except BaseException:
            if self._proc is None:
                proc.stop()
            self._stop()  # nothing half-started outlives an unexpected error
            raise

    def _load(self, proc: WorkerProcess) -> WorkerReply | None:
        """Wait for the child's hello, then load the program into it."""
        timeout = self.limits.start_timeout_s
        hello = self._exchange(proc, b"", timeout)
        if hello.ended != "reply" or hello.reply is None or not hello.reply.ready:
            ended = proc.stop()
            raise SandboxError(
                f"the worker's interpreter did not start ({hello.ended}, exit status "
                f"{ended.returncode}): {(hello.detail or hello.stderr)[-2000:]}",
                hint=f"check that {self.python!r} runs inside the {self.sandbox.name} sandbox",
            )
        load = _line({"op": "load", "source": self.program, "filename": self.filename})
        self._proc = proc
        reply = self._reply(self._exchange(proc, load, timeout), None, loading=True)
        if reply.ok:
            proc.mark_base()
            return None
        if reply.kind == "load":
            self._load_error = reply
            self._stop()
        return reply

    def _exchange(self, proc: WorkerProcess, message: bytes, timeout_s: float) -> Exchange:
        lim = self.limits
        return proc.exchange(
            message,
            timeout_s=timeout_s,
            output_cap_chars=lim.output_cap_chars,
            hard_output_bytes=lim.hard_output_bytes,
            max_reply_bytes=lim.max_reply_bytes,
        )

    def _reply(self, ex: Exchange, request_id: int | None, *, loading: bool = False) -> WorkerReply:
        output = _Output(
            stdout=ex.stdout,
            stderr=ex.stderr,
            stdout_elided=ex.stdout_elided,
            stderr_elided=ex.stderr_elided,
        )
        raw = ex.reply
        if ex.ended == "reply" and raw is not None and raw.id == request_id and (
                raw.ok is not None):
            if raw.ok:
                return WorkerReply(ok=True, value=raw.value, **output)
            failed: ErrorKind | None = raw.kind
            message = raw.message
            if failed == "crash" and self.isolate_calls:
                # an isolated call's fork died; the interpreter that forked it is intact,
                # unless the fork died at the memory limit (the cgroup counts kills)
                if self._proc is not None and self._proc.launch.evidence()["oom_killed"]:
                    failed = "memory"
                    message = f"killed at the memory limit of {self.limits.memory_mb} MB"
            if failed in ("raised", "unserialisable", "memory", "load") or (
                    failed == "crash" and self.isolate_calls):
                if failed in _RESTART_KINDS and failed != "crash":  # a crash: the fork's
                    self._stop()
                if failed == "memory" and f"{self.limits.memory_mb} MB" not in message:
                    # a MemoryError's own text is usually empty: say which limit it was
                    message = f"memory limit of {self.limits.memory_mb} MB reached" + (
                        f" ({message})" if message and message != raw.error_type else "")
                assert failed is not None  # a failure's kind is required by WireReply
                return WorkerReply(
                    ok=False,
                    kind=failed,
                    error_type=raw.error_type,
                    message=message,
                    traceback=raw.traceback,
                    **output,
                )
        # No usable reply: the child is dead or cannot be trusted. End it for good.
        during = " while loading the program" if loading else ""
        kind, message = self._failure(ex)
        return WorkerReply(ok=False, kind=kind, message=message + during, **output)

    def _failure(self, ex: Exchange) -> tuple[ErrorKind, str]:
        ended = self._stop()
        if ex.ended == "timeout":
            return "timeout", "the call did not return before its deadline"
        if ex.ended == "output_limit":
            return "output_limit", f"printed more than {self.limits.hard_output_bytes} bytes"
        if ex.ended in ("protocol", "reply"):
            return "protocol", ex.detail or f"unexpected reply {ex.reply!r}"[:500]
        reason = classify(
            timed_out=False,
            output_limited=False,
            returncode=ended.returncode if ended else None,
            stderr=ex.stderr,
            oom_killed=ended.oom_killed if ended else None,
            pids_limited=ended.pids_limited if ended else None,
        )
        status = ended.returncode if ended else None
        if reason == "memory":
            return "memory", (f"killed at the memory limit of {self.limits.memory_mb} MB "
                              f"(exit status {status})")
        return "crash", f"the worker process died (exit status {status})"

    def _stop(self) -> Exit | None:
        proc, self._proc = self._proc, None
        return proc.stop() if proc is not None else None


def _line(obj: dict[str, Any]) -> bytes:
    """One protocol line; args JSON cannot hold are the caller's error, raised here."""
    return (json.dumps(obj) + "\n").encode()
