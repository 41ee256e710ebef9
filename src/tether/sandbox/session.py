"""Persistent sandbox sessions: one work dir, many sandboxed commands.

A terminal agent's commands must see each other's files, yet each command is its own
sandbox invocation (fresh namespaces, fresh limits), so nothing but the work dir and
the explicit binds carries over between them. The disk quota is host-side for the same
reason: one mount under the work dir for the whole session (see quota.py).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .invocation import ExecSpec, SandboxError, SandboxResult, as_bytes, with_files
from .quota import DiskQuota
from .reaper import owned_dir
from .workfiles import collect_files, stage_files

if TYPE_CHECKING:  # the backend that runs each command (base.py builds sessions)
    from .base import Sandbox


class SandboxSession:
    """Successive commands sharing one work dir; each is its own sandbox invocation."""

    def __init__(
        self,
        sandbox: Sandbox,
        *,
        workdir: Path | None,
        mount_at: str,
        ro_binds: dict[str, str],
        rw_binds: dict[str, str],
        files: Mapping[str, bytes | str] | None,
        memory_mb: int,
        max_procs: int,
        max_file_mb: int,
        network: bool,
        env: dict[str, str],
        keep: bool,
        disk_mb: int | None = None,
        quota: DiskQuota | None = None,
        rootfs: Path | None = None,
        rootfs_writable: bool = False,
        as_root: bool = False,
    ) -> None:
        self.sandbox = sandbox
        self.mount_at = mount_at
        self._owned = workdir is None
        self._keep = keep
        self._limits = dict(
            memory_mb=memory_mb, max_procs=max_procs, max_file_mb=max_file_mb, network=network
        )
        self._env = env
        self.rootfs = rootfs
        self.rootfs_writable = rootfs_writable
        self.as_root = as_root
        if rootfs is not None and not sandbox.supports_rootfs:
            raise SandboxError(f"the {sandbox.name} sandbox cannot mount a root filesystem",
                               hint="use the bwrap sandbox for image-based tasks")
        self.closed = False
        # a dir to keep is not named by pid: nothing reaps it once this process is gone
        self.workdir = (
            Path(workdir) if workdir is not None
            else Path(tempfile.mkdtemp(prefix="tether-sess-")) if keep
            else owned_dir("sess")
        )
        # A quota we mount is ours to unmount; a caller's quota stays the caller's.
        self.quota = quota
        self._owns_quota = False
        # Staged copies of unreadable ro binds live here, removed on close.
        self._scratch = owned_dir("binds")
        try:
            if self._owned and disk_mb:
                self.quota = DiskQuota(self.workdir, disk_mb)
                self._owns_quota = True
            self.workdir.mkdir(parents=True, exist_ok=True)
            stage_files(self.workdir, files)
            sandbox._prepare_workdir(self.workdir)
            self.ro_binds, self.rw_binds = sandbox._prepare_binds(ro_binds, rw_binds, self._scratch)
        except BaseException:
            self.close()  # a failed setup must not leak temp dirs
            raise

    def run(
        self,
        command: str | Sequence[str],
        *,
        timeout_s: float = 30,
        stdin: bytes | str | None = None,
        env: Mapping[str, str] | None = None,
        collect: bool = False,
    ) -> SandboxResult:
        """Run a shell command string (via bash -c) or an argv list in the session.

        files_out is only collected with collect=True: the caller can read `.workdir`.
        """
        if self.closed:
            raise SandboxError("session is closed")
        if isinstance(command, str):
            shell = "/bin/bash" if Path("/bin/bash").exists() else "/bin/sh"
            argv = [shell, "-c", command]
        else:
            argv = list(command)
        # Re-chown: a previous command or the host may have added root-owned files.
        self.sandbox._prepare_workdir(self.workdir)
        spec = ExecSpec(
            argv=argv,
            host_workdir=self.workdir,
            mount_at=self.mount_at,
            stdin=as_bytes(stdin),
            timeout_s=timeout_s,
            env={**self._env, **dict(env or {})},
            ro_binds=self.ro_binds,
            rw_binds=self.rw_binds,
            quota=self.quota,
            rootfs=self.rootfs,
            rootfs_writable=self.rootfs_writable,
            as_root=self.as_root,
            # _limits holds ExecSpec's int limit keywords (memory_mb, max_procs, ...)
            **self._limits,  # type: ignore[arg-type]
        )
        result = self.sandbox._execute(spec)
        return with_files(result, collect_files(self.workdir)) if collect else result

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        shutil.rmtree(self._scratch, ignore_errors=True)
        try:
            if self._owns_quota and self.quota is not None:
                # keep: the files are copied out of the mount so they outlive it.
                self.quota.close(preserve=self._keep)
        finally:
            if self._owned and not self._keep:
                shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> SandboxSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
