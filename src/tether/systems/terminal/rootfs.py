"""Host-side edits of a built image, by descriptor: a link the build left is never followed.

After a build's steps ran, everything in its root filesystem was written by code the
task chose. The host still moves the writable dir out and makes the sandbox's mount
points; it does so walking one component at a time with O_NOFOLLOW, so a step that
turned `/logs` into a link to a host path gets its link replaced, never followed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tether.systems.terminal.build_sandbox import ImageBuildError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(path: str) -> list[str]:
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ImageBuildError(f"{path}: '..' in an image path")
    return parts


def ensure_dir(rootfs: Path, path: str) -> None:
    """Make rootfs/path a real directory; any component that is not one (a link, a file)
    is removed first, without being followed."""
    fd = os.open(rootfs, _DIR_FLAGS)
    try:
        for part in _parts(path):
            try:
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is not None and not stat.S_ISDIR(st.st_mode):
                os.unlink(part, dir_fd=fd)
                st = None
            if st is None:
                os.mkdir(part, 0o755, dir_fd=fd)
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def move_out(rootfs: Path, path: str, dest: Path) -> None:
    """Move the dir rootfs/path to dest (an empty dir when the image has none there)."""
    parts = _parts(path)
    if not parts:
        raise ImageBuildError("the writable dir cannot be the image's root")
    ensure_dir(rootfs, "/".join(parts[:-1]))
    fd = os.open(rootfs, _DIR_FLAGS)
    try:
        for part in parts[:-1]:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
        name = parts[-1]
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            os.rename(name, dest, src_dir_fd=fd)
        else:
            if st is not None:  # a link or a file where the dir should be: not followed
                os.unlink(name, dir_fd=fd)
            dest.mkdir()
        os.mkdir(name, 0o755, dir_fd=fd)
    finally:
        os.close(fd)
