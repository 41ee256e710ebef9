"""The disk an image build may take, and the image store's ceiling.

A build runs a task's own RUN steps, as root in its image: a `head -c 3G /dev/zero` there
would fill the host's disk as surely as at run time, where every attempt has a quota.
So each build writes into a quota of its own (`BuildQuota`: a loop-mounted filesystem of
`build_disk_mb`, tether.sandbox.DiskQuota) and the finished image is copied out of it;
a build that fills it fails in one line naming the quota and how to raise it.

- DEFAULT_BUILD_DISK_MB (6 GiB): Terminal-Bench 2 images reach about 2 GB, and a
  build's peak (the base, apt's downloaded packages and pip's wheels beside what they
  install) is well over the image it leaves. A task raises it in its `task.toml`:
  `[environment] build_disk_mb = 12000`, at most MAX_BUILD_DISK_MB.
- DEFAULT_STORE_GB (64 GB, `TETHER_IMAGE_STORE_GB` to change it): the most the images
  of one image dir may take together. A build that could take the store past it is
  refused before it starts, naming what to remove.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tether.errors import ConfigError
from tether.sandbox import DiskQuota
from tether.systems.terminal.build_sandbox import ImageBuildError

__all__ = ["DEFAULT_BUILD_DISK_MB", "DEFAULT_STORE_GB", "MAX_BUILD_DISK_MB", "BuildQuota",
           "check_store", "store_ceiling_gb", "store_bytes", "tree_bytes"]

DEFAULT_BUILD_DISK_MB = 6144
MAX_BUILD_DISK_MB = 65536
DEFAULT_STORE_GB = 64.0
STORE_ENV = "TETHER_IMAGE_STORE_GB"
_GB = 2**30


def store_ceiling_gb() -> float:
    """The image store's ceiling: `TETHER_IMAGE_STORE_GB`, else DEFAULT_STORE_GB."""
    raw = os.environ.get(STORE_ENV)
    if raw is None:
        return DEFAULT_STORE_GB
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ConfigError(f"{STORE_ENV}={raw!r}: expected a positive number of GB")
    return value


def tree_bytes(top: Path) -> int:
    """Disk blocks in use under `top` (links not followed, each inode counted once)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in dirnames + filenames:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


def store_bytes(images: Path) -> int:
    """What the built images under `images` take: each image's recorded size (its
    image.json `bytes`), or, for one built before sizes were recorded, its tree."""
    from tether.textio import read_json

    total = 0
    if not images.is_dir():
        return 0
    for entry in images.iterdir():
        if not entry.is_dir() or entry.name.endswith(".partial"):
            continue
        size = None
        meta = entry / "image.json"
        if meta.is_file():
            try:
                size = read_json(meta, limit=1 << 20).get("bytes")
            except (ConfigError, AttributeError):
                size = None
        total += size if isinstance(size, int) and size >= 0 else tree_bytes(entry)
    return total


def check_store(images: Path, build_mb: int) -> None:
    """ImageBuildError when a build of up to `build_mb` could take the store at `images`
    past its ceiling."""
    ceiling = store_ceiling_gb()
    used = store_bytes(images) / _GB
    if used + build_mb / 1024 > ceiling:
        raise ImageBuildError(
            f"the image store {images} holds {used:.1f} GB of its {ceiling:g} GB ceiling; "
            f"a build of up to {build_mb / 1024:.1f} GB more could pass it: remove images "
            f"you no longer use (rm -rf {images}/KEY) or raise {STORE_ENV}")


class BuildQuota:
    """A quota of `size_mb` mounted over a build's (empty) output dir until `close`."""

    def __init__(self, out: Path, size_mb: int) -> None:
        self.size_mb = size_mb
        self.quota = DiskQuota(out, size_mb)
        if self.quota.enforced_mb is None:
            self.quota.close()
            raise ImageBuildError(f"an image build needs its disk quota of {size_mb} MB, and "
                                  f"it could not be mounted ({self.quota.reason_unenforced})")

    def full(self) -> bool:
        return self.quota.full()

    def failed(self, exc: ImageBuildError) -> ImageBuildError:
        """The error a failed step becomes: said to be the quota when it is full."""
        if not self.full():
            return exc
        return ImageBuildError(f"the build filled its disk quota of {self.size_mb} MB: {exc}",
                               hint="a task that needs more sets [environment].build_disk_mb "
                                    f"in its task.toml (at most {MAX_BUILD_DISK_MB})")

    def copy_out(self, dest: Path) -> int:
        """Copy the finished build to `dest` (owners, modes, links, hard links and xattrs
        kept); the bytes it takes there."""
        dest.mkdir()
        proc = subprocess.run(["cp", "-a", "--preserve=all", f"{self.quota.path}/.", str(dest)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            shutil.rmtree(dest, ignore_errors=True)
            raise ImageBuildError(f"copying the built image out of its quota failed: "
                                  f"{proc.stderr.strip()[-300:]}")
        return tree_bytes(dest)

    def close(self) -> None:
        self.quota.close()
