"""The work dir's files: staging the caller's files in, collecting what is left after.

The sandboxed code controls the work dir, so collecting is defensive: no symlinks
followed, no hard-linked files read, everything bounded in count and size, and what is
left out is listed (`files_omitted`) rather than silently dropped.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

OmitReason = Literal["too_large", "total_limit", "count_limit", "link"]
# files_out is bounded so a run that writes a 10 GiB file cannot blow up the caller.
MAX_FILE_OUT_BYTES = 1024 * 1024
MAX_FILES_OUT_TOTAL_BYTES = 8 * 1024 * 1024
MAX_FILES_OUT_COUNT = 1000


@dataclass(frozen=True)
class OmittedFile:
    """A file left in the work dir but not returned in files_out, and why."""

    name: str
    size: int
    reason: OmitReason

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "size": self.size, "reason": self.reason}


class UnsafeFile(Exception):
    """A name in a sandboxed directory that is not a plain file of its own there."""


def read_own_file(directory: Path, name: str, max_bytes: int) -> bytes | None:
    """The bytes of directory/name, None when absent. The sandboxed code chose what
    the name is, so it is read only when it is a regular file with one link directly
    in `directory`, opened without following a symlink or blocking on a FIFO, and no
    larger than max_bytes; UnsafeFile says why not otherwise."""
    if not name or "/" in name or name in (".", ".."):
        raise UnsafeFile(f"{name!r} is not a plain file name")
    try:
        fd = os.open(directory / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP: a symlink
        raise UnsafeFile(f"{name} is not a regular file ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise UnsafeFile(f"{name} is not a regular file of its own")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise UnsafeFile(f"{name} is over {max_bytes} bytes")
    return data


def _safe_relpath(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise ValueError(f"sandbox file names must be relative and stay inside: {name!r}")
    return rel


def stage_files(workdir: Path, files: Mapping[str, bytes | str] | None) -> None:
    for name, data in (files or {}).items():
        target = workdir / _safe_relpath(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)


def collect_files(workdir: Path) -> tuple[dict[str, bytes], list[OmittedFile]]:
    """Regular files left in the work dir, bounded in count and size, and those left out.

    The sandboxed code controls this directory, so never follow symlinks (a link to
    /etc/shadow would otherwise be read by us, possibly as root) and skip files with
    extra hard links for the same reason; they are listed as omitted ("link").
    The omitted list is bounded like files_out (MAX_FILES_OUT_COUNT entries).
    """
    out: dict[str, bytes] = {}
    omitted: list[OmittedFile] = []
    total = 0
    for root, dirs, names in os.walk(workdir, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            if len(omitted) >= MAX_FILES_OUT_COUNT:
                return out, omitted
            path = Path(root) / name
            rel = path.relative_to(workdir).as_posix()
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                if os.path.islink(path):
                    omitted.append(OmittedFile(rel, os.lstat(path).st_size, "link"))
                continue
            with os.fdopen(fd, "rb") as fh:
                st = os.fstat(fh.fileno())
                if not stat.S_ISREG(st.st_mode):
                    continue  # fifos, sockets, devices: nothing to return
                reason: OmitReason | None = None
                if st.st_nlink != 1:
                    reason = "link"
                elif st.st_size > MAX_FILE_OUT_BYTES:
                    reason = "too_large"
                elif total + st.st_size > MAX_FILES_OUT_TOTAL_BYTES:
                    reason = "total_limit"
                elif len(out) >= MAX_FILES_OUT_COUNT:
                    reason = "count_limit"
                if reason is not None:
                    omitted.append(OmittedFile(rel, st.st_size, reason))
                    continue
                data = fh.read(MAX_FILE_OUT_BYTES + 1)[:MAX_FILE_OUT_BYTES]
            total += len(data)
            out[rel] = data
    return out, omitted
