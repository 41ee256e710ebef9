"""A seccomp program for sandboxes that run as root inside their own user namespace.

Such a sandbox maps one host uid (the unprivileged sandbox user) to uid 0 and nothing
else, so a chown to any other user (`_apt`, `man`, a package's service account) fails
with EINVAL, and package managers stop on it. `fake_chown_filter` makes the chown family
answer success without acting, the `ignore_chown_errors` of rootless container builds:
the file keeps its owner, the one uid the namespace has. Image builds
(tether.systems.terminal.build_sandbox) and terminal attempts that run as root use it.
"""

from __future__ import annotations

import os
import platform
import struct

# syscall numbers of chown, fchown, lchown, fchownat per audit arch
_CHOWN_CALLS = {"x86_64": (0xC000003E, (92, 93, 94, 260)),
                "aarch64": (0xC00000B7, (55, 54))}  # fmt: skip


def fake_chown_filter(machine: str | None = None) -> bytes | None:
    """A classic-BPF seccomp program: chown calls return 0 without acting, all else runs.

    None on an architecture we have no syscall table for (the sandbox then runs without
    it, and a package that chowns to a system user fails to install).
    """
    entry = _CHOWN_CALLS.get(machine or platform.machine())
    if entry is None:
        return None
    arch, calls = entry
    ld_abs, jeq, ret = 0x20, 0x15, 0x06
    allow, errno0 = 0x7FFF0000, 0x00050000  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 0
    n = len(calls)
    prog = [(ld_abs, 0, 0, 4),  # seccomp_data.arch
            (jeq, 0, n + 1, arch),  # another ABI: allow (to the ALLOW return)
            (ld_abs, 0, 0, 0)]  # seccomp_data.nr
    for i, nr in enumerate(calls):
        prog.append((jeq, n - i, 0, nr))  # to the ERRNO(0) return
    prog += [(ret, 0, 0, allow), (ret, 0, 0, errno0)]
    return b"".join(struct.pack("<HBBI", *ins) for ins in prog)


def filter_fd(program: bytes) -> int:
    """A memfd holding `program`, at offset 0, for `bwrap --seccomp FD` (caller closes)."""
    fd = os.memfd_create("tether-seccomp", 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
