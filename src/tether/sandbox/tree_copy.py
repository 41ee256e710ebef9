"""Copying a directory that sandboxed code controlled, without being fooled by it."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path


def copy_tree(src: Path, dst: Path, *, skip_dirs: frozenset[str] = frozenset(),
              keep_owner: bool = False) -> None:
    """Copy dirs, regular files and symlinks (as links); skip fifos, sockets, devices.

    Sandboxed code controls what it leaves behind: a fifo there would block a naive copy
    forever, and a symlink followed would copy a file from outside. `keep_owner` also
    keeps each entry's owner and a directory's timestamps (a quota's files moved back
    after unmounting must stay the sandbox user's); otherwise a directory keeps its mode.
    """
    dst.mkdir(parents=True, exist_ok=True)
    for root, dirs, files in os.walk(src, followlinks=False):
        dirs[:] = [d for d in dirs if d not in skip_dirs]
        rel = Path(root).relative_to(src)
        for name in dirs + files:
            s, d = Path(root) / name, dst / rel / name
            mode = os.lstat(s).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(s), d)
            elif stat.S_ISDIR(mode):
                d.mkdir(exist_ok=True)
                (shutil.copystat if keep_owner else shutil.copymode)(s, d)
            elif stat.S_ISREG(mode):
                shutil.copy2(s, d, follow_symlinks=False)
            else:
                continue
            if keep_owner:
                st = os.lstat(s)
                os.chown(d, st.st_uid, st.st_gid, follow_symlinks=False)
