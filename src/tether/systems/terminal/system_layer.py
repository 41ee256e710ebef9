"""A writable system of its own for each attempt on an imported task's image.

In its container a Terminal-Bench task's commands run as root over a writable root
filesystem: `apt-get install` and `pip install` change /usr, /etc and /var. Here the
commands run as root inside the sandbox's user namespace (`ExecSpec.as_root`), which
maps only the unprivileged sandbox user, so "root" owns exactly what the sandbox user
owns. Two pieces give such a root a system to change without changing the image:

- `owned_base(rootfs, user)`: a copy of the image's root filesystem owned by the
  sandbox user (so it reads as root's inside), made once per image and user beside the
  image (`rootfs-as-UID/`, with a stamp of the rootfs it copies: a rebuilt image makes
  a new copy). It also gets apt's setting not to drop to the `_apt` user, which needs a
  capability the sandbox never has (`APT_SANDBOX_CONF`).
- `SystemLayer`: a host overlayfs over that copy per attempt, its upper and work dirs
  under the attempt's own directory (inside its disk quota), mounted at `system/` and
  bound read-write as the sandbox's root filesystem; unmounted and removed at the end.
  The verifier sees the attempt's system through the same mount, read-only.

Mounting an overlay needs host root, as the disk quota does; `available()` says whether
this host can. Without it the image stays read-only and commands still run as root in
their namespace (see docs/terminal/index.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tether.sandbox import SandboxError, SandboxUser

logger = logging.getLogger(__name__)

#: apt inside the layer: no drop to `_apt` (setgroups needs a capability), and one
#: request per connection (what the registry proxy checks one by one)
APT_SANDBOX_CONF = """\
// tether: commands run as root of their own user namespace, without capabilities,
// so apt cannot switch to the _apt user to download.
APT::Sandbox::User "root";
Acquire::http::Pipeline-Depth "0";
"""
APT_SANDBOX_FILE = "etc/apt/apt.conf.d/00tether-sandbox"
STAMP = ".tether-base"
_TOOL_PATH = "/usr/sbin:/sbin:/usr/bin:/bin"
_MNT_DETACH = 2


def available() -> bool:
    """Whether this host can mount an overlay per attempt (root, overlayfs known)."""
    if os.geteuid() != 0:
        return False
    try:
        return "overlay" in Path("/proc/filesystems").read_text()
    except OSError:
        return False


def _stamp(rootfs: Path) -> str:
    st = rootfs.stat()
    return f"{st.st_dev}:{st.st_ino}:{st.st_mtime_ns}\n"


def owned_base(rootfs: Path, user: SandboxUser) -> Path:
    """The sandbox user's copy of `rootfs` (see the module docstring), made if missing."""
    target = rootfs.parent / f"rootfs-as-{user.uid}"
    stamp = _stamp(rootfs)
    if _current(target, stamp):
        return target
    with open(rootfs.parent / f"rootfs-as-{user.uid}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _current(target, stamp):
            return target
        partial = Path(tempfile.mkdtemp(prefix=f"rootfs-as-{user.uid}.", dir=rootfs.parent))
        try:
            copy = partial / "rootfs"
            proc = subprocess.run(["cp", "-a", "--reflink=auto", str(rootfs), str(copy)],
                                  capture_output=True, text=True, env={"PATH": _TOOL_PATH})
            if proc.returncode != 0:
                raise SandboxError(f"could not copy the image {rootfs} for the attempt's "
                                   f"writable layer: {proc.stderr.strip()[:300]}")
            _chown_all(copy, user)
            apt = copy / APT_SANDBOX_FILE
            if apt.parent.is_dir() and not apt.parent.is_symlink():
                apt.write_text(APT_SANDBOX_CONF, encoding="utf-8")
                os.chown(apt, user.uid, user.gid)
            (copy / STAMP).write_text(stamp, encoding="utf-8")
            old = None
            if target.exists():
                old = Path(tempfile.mkdtemp(prefix=f"rootfs-as-{user.uid}.old.",
                                            dir=rootfs.parent))
                target.rename(old / "rootfs")
            copy.rename(target)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    return target


def _current(target: Path, stamp: str) -> bool:
    try:
        return (target / STAMP).read_text(encoding="utf-8") == stamp
    except OSError:
        return False


def _chown_all(root: Path, user: SandboxUser) -> None:
    """Every entry to the sandbox user, by descriptor (a link is never followed)."""
    os.chown(root, user.uid, user.gid, follow_symlinks=False)
    for _dirpath, dirnames, filenames, dir_fd in os.fwalk(root, follow_symlinks=False):
        for name in dirnames + filenames:
            os.chown(name, user.uid, user.gid, dir_fd=dir_fd, follow_symlinks=False)


_warned = False


def attempt_layer(rootfs: Path, where: Path, user: SandboxUser) -> SystemLayer | None:
    """A mounted layer over `rootfs` for one attempt (at `where`), or None where this
    host cannot mount one (warned once: the image then stays read-only)."""
    global _warned
    if not rootfs.is_dir():
        raise SandboxError(f"root filesystem {rootfs} is missing",
                           hint="build the image again (tether tasks import)")
    if not available():
        if not _warned:
            _warned = True
            logger.warning("no writable system layer for image-based attempts (overlay "
                           "mounts need root on the host): the image stays read-only")
        return None
    layer = SystemLayer(owned_base(rootfs, user), where, user)
    layer.mount()
    return layer


class SystemLayer:
    """One attempt's overlay over an owned base; `mount()` returns the merged root."""

    def __init__(self, base: Path, where: Path, user: SandboxUser) -> None:
        self.base = base
        self.where = where
        self.user = user
        self.root = where / "system"
        self._mounted = False

    def mount(self) -> Path:
        for p in (self.base, self.where):
            if any(c in str(p) for c in ",:\\"):
                raise SandboxError(f"{p}: a path with ',', ':' or '\\\\' cannot be an "
                                   "overlay layer", hint="keep images and work dirs under "
                                                         "plain paths")
        upper, work = self.where / "upper", self.where / "work"
        for d in (upper, work, self.root):
            d.mkdir(parents=True, exist_ok=True)
        # the merged root takes its owner from the upper dir's: root's, inside
        os.chown(upper, self.user.uid, self.user.gid)
        self.where.chmod(0o755)
        options = f"lowerdir={self.base},upperdir={upper},workdir={work}"
        proc = subprocess.run(["mount", "-t", "overlay", "overlay", "-o", options,
                               str(self.root)], capture_output=True, text=True,
                              env={"PATH": _TOOL_PATH})
        if proc.returncode != 0:
            raise SandboxError(f"could not mount the attempt's writable layer: "
                               f"{proc.stderr.strip()[:300]}",
                               hint="overlayfs mounts need root on the host")
        self._mounted = True
        return self.root

    def close(self) -> None:
        """Unmount (lazily, so a straggler cannot keep it busy) and remove the layer."""
        if self._mounted:
            self._mounted = False
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.umount2(str(self.root).encode(), _MNT_DETACH) != 0:
                logger.warning("could not unmount %s: %s", self.root,
                               os.strerror(ctypes.get_errno()))
                return  # never delete through a mount that is still there
        with contextlib.suppress(OSError):
            shutil.rmtree(self.where)
