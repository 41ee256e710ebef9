"""Sandbox vocabulary: the result type, the backend ABC, sessions, output capping.

Invariant 4 (DESIGN.md): model-written code and commands run only inside a sandbox.
Backends differ in *where* a command runs (bwrap namespaces vs. a bare subprocess);
everything shared (work dirs and their quotas, output capping, classifying why a run
ended) lives here, with files in/out in workfiles.py and the quota mount in quota.py,
so both backends behave the same from the caller's side.
"""

from __future__ import annotations

import base64
import shutil
import signal
import tempfile
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tether.errors import TetherError

from .quota import DEFAULT_DISK_MB, DiskQuota
from .workfiles import (  # noqa: F401  (re-exported: callers import them from here)
    MAX_FILE_OUT_BYTES,
    MAX_FILES_OUT_COUNT,
    MAX_FILES_OUT_TOTAL_BYTES,
    OmittedFile,
    collect_files,
    stage_files,
)

if TYPE_CHECKING:
    from ._proc import Launch
    from .session import SandboxSession

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
        import codecs

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
    # (terminal-task images, tether.terminal.images); None: the host's /usr and /etc.
    rootfs: Path | None = None

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


class Sandbox(ABC):
    """Runs argv in isolation. Subclasses implement `_launch` (and `_prepare_workdir`)."""

    name: str = "abstract"
    supports_rootfs: bool = False  # can mount a prepared root filesystem (ExecSpec.rootfs)
    default_mount: str = "/work"

    def run(
        self,
        argv: Sequence[str],
        *,
        files: Mapping[str, bytes | str] | None = None,
        workdir: Path | None = None,
        stdin: bytes | str | None = None,
        timeout_s: float = 30,
        memory_mb: int = 512,
        max_procs: int = 64,
        max_file_mb: int = 16,
        network: bool = False,
        env: Mapping[str, str] | None = None,
        disk_mb: int | None = DEFAULT_DISK_MB,
    ) -> SandboxResult:
        """Run argv once in a work dir (a fresh temp dir unless `workdir` is given).

        files are written into the work dir first; files_out holds what is there after.
        disk_mb: a disk quota mounted over the fresh work dir for this run (None or 0:
        none). A caller's `workdir` is the caller's to bound (see DiskQuota).
        """
        if not argv:
            raise ValueError("argv must not be empty")
        owned = workdir is None
        host_dir = Path(tempfile.mkdtemp(prefix="tether-sbx-")) if owned else Path(workdir)
        quota: DiskQuota | None = None
        try:
            if owned and disk_mb:
                quota = DiskQuota(host_dir, disk_mb)
            host_dir.mkdir(parents=True, exist_ok=True)
            stage_files(host_dir, files)
            self._prepare_workdir(host_dir)
            spec = ExecSpec(
                argv=list(argv),
                host_workdir=host_dir,
                mount_at=self.default_mount,
                stdin=as_bytes(stdin),
                timeout_s=timeout_s,
                memory_mb=memory_mb,
                max_procs=max_procs,
                max_file_mb=max_file_mb,
                network=network,
                env=dict(env or {}),
                quota=quota,
            )
            result = self._execute(spec)
            return with_files(result, collect_files(host_dir))
        finally:
            if quota is not None:
                quota.close()
            if owned:
                shutil.rmtree(host_dir, ignore_errors=True)

    def session(
        self,
        workdir: Path | None = None,
        mount_at: str = "/app",
        *,
        ro_binds: Mapping[str, str] | None = None,
        rw_binds: Mapping[str, str] | None = None,
        files: Mapping[str, bytes | str] | None = None,
        memory_mb: int = 512,
        max_procs: int = 64,
        max_file_mb: int = 16,
        network: bool = False,
        env: Mapping[str, str] | None = None,
        keep: bool = False,
        disk_mb: int | None = DEFAULT_DISK_MB,
        quota: DiskQuota | None = None,
        rootfs: Path | None = None,
    ) -> SandboxSession:
        """A work dir that persists across commands (terminal agents, verifiers).

        Without `workdir` the session makes one and mounts a `disk_mb` quota over it for
        the whole session (None or 0: none). With `workdir`, pass the DiskQuota that
        holds it as `quota` (the caller keeps it mounted); disk_mb is then not used.
        rootfs: a root filesystem mounted read-only instead of the host's system (the
        backend must support it: bwrap does, the unsafe subprocess backend refuses).
        """
        from .session import SandboxSession

        return SandboxSession(
            self,
            workdir=workdir,
            mount_at=mount_at,
            ro_binds=dict(ro_binds or {}),
            rw_binds=dict(rw_binds or {}),
            files=files,
            memory_mb=memory_mb,
            max_procs=max_procs,
            max_file_mb=max_file_mb,
            network=network,
            env=dict(env or {}),
            keep=keep,
            disk_mb=disk_mb,
            quota=quota,
            rootfs=rootfs,
        )

    def _prepare_workdir(self, host_dir: Path) -> None:
        """Hook: make host_dir usable by the sandboxed user (bwrap chowns it)."""
        del host_dir  # the default backend runs as ourselves: nothing to do

    def _prepare_binds(
        self, ro_binds: dict[str, str], rw_binds: dict[str, str], scratch: Path
    ) -> tuple[dict[str, str], dict[str, str]]:
        """Hook: adjust extra binds for this backend (bwrap stages unreadable ones)."""
        return ro_binds, rw_binds

    @abstractmethod
    def _launch(self, spec: ExecSpec, *, outer_timeout: bool = True) -> Launch:
        """How this backend starts spec.argv: command line, environment, limits.

        outer_timeout=False leaves out any wall clock of the backend's own (`timeout`):
        a long-lived worker outlives one spec.timeout_s and enforces its per-call
        deadlines itself.
        """

    def _execute(self, spec: ExecSpec) -> SandboxResult:
        """Run spec.argv in spec.host_workdir; files_out is filled in by the caller."""
        from ._proc import execute

        return execute(self._launch(spec), spec)


def with_files(
    result: SandboxResult, collected: tuple[dict[str, bytes], list[OmittedFile]]
) -> SandboxResult:
    from dataclasses import replace

    files, omitted = collected
    return replace(result, files_out=files, files_omitted=tuple(omitted))
