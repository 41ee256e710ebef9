"""Temp dirs and quota images named by their owner's pid, and the reaping of a dead owner's.

A process killed with SIGKILL runs no `finally`: its loop-mounted quotas stay mounted
(each holding a loop device and up to its size of host disk) and its work dirs stay in
the temp dir. So everything of that kind a process makes is named with its pid,
`tether-KIND-PID-XXXXXXXX` (`owned_dir`, `owned_file`), and the first one a process
makes reaps what a dead pid left (`reap_stale`): each mount under the temp dir whose
mount point is such a dir is detached, then the dirs and the quota images (and their
mkfs templates) are removed. An owner that is alive, or that this process cannot tell
is dead, keeps everything. Dirs a caller asked to keep (`keep=True`) are not named by
pid, and never reaped.

The rule assumes the processes that share the temp dir share a pid namespace (a pid
that looks dead here is dead), as tether's own processes on one machine do.
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["OWNED_KINDS", "Reaped", "owned_dir", "owned_file", "reap_stale"]

#: what a process names by its pid: attempt and verifier roots (terminal), worker, session
#: and one-shot work dirs, staged binds, quota images, their templates and keep-staging
OWNED_KINDS = ("attempt", "verify", "wrk", "sess", "sbx", "binds", "quota", "qtemplate",
               "quota-keep")
_KINDS = "|".join(sorted(map(re.escape, OWNED_KINDS), key=len, reverse=True))
_NAME = re.compile(rf"^tether-(?P<kind>{_KINDS})-(?P<pid>\d+)-")
_MNT_DETACH = 2
_reaped = False
_lock = threading.Lock()
logger = logging.getLogger(__name__)


@dataclass
class Reaped:
    """What one reaping removed: mount points detached, dirs and files removed."""

    unmounted: list[Path] = field(default_factory=list)
    dirs: list[Path] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's live process
        return True
    return True


def _dead_owner(name: str) -> bool:
    found = _NAME.match(name)
    return found is not None and not _alive(int(found["pid"]))


def _mount_points() -> list[Path]:
    try:
        with open("/proc/self/mounts") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    points = []
    for line in lines:
        parts = line.split()
        if len(parts) > 1:
            raw = parts[1]
            for code, ch in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
                raw = raw.replace(code, ch)
            points.append(Path(raw))
    return points


def _detach(path: Path) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.umount2(os.fsencode(path), _MNT_DETACH) == 0


def reap_stale(tmp: Path | None = None) -> Reaped:
    """Detach and remove what dead owners left in `tmp` (default: the temp dir)."""
    root = Path(tmp or tempfile.gettempdir())
    out = Reaped()
    # deepest first: a quota mounted inside another owned dir comes off before it
    for point in sorted(_mount_points(), key=lambda p: len(p.parts), reverse=True):
        if point.parent == root and _dead_owner(point.name) and os.geteuid() == 0:
            if _detach(point):
                out.unmounted.append(point)
    try:
        entries = list(os.scandir(root))
    except OSError:
        return out
    mounted = set(_mount_points())
    for entry in entries:
        path = Path(entry.path)
        if not _dead_owner(entry.name) or path in mounted:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
            if not path.exists():
                out.dirs.append(path)
        else:
            try:
                path.unlink()
                out.files.append(path)
            except OSError:
                pass
    if out.unmounted or out.dirs or out.files:
        logger.info("reaped what dead tether processes left in %s: %d mounts, %d dirs, "
                    "%d files", root, len(out.unmounted), len(out.dirs), len(out.files))
    return out


def _reap_once() -> None:
    global _reaped
    with _lock:
        if _reaped:
            return
        _reaped = True
    try:
        reap_stale()
    except OSError as exc:  # reaping is a courtesy: it never stops the work at hand
        logger.warning("could not reap stale sandbox dirs: %s", exc)


def owned_dir(kind: str) -> Path:
    """A fresh temp dir named by this process (`tether-KIND-PID-...`), reaped if it dies."""
    assert kind in OWNED_KINDS, kind
    _reap_once()
    return Path(tempfile.mkdtemp(prefix=f"tether-{kind}-{os.getpid()}-"))


def owned_file(kind: str, suffix: str = "") -> tuple[int, Path]:
    """(fd, path) of a fresh temp file named by this process, reaped if it dies."""
    assert kind in OWNED_KINDS, kind
    _reap_once()
    fd, name = tempfile.mkstemp(prefix=f"tether-{kind}-{os.getpid()}-", suffix=suffix)
    return fd, Path(name)
