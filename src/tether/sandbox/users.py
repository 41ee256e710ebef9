"""The dedicated unprivileged user the bwrap backend drops to.

Running bwrap as root with --uid is not isolation (the namespace maps back to real
root), so as root we setpriv to this user first. A dedicated uid also makes
RLIMIT_NPROC meaningful: it counts only sandboxed processes.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from .base import SandboxUnavailable

SANDBOX_USER = "tether-sandbox"
_lock = threading.Lock()


@dataclass(frozen=True)
class SandboxUser:
    name: str
    uid: int
    gid: int
    drop: bool  # True when we are root and must setpriv to (uid, gid)


def ensure_sandbox_user(name: str = SANDBOX_USER) -> SandboxUser:
    """Return the user to run as, creating `name` on first use when we are root."""
    if os.geteuid() != 0:
        # Already unprivileged: bwrap's user namespace gives isolation as ourselves.
        return SandboxUser(pwd.getpwuid(os.getuid()).pw_name, os.getuid(), os.getgid(), False)
    with _lock:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            useradd = shutil.which("useradd") or "/usr/sbin/useradd"
            proc = subprocess.run(
                [useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                capture_output=True,
                text=True,
            )
            # exit 9: created concurrently by another process; fine.
            if proc.returncode not in (0, 9):
                raise SandboxUnavailable(
                    f"could not create sandbox user {name!r}: {proc.stderr.strip()} "
                    "(create it with `useradd --system --no-create-home "
                    f"--shell /usr/sbin/nologin {name}`)"
                ) from None
            entry = pwd.getpwnam(name)
    if entry.pw_uid == 0:
        raise SandboxUnavailable(f"sandbox user {name!r} has uid 0; refusing to use it")
    return SandboxUser(name, entry.pw_uid, entry.pw_gid, True)


def chown_tree(path: Path, user: SandboxUser) -> None:
    """Give the sandbox user the work dir (without following links planted inside)."""
    if not user.drop:
        return
    os.chown(path, user.uid, user.gid, follow_symlinks=False)
    for root, dirs, files in os.walk(path, followlinks=False):
        for name in dirs + files:
            os.chown(os.path.join(root, name), user.uid, user.gid, follow_symlinks=False)


def reachable_by(path: Path, user: SandboxUser, *, write: bool = False) -> bool:
    """Whether `user` can traverse to (and read, or write) path, judged by mode bits.

    os.access is useless here: as root it always says yes.
    """
    if not user.drop:
        return True
    path = path.resolve()
    for anc in [*reversed(path.parents), path]:
        st = anc.stat()
        if anc != path:
            need = 0o1  # search permission on every ancestor
        elif anc.is_dir():
            need = 0o3 if write else 0o5
        else:
            need = 0o2 if write else 0o4
        if st.st_uid == user.uid:
            bits = (st.st_mode >> 6) & 0o7
        elif st.st_gid == user.gid:
            bits = (st.st_mode >> 3) & 0o7
        else:
            bits = st.st_mode & 0o7
        if bits & need != need:
            return False
    return True
