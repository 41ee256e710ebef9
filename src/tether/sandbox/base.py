"""Sandbox vocabulary: the result type, the backend ABC, sessions, output capping.

Invariant 4 (docs/concepts.md): model-written code and commands run only inside a sandbox.
Backends differ in *where* a command runs (bwrap namespaces vs. a bare subprocess);
everything shared (work dirs and their quotas, output capping, classifying why a run
ended) lives here, with files in/out in workfiles.py and the quota mount in quota.py,
so both backends behave the same from the caller's side.
"""

from __future__ import annotations

import shutil
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path

from ._proc import Launch, execute
from .invocation import (  # noqa: F401  (re-exported: callers import them from here)
    DEFAULT_HARD_OUTPUT_BYTES,
    DEFAULT_OUTPUT_CAP_CHARS,
    ExecSpec,
    HeadTailBuffer,
    KilledReason,
    SandboxError,
    SandboxResult,
    SandboxUnavailable,
    as_bytes,
    classify,
    signal_of,
    with_files,
)
from .quota import DEFAULT_DISK_MB, DiskQuota
from .reaper import owned_dir
from .session import SandboxSession
from .workfiles import (  # noqa: F401  (re-exported: callers import them from here)
    MAX_FILE_OUT_BYTES,
    MAX_FILES_OUT_COUNT,
    MAX_FILES_OUT_TOTAL_BYTES,
    OmittedFile,
    collect_files,
    stage_files,
)


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
        as_root: bool = False,
    ) -> SandboxResult:
        """Run argv once in a work dir (a fresh temp dir unless `workdir` is given).

        files are written into the work dir first; files_out holds what is there after.
        disk_mb: a disk quota mounted over the fresh work dir for this run (None or 0:
        none). A caller's `workdir` is the caller's to bound (see DiskQuota).
        as_root: uid 0 inside the sandbox's user namespace (see ExecSpec.as_root).
        """
        if not argv:
            raise ValueError("argv must not be empty")
        owned = workdir is None
        host_dir = owned_dir("sbx") if workdir is None else Path(workdir)
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
                as_root=as_root,
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
        rootfs_writable: bool = False,
        as_root: bool = False,
    ) -> SandboxSession:
        """A work dir that persists across commands (terminal agents, verifiers).

        Without `workdir` the session makes one and mounts a `disk_mb` quota over it for
        the whole session (None or 0: none). With `workdir`, pass the DiskQuota that
        holds it as `quota` (the caller keeps it mounted); disk_mb is then not used.
        rootfs: a root filesystem mounted read-only instead of the host's system (the
        backend must support it: bwrap does, the unsafe subprocess backend refuses);
        rootfs_writable mounts it read-write (a writable layer of the caller's own).
        as_root: commands run as uid 0 inside the sandbox's user namespace, mapped to
        the unprivileged sandbox user outside (bwrap only; see ExecSpec.as_root).
        """
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
            rootfs_writable=rootfs_writable,
            as_root=as_root,
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
        return execute(self._launch(spec), spec)
