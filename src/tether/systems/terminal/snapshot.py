"""Which files an attempt changed in /app: content hashes of the tree before and after."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: Files hashed per snapshot of /app at most (a task that makes more is summarised)
SNAPSHOT_MAX_FILES = 5_000


def snapshot_tree(root: Path) -> dict[str, str]:
    """{relative path: sha256 of content} of the regular files under `root` (symlinks as
    their target text), for telling which files an attempt changed."""
    out: dict[str, str] = {}
    if not root.is_dir():
        return out
    for path in sorted(root.rglob("*")):
        if len(out) >= SNAPSHOT_MAX_FILES:
            break
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "symlink:" + os.readlink(path)
        elif path.is_file():
            digest = hashlib.sha256()
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            out[rel] = digest.hexdigest()
    return out


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """`added PATH`, `modified PATH`, `deleted PATH` lines, sorted by path."""
    lines = []
    for rel in sorted(set(before) | set(after)):
        if rel not in before:
            lines.append(f"added /app/{rel}")
        elif rel not in after:
            lines.append(f"deleted /app/{rel}")
        elif before[rel] != after[rel]:
            lines.append(f"modified /app/{rel}")
    return lines
