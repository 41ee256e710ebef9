"""Disk quotas for sandbox work dirs: a size-limited filesystem mounted on the host.

RLIMIT_FSIZE caps the size of one file, but not `fallocate -n` (KEEP_SIZE never grows
the size it checks) nor the sum of many files. Only a filesystem of bounded size stops
every syscall, so the work dir is a mount point: an ext4 image on a loop device.

Why a loop-mounted image rather than tmpfs `size=`:
- tmpfs pages live in RAM (or swap, where there is any) and are charged to the memory cgroup of the
  command that writes them: a 600 MB file in a 512 MB sandbox would read as an OOM kill
  instead of a full disk, and a 1 GiB quota per parallel session would be 1 GiB of RAM.
- The image is a sparse file: the host pays only for the blocks in use, never more than
  the image size; `discard` hands the blocks of deleted files back to the host.
- Cost per quota: a mount(8), an umount and removing the image (tens of milliseconds,
  more on a loaded host: benchmarks/bench_sandbox.py); mkfs runs once per process and
  size, into a template that each quota copies.

The quota lives on the host side, so it outlasts the per-command bwrap namespaces: a
session's commands share one mount. ext4 metadata takes a few percent of the image,
so slightly less than `size_mb` is writable; the host never pays more than `size_mb`.

Mounting needs root. Without it, or when mkfs/mount fail, the quota is not enforced:
we warn once per process, RLIMIT_FSIZE still caps each file, and `enforced_mb` is None
(results report it as `disk_quota_mb=None`).
"""

from __future__ import annotations

import atexit
import ctypes
import errno
import logging
import os
import shutil
import subprocess
import threading
import warnings
from pathlib import Path

from .reaper import owned_dir, owned_file
from .tree_copy import copy_tree

logger = logging.getLogger(__name__)

DEFAULT_DISK_MB = 1024
# One inode per 8 KiB: room for a node_modules-sized tree of small files; a run out
# of inodes is a full disk too (full() checks both).
_MKFS_ARGS = ("-q", "-F", "-m", "0", "-O", "^has_journal", "-i", "8192",
              "-E", "lazy_itable_init=1,nodiscard")  # fmt: skip
_MOUNT_OPTS = "loop,discard,nosuid,nodev"
_TOOL_PATH = "/usr/sbin:/sbin:/usr/bin:/bin"
_MNT_DETACH = 2
_warned = False
_templates: dict[int, Path] = {}
_templates_lock = threading.Lock()


class DiskQuotaWarning(UserWarning):
    """A disk quota was asked for but could not be mounted (not enforced)."""


def _warn_once(reason: str) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    msg = (
        f"sandbox disk quota not enforced ({reason}); only the per-file size limit "
        "(RLIMIT_FSIZE) bounds what a command writes"
    )
    logger.warning(msg)
    warnings.warn(msg, DiskQuotaWarning, stacklevel=3)


def _template(mkfs: str, size_mb: int, env: dict[str, str]) -> Path:
    """A fresh ext4 image of size_mb, made once per process and size.

    Each quota mounts a copy: copying its few hundred KB of metadata is cheaper than
    running mkfs (and its fsync) per quota. ext4 tolerates the repeated UUID.
    """
    with _templates_lock:
        path = _templates.get(size_mb)
        if path is not None and path.exists():
            return path
        fd, path = owned_file("qtemplate", ".img")  # named by pid: reaped after a kill -9
        name = str(path)
        try:
            os.ftruncate(fd, size_mb * 1024 * 1024)  # sparse: costs nothing yet
        finally:
            os.close(fd)
        proc = subprocess.run([mkfs, *_MKFS_ARGS, name], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            os.unlink(name)
            raise OSError(f"mkfs.ext4 failed: {proc.stderr.strip() or proc.returncode}")
        if not _templates:
            atexit.register(_drop_templates)
        _templates[size_mb] = Path(name)
        return Path(name)


def _drop_templates() -> None:
    for path in _templates.values():
        path.unlink(missing_ok=True)


def _sparse_copy(src: Path, dst_fd: int) -> None:
    """Copy src's data extents only, so the copy stays as sparse as the original."""
    with open(src, "rb") as fh:
        fd, end = fh.fileno(), os.fstat(fh.fileno()).st_size
        offset = 0
        while offset < end:
            try:
                start = os.lseek(fd, offset, os.SEEK_DATA)
            except OSError as exc:  # ENXIO: no data past offset
                if exc.errno == errno.ENXIO:
                    break
                raise
            stop = os.lseek(fd, start, os.SEEK_HOLE)
            pos = start
            while pos < stop:
                n = os.copy_file_range(fd, dst_fd, stop - pos, pos, pos)
                if n == 0:
                    break
                pos += n
            offset = stop
        os.ftruncate(dst_fd, end)


def _umount(path: Path) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    target = os.fsencode(path)
    if libc.umount2(target, 0) == 0:
        return
    # EBUSY (a straggler still holds a file): detach now, the kernel frees it later.
    if libc.umount2(target, _MNT_DETACH) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"umount {path}: {os.strerror(err)}")


def is_mounted(path: Path) -> bool:
    """Whether path is a mount point (read from /proc/self/mounts, octal escapes and all)."""
    want = str(path).replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011")
    with open("/proc/self/mounts") as fh:
        return any(line.split()[1] == want for line in fh if len(line.split()) > 1)


class DiskQuota:
    """A size-limited filesystem mounted over an empty directory until `close()`."""

    def __init__(self, path: Path, size_mb: int) -> None:
        """Mount a `size_mb` filesystem over `path` (created if missing; must be empty).

        Never raises for a mount that is not permitted: `enforced_mb` is then None.
        """
        self.path = Path(path)
        self.size_mb = size_mb
        self.image: Path | None = None
        self.reason_unenforced: str | None = None
        self.closed = False
        self.path.mkdir(parents=True, exist_ok=True)
        if any(self.path.iterdir()):
            raise ValueError(f"a disk quota mounts over an empty dir; {path} has files")
        self.reason_unenforced = self._mount()
        if self.reason_unenforced is not None:
            _warn_once(self.reason_unenforced)

    def _mount(self) -> str | None:
        """Mount, or return why not."""
        if os.geteuid() != 0:
            return "mounting needs root"
        mkfs = shutil.which("mkfs.ext4", path=_TOOL_PATH)
        mount = shutil.which("mount", path=_TOOL_PATH)
        if mkfs is None or mount is None:
            return "mkfs.ext4 or mount not found"
        env = {"PATH": _TOOL_PATH, "LANG": "C"}
        try:
            template = _template(mkfs, self.size_mb, env)
        except OSError as exc:
            return str(exc)
        # named by pid: a process killed with its quota mounted is reaped at the next start
        fd, image = owned_file("quota", ".img")
        try:
            _sparse_copy(template, fd)
        except OSError as exc:  # e.g. the host disk itself is full
            image.unlink(missing_ok=True)
            return f"copying the image failed: {exc}"
        finally:
            os.close(fd)
        cmd = [mount, "-o", _MOUNT_OPTS, str(image), str(self.path)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            image.unlink(missing_ok=True)
            return f"mount failed: {proc.stderr.strip() or proc.returncode}"
        self.image = image
        # The sandbox sees this dir as /app or /work: no root-owned lost+found in it.
        (self.path / "lost+found").rmdir()  # an empty dir we just made: cannot fail
        return None

    @property
    def enforced_mb(self) -> int | None:
        """The quota in force, or None when it could not be mounted."""
        return self.size_mb if self.image is not None and not self.closed else None

    def full(self) -> bool:
        """Whether the mount is (all but) out of blocks or inodes."""
        if self.enforced_mb is None:
            return False
        st = os.statvfs(self.path)
        free = st.f_bavail * st.f_frsize
        # ext4 refuses writes a little before 0 free (reservations for delayed allocation).
        slack = max(1024 * 1024, st.f_blocks * st.f_frsize // 200)
        return free < slack or (st.f_files > 0 and st.f_favail == 0)

    def host_bytes(self) -> int:
        """Host disk the image takes now (its allocated blocks; 0 if not enforced)."""
        return self.image.stat().st_blocks * 512 if self.image is not None else 0

    def close(self, *, preserve: bool = False) -> None:
        """Unmount and delete the image. preserve=True first copies the contents out,
        so they stay at `path` as plain host files (bounded by the quota)."""
        if self.closed:
            return
        self.closed = True
        if self.image is None:
            return
        staging: Path | None = None
        try:
            if preserve:
                staging = owned_dir("quota-keep")
                copy_tree(self.path, staging, keep_owner=True)
            _umount(self.path)
            if staging is not None:
                for entry in staging.iterdir():
                    shutil.move(entry, self.path / entry.name)
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            self.image.unlink(missing_ok=True)

    def __enter__(self) -> DiskQuota:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
