"""One warm slot: a bwrap sandbox whose process (_warm_child.py) runs one command at a
time, each in a fresh work directory and from a clean slate (see warm.py, the pool).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._worker_proc import Exchange, WorkerProcess
from .base import (
    DEFAULT_HARD_OUTPUT_BYTES,
    DEFAULT_OUTPUT_CAP_CHARS,
    ExecSpec,
    SandboxError,
    SandboxResult,
    classify,
    with_files,
)
from .bwrap import BwrapSandbox
from .lasting_thread import from_lasting_thread
from .quota import DiskQuota
from .workfiles import collect_files, stage_files

CHILD_SOURCE = (Path(__file__).parent / "_warm_child.py").read_text()
RUN_DIR = "run"
#: how long a slot's interpreter may take to start and say it is ready
START_TIMEOUT_S = 60.0
#: past a command's own deadline, how long the host waits for the slot's reply
#: (the slot kills the command at its deadline itself; this is the backstop)
REPLY_GRACE_S = 10.0
#: rlimits a slot is started with: the most any of its commands may ask for
CEILING_MEMORY_MB = 8192
CEILING_FILE_MB = 4096


class RunFacts(BaseModel):
    """The slot's account of one command (validated: the host acts on none of it but
    the flags, and never on a path)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    returncode: int = Field(ge=0, le=255)
    timed_out: bool
    duration_s: float = Field(ge=0)
    swept: int = Field(ge=0)
    clean: bool
    unclean: list[str] = Field(max_length=20)


@dataclass(frozen=True)
class Limits:
    memory_mb: int
    max_procs: int
    max_file_mb: int


class WarmSlot:
    """One warm bwrap sandbox running one command at a time (see the module doc)."""

    def __init__(self, sandbox: BwrapSandbox, *, disk_mb: int | None, mount_at: str,
                 python: str = "python3", limits: Limits | None = None) -> None:
        self.sandbox = sandbox
        self.mount_at = mount_at
        self.disk_mb = disk_mb
        # the most its commands may ask for (rlimits can be lowered, never raised): the
        # defaults, or more when the command it is started for asks for more
        self.ceiling = Limits(max(CEILING_MEMORY_MB, limits.memory_mb if limits else 0),
                              1 << 15, max(CEILING_FILE_MB, limits.max_file_mb if limits else 0))
        self.root = Path(tempfile.mkdtemp(prefix="tether-warm-"))
        self.quota: DiskQuota | None = None
        self.proc: WorkerProcess | None = None
        self.runs = 0
        try:
            if disk_mb:
                self.quota = DiskQuota(self.root, disk_mb)
            # root's, readable by all: a command may write only into its own run dir
            os.chmod(self.root, 0o755)
            self._start(python)
        except BaseException:
            self.close()
            raise

    def _start(self, python: str) -> None:
        reply_read, reply_write = os.pipe()
        spec = ExecSpec(
            argv=[python, "-c", CHILD_SOURCE, str(reply_write)], host_workdir=self.root,
            mount_at=self.mount_at, stdin=None, timeout_s=START_TIMEOUT_S,
            memory_mb=self.ceiling.memory_mb, max_procs=self.ceiling.max_procs,
            max_file_mb=self.ceiling.max_file_mb, network=False, env={})
        try:
            launch = self.sandbox._launch(spec, outer_timeout=False)
        except BaseException:
            os.close(reply_read)
            os.close(reply_write)
            raise
        self.proc = from_lasting_thread(lambda: WorkerProcess(launch, reply_read, reply_write))
        hello = self._exchange(b"", START_TIMEOUT_S)
        if hello.ended != "reply" or hello.reply is None or not hello.reply.ready:
            raise SandboxError(
                f"the warm sandbox did not start ({hello.ended}): "
                f"{(hello.detail or hello.stderr)[-2000:]}",
                hint=f"check that {python!r} runs inside the bwrap sandbox")

    def _exchange(self, message: bytes, timeout_s: float) -> Exchange:
        assert self.proc is not None
        return self.proc.exchange(message, timeout_s=timeout_s,
                                  output_cap_chars=DEFAULT_OUTPUT_CAP_CHARS,
                                  hard_output_bytes=DEFAULT_HARD_OUTPUT_BYTES,
                                  max_reply_bytes=1 << 20)

    def run(self, argv: Sequence[str], files: Mapping[str, bytes | str] | None,
            stdin: bytes, timeout_s: float, limits: Limits,
            env: Mapping[str, str], python_in_fork: bool = False
            ) -> tuple[SandboxResult, bool]:
        """Run one command; (its result, whether this slot may run another)."""
        assert self.proc is not None
        run_dir = self.root / RUN_DIR
        run_dir.mkdir(mode=0o700)  # fresh: the previous command's was removed after it
        facts: RunFacts | None = None
        before = (0, 0)
        try:
            stage_files(run_dir, files)
            self.sandbox._prepare_workdir(run_dir)
            cgroup = self.proc.launch.cgroup
            if cgroup is not None:
                cgroup.set_limits(limits.memory_mb, limits.max_procs)
                before = cgroup.counters()
            cwd = f"{self.mount_at}/{RUN_DIR}"
            request = json.dumps({
                "id": self.runs, "argv": list(argv), "cwd": cwd,
                "env": {"HOME": cwd, **env}, "timeout_s": timeout_s,
                "stdin_len": len(stdin), "rlimits": self._rlimits(limits, cgroup is None),
                "python_in_fork": python_in_fork,
            }).encode()
            self.runs += 1
            ex = self._exchange(b"%08x\n" % len(request) + request + stdin,
                                timeout_s + REPLY_GRACE_S)
            facts = _facts(ex)
            evidence: dict[str, bool | None] = {"oom_killed": None, "pids_limited": None}
            if cgroup is not None:
                after = cgroup.counters()
                evidence = {"oom_killed": after[0] > before[0],
                            "pids_limited": after[1] > before[1]}
            disk_full = self.quota is not None and self.quota.full()
            returncode = facts.returncode if facts else (137 if ex.ended in (
                "timeout", "output_limit") else None)
            timed_out = bool(facts and facts.timed_out) or ex.ended == "timeout"
            result = SandboxResult(
                returncode=returncode, stdout=ex.stdout, stderr=ex.stderr,
                timed_out=timed_out,
                killed_reason=classify(timed_out=timed_out,
                                       output_limited=ex.ended == "output_limit",
                                       returncode=returncode, stderr=ex.stderr,
                                       disk_full=disk_full, **evidence),
                duration_s=facts.duration_s if facts else 0.0,
                stdout_elided=ex.stdout_elided, stderr_elided=ex.stderr_elided,
                disk_quota_mb=self.quota.enforced_mb if self.quota else None)
            result = with_files(result, collect_files(run_dir))
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)
        reusable = facts is not None and facts.clean and not run_dir.exists()
        return result, reusable

    def _rlimits(self, limits: Limits, no_cgroup: bool) -> dict[str, int]:
        fsize = limits.max_file_mb * 1024 * 1024
        out = {"RLIMIT_FSIZE": fsize, "RLIMIT_CORE": 0, "RLIMIT_MSGQUEUE": 0}
        if no_cgroup:  # as a one-shot run without a cgroup (bwrap.py)
            out["RLIMIT_AS"] = limits.memory_mb * 1024 * 1024
            if self.sandbox.user.drop:
                out["RLIMIT_NPROC"] = limits.max_procs + 3
        return out

    def fits(self, disk_mb: int | None, limits: Limits) -> bool:
        c = self.ceiling
        return disk_mb == self.disk_mb and limits.memory_mb <= c.memory_mb and (
            limits.max_file_mb <= c.max_file_mb)

    def close(self) -> None:
        """End the sandbox (its whole process group and cgroup), unmount, remove."""
        if self.proc is not None:
            self.proc.stop()
            self.proc = None
        if self.quota is not None:
            self.quota.close()
        shutil.rmtree(self.root, ignore_errors=True)


def _facts(ex: Exchange) -> RunFacts | None:
    """The slot's account, or None when there is none (it timed out, flooded its output
    or died: the run killed it, or ran it out of memory). A garbled account from our
    own child is a bug of ours: SandboxError."""
    if ex.ended != "reply":
        if ex.ended == "protocol":
            raise SandboxError(f"the warm sandbox sent a malformed reply: {ex.detail}")
        return None
    reply = ex.reply
    if reply is None or not reply.ok:
        message = reply.message if reply is not None else ""
        raise SandboxError(f"the warm sandbox could not run the command: {message}")
    try:
        return RunFacts.model_validate(reply.value)
    except ValidationError as exc:
        raise SandboxError(f"the warm sandbox sent a malformed account: {exc}") from None
