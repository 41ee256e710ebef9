"""The sandbox an image build's steps run in: as unprivileged as the runs themselves.

Every step that touches the image after it is unpacked (RUN, COPY, WORKDIR, the
verifier's venv) runs as:

  setpriv --reuid=BUILD_USER ...        a dedicated unprivileged host user, never root
  bwrap --unshare-all --unshare-user    own user, pid, ipc, uts, cgroup and network
        --uid 0 --gid 0 --cap-drop ALL  namespaces: "root" inside, no capabilities
        --seccomp FD                    chown family answers success without acting
        --bind ROOTFS /                 the image, owned by the build user meanwhile
        --ro-bind RUNDIR /run/tether-build   proxy socket, forwarder, apt config, caches
  /bin/sh /run/tether-build/step.sh WORKDIR COMMAND

With no capabilities, `mount` fails, `open_by_handle_at` fails (it needs
CAP_DAC_READ_SEARCH in the host's namespace), the host's loopback is another network
namespace, and the only way out is the mirror proxy (`tether.systems.terminal.build_proxy`).
Package managers chown files to system users (`_apt`, `man`, ...); in one mapped uid
that is impossible, so the seccomp filter makes those calls succeed as no-ops, the
`ignore_chown_errors` of rootless container builds. The image is chowned to the build
user before its first step and back to root after its last (by descriptor, never
following a link the build planted), the non-root owners and set-id modes of the base
restored.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tether.errors import TetherError
from tether.sandbox import SandboxUser, ensure_sandbox_user, fake_chown_filter

BUILD_USER = "tether-build"
RUN_DIR = "/run/tether-build"
BUILD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"



class ImageBuildError(TetherError):
    """An image could not be built (an infrastructure error, never a task's score)."""


# Each step: make and enter its WORKDIR, then run under the forwarder when the image has
# python3 (an image without it has no network at build time, which the log says).
STEP_SH = f"""\
mkdir -p "$1" && cd "$1" || exit 1
if [ -x /usr/bin/python3 ]; then
  exec /usr/bin/python3 -I {RUN_DIR}/forward.py /bin/sh -c "$2"
fi
echo "tether: no /usr/bin/python3 in the image: this step has no network" >&2
exec /bin/sh -c "$2"
"""

@dataclass(frozen=True)
class Owner:
    uid: int
    gid: int
    mode: int | None  # kept only where a chown would clear set-id bits


def take_ownership(rootfs: Path, user: SandboxUser) -> dict[str, Owner]:
    """Chown the freshly unpacked image to the build user; returns what to restore."""
    recorded: dict[str, Owner] = {}
    for rel, dir_fd, name, st in _walk(rootfs):
        setid = stat.S_ISREG(st.st_mode) and st.st_mode & (stat.S_ISUID | stat.S_ISGID)
        if st.st_uid or st.st_gid or setid:
            recorded[rel] = Owner(st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode) if setid
                                  else None)
        os.chown(name, user.uid, user.gid, dir_fd=dir_fd, follow_symlinks=False)
    os.chown(rootfs, user.uid, user.gid)
    return recorded


def give_back_ownership(rootfs: Path, recorded: Mapping[str, Owner]) -> None:
    """Everything to root (the base's own owners and set-id modes back where they were)."""
    os.chown(rootfs, 0, 0)
    for rel, dir_fd, name, st in _walk(rootfs):
        owner = recorded.get(rel, Owner(0, 0, None))
        os.chown(name, owner.uid, owner.gid, dir_fd=dir_fd, follow_symlinks=False)
        if owner.mode is not None and stat.S_ISREG(st.st_mode):
            # not a link (checked above) and no build process is left to swap it
            os.chmod(name, owner.mode, dir_fd=dir_fd)


def _walk(root: Path) -> Iterator[tuple[str, int, str, os.stat_result]]:
    """(relative path, dir fd, name, lstat) of every entry under root, by descriptor:
    a symlink is never followed, wherever it points."""
    for dirpath, dirnames, filenames, dir_fd in os.fwalk(root, follow_symlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        for name in dirnames + filenames:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            yield rel, dir_fd, name, st


class BuildSandbox:
    """Runs one build step over a rootfs; `run` returns the step's exit status."""

    def __init__(self, bwrap: str, *, user: SandboxUser | None = None) -> None:
        self.bwrap = bwrap
        self.user = user or ensure_sandbox_user(BUILD_USER)
        self.setpriv = shutil.which("setpriv")
        if self.user.drop and self.setpriv is None:
            raise FileNotFoundError("setpriv (util-linux) is needed to drop root for builds")
        self.seccomp = fake_chown_filter()

    def argv(self, rootfs: Path, run_dir: Path, binds: Mapping[str, str],
             env: Mapping[str, str]) -> list[str]:
        """The full command line of one step (before the step's own two arguments)."""
        prefix = [self.setpriv or "setpriv", f"--reuid={self.user.uid}",
                  f"--regid={self.user.gid}", "--clear-groups", "--"] if self.user.drop else []
        argv = [*prefix, self.bwrap, "--unshare-all", "--unshare-user", "--uid", "0",
                "--gid", "0", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
                "--bind", str(rootfs), "/", "--dev", "/dev", "--proc", "/proc",
                "--perms", "1777", "--tmpfs", "/tmp", "--tmpfs", "/run",
                "--ro-bind", str(run_dir), RUN_DIR]
        for host, inside in binds.items():
            argv += ["--ro-bind", host, inside]
        argv += ["--clearenv"]
        for key, value in env.items():
            argv += ["--setenv", key, value]
        if self.seccomp is not None:
            argv += ["--seccomp", "{seccomp_fd}"]
        return argv

    def run(self, rootfs: Path, run_dir: Path, workdir: str, command: str, *,
            env: Mapping[str, str], binds: Mapping[str, str] | None = None,
            log: TextIO, timeout_s: float) -> int:
        """Run `command` (a shell string) in WORKDIR of rootfs; raises
        subprocess.TimeoutExpired past timeout_s (the whole sandbox dies with bwrap)."""
        argv = self.argv(rootfs, run_dir, binds or {}, env)
        fds: tuple[int, ...] = ()
        if self.seccomp is not None:
            fd = os.memfd_create("tether-build-seccomp", 0)
            os.write(fd, self.seccomp)
            os.lseek(fd, 0, os.SEEK_SET)
            fds = (fd,)
            argv = [str(fd) if a == "{seccomp_fd}" else a for a in argv]
        argv += ["--", "/bin/sh", f"{RUN_DIR}/step.sh", workdir, command]
        print(f"$ {' '.join(argv)}", file=log, flush=True)
        try:
            proc = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, pass_fds=fds,
                                  timeout=timeout_s, env={"PATH": BUILD_PATH, "LANG": "C.UTF-8"})
        finally:
            for fd in fds:
                os.close(fd)
        return proc.returncode


__all__ = ["BUILD_USER", "RUN_DIR", "STEP_SH", "BuildSandbox", "ImageBuildError", "Owner",
           "fake_chown_filter", "give_back_ownership", "take_ownership"]
