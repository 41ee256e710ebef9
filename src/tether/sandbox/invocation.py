"""What one sandboxed invocation is given (ExecSpec) and what it returns (SandboxResult),
with the output capping and the rule for why a run ended that every backend shares.

These are values with no backend behind them: the launcher (_proc.py), sessions and the
backends all build on them, and base.py re-exports them for callers.
"""

from __future__ import annotations

import base64
import codecs
import signal
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from tether.errors import TetherError

from .quota import DiskQuota
from .workfiles import OmittedFile

KilledReason = Literal["timeout", "memory", "max_procs", "output_limit", "file_size", "disk_quota"]

DEFAULT_OUTPUT_CAP_CHARS = 64 * 1024
# Past this many bytes on one stream the command is killed (reason "output_limit"):
# head+tail capping bounds our memory, this bounds the time wasted on e.g. `yes`.
DEFAULT_HARD_OUTPUT_BYTES = 16 * 1024 * 1024


class SandboxError(TetherError, RuntimeError):
    """An infrastructure failure of the sandbox (never a score: invariant 6)."""


class SandboxUnavailable(SandboxError):
    """The requested backend cannot run on this host; `.hint` says what to do."""


@dataclass(frozen=True)
class SandboxResult:
    """What one sandboxed command did.

    returncode: the exit status; a command killed by signal N reports 128+N on every
    backend (the shell's `$?` convention, e.g. 137 for the SIGKILL at a timeout), so it
    cannot be told from `exit 137` by itself: timed_out and killed_reason say why.
    None only if the process could not be reaped.
    files_omitted: files left in the work dir that files_out leaves out (too large, over
    the total or count bound, links), with their size and the reason.
    disk_quota_mb: the work dir's disk quota the command ran under; None when no quota
    was enforced (not asked for, or it could not be mounted: see sandbox/quota.py).
    """

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    killed_reason: KilledReason | None
    duration_s: float
    files_out: dict[str, bytes] = field(default_factory=dict)
    stdout_elided: int = 0
    stderr_elided: int = 0
    files_omitted: tuple[OmittedFile, ...] = ()
    disk_quota_mb: int | None = None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.killed_reason is None

    def to_json(self) -> dict[str, Any]:
        files: dict[str, dict[str, str]] = {}
        for name, data in self.files_out.items():
            try:
                files[name] = {"encoding": "utf-8", "data": data.decode("utf-8")}
            except UnicodeDecodeError:
                files[name] = {"encoding": "base64", "data": base64.b64encode(data).decode()}
        return {
            "returncode": self.returncode,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "timed_out": self.timed_out,
            "killed_reason": self.killed_reason,
            "duration_s": self.duration_s,
            "files_out": files,
            "stdout_elided": self.stdout_elided,
            "stderr_elided": self.stderr_elided,
            "files_omitted": [f.to_json() for f in self.files_omitted],
            "disk_quota_mb": self.disk_quota_mb,
        }


class HeadTailBuffer:
    """Keeps the first and last `cap_chars // 2` characters of a byte stream.

    Decoding is incremental so a multi-byte character split across reads survives,
    and memory stays O(cap) however much the command prints.
    """

    def __init__(self, cap_chars: int = DEFAULT_OUTPUT_CAP_CHARS) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._head_cap = cap_chars // 2
        self._tail_cap = cap_chars - self._head_cap
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self.total_chars = 0
        self.total_bytes = 0

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        self._add(self._decoder.decode(data))

    def _add(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        room = self._head_cap - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if not text:
            return
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail and self._tail_len - len(self._tail[0]) >= self._tail_cap:
            self._tail_len -= len(self._tail.popleft())

    def finish(self) -> tuple[str, int]:
        """Return (text, elided_chars); the text marks where characters were dropped."""
        self._add(self._decoder.decode(b"", final=True))
        head = "".join(self._head)
        tail = "".join(self._tail)
        if len(tail) > self._tail_cap:
            tail = tail[-self._tail_cap :]
        elided = self.total_chars - len(head) - len(tail)
        if elided <= 0:
            return head + tail, 0
        return f"{head}\n... [{elided} characters elided] ...\n{tail}", elided


@dataclass(frozen=True)
class ExecSpec:
    """Everything a backend needs for one invocation (work dir already staged)."""

    argv: list[str]
    host_workdir: Path
    mount_at: str
    stdin: bytes | None
    timeout_s: float
    memory_mb: int
    max_procs: int
    max_file_mb: int
    network: bool
    env: dict[str, str]
    ro_binds: dict[str, str] = field(default_factory=dict)
    rw_binds: dict[str, str] = field(default_factory=dict)
    output_cap_chars: int = DEFAULT_OUTPUT_CAP_CHARS
    hard_output_bytes: int = DEFAULT_HARD_OUTPUT_BYTES
    quota: DiskQuota | None = None  # the mount holding host_workdir, if any
    # A prepared root filesystem mounted read-only in place of the host's system
    # (terminal-task images, tether.systems.terminal.images); None: the host's /usr and /etc.
    rootfs: Path | None = None
    # Mount rootfs's top-level directories read-write: a writable layer of the caller's
    # own (an overlay per attempt), never a shared image.
    rootfs_writable: bool = False
    # Run as uid 0 / gid 0 inside the sandbox's user namespace, which maps only the
    # unprivileged sandbox user (never host root), with no capabilities and chown calls
    # answered as no-ops (tether.sandbox.seccomp): what a container's root can do to its
    # own files, nothing more.
    as_root: bool = False

    def disk_full(self) -> bool:
        return self.quota is not None and self.quota.full()

    def disk_quota_mb(self) -> int | None:
        return self.quota.enforced_mb if self.quota is not None else None


def signal_of(returncode: int | None) -> int | None:
    """The signal that ended a process, from either returncode convention."""
    if returncode is None:
        return None
    if returncode < 0:
        return -returncode
    if 128 < returncode < 128 + 65:
        return returncode - 128
    return None


def classify(
    *,
    timed_out: bool,
    output_limited: bool,
    returncode: int | None,
    stderr: str,
    oom_killed: bool | None = None,
    pids_limited: bool | None = None,
    disk_full: bool = False,
) -> KilledReason | None:
    """Why a run ended early. Kills we did ourselves come first; then limit evidence.

    oom_killed / pids_limited are cgroup counters where available (exact); None means
    "no cgroup", and we fall back to best-effort reading of the exit status and stderr.
    disk_full: the work dir's quota mount was full after a failed command (ENOSPC is
    an errno, not a signal: the mount's usage is the evidence that survives the run).
    """
    if timed_out:
        return "timeout"
    if output_limited:
        return "output_limit"
    if returncode == 0:
        return None
    sig = signal_of(returncode)
    if oom_killed or "MemoryError" in stderr:
        return "memory"
    if sig == signal.SIGXFSZ:
        return "file_size"
    if disk_full:
        return "disk_quota"
    if oom_killed is None and sig == signal.SIGKILL:
        return "memory"  # nobody else SIGKILLs it: rlimit/oom is the likely cause
    if "File too large" in stderr:
        return "file_size"
    if pids_limited or (pids_limited is None and "Resource temporarily unavailable" in stderr):
        return "max_procs"
    return None


def as_bytes(stdin: bytes | str | None) -> bytes | None:
    return stdin.encode() if isinstance(stdin, str) else stdin


def with_files(
    result: SandboxResult, collected: tuple[dict[str, bytes], list[OmittedFile]]
) -> SandboxResult:
    files, omitted = collected
    return replace(result, files_out=files, files_omitted=tuple(omitted))
