"""What a COPY may read: only the build context, however its sources are spelled.

A source pattern is globbed, and every match is followed through every symlink (the
match itself, the directories above it and every link inside a copied directory):
each must land inside the context, or the COPY escapes it and the task is refused
(`ContextEscape`, whose message is the refusal). Checked when a task is classified
and again when its image is built, so a context changed in between is caught too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


class ContextEscape(ValueError):
    """A COPY source resolves outside the build context."""


@dataclass(frozen=True)
class Source:
    """One matched COPY source: its name in the context and where it really is."""

    name: str  # the matched path relative to the context, as the Dockerfile named it
    real: Path  # fully resolved, inside the context

    @property
    def is_dir(self) -> bool:
        return self.real.is_dir()


def copy_sources(context: Path, pattern: str) -> list[Source]:
    """The matches of one COPY source pattern, each checked to stay in the context.

    An empty list when nothing matches; ContextEscape when anything escapes.
    """
    root = Path(context).resolve()
    # Docker reads an absolute source against the context root
    rel = pattern.lstrip("/") or "."
    if os.path.normpath(rel).split("/", 1)[0] == "..":
        raise ContextEscape(f"COPY {pattern}: outside the build context")
    out: list[Source] = []
    for match in sorted(Path(context).glob(rel)) if rel != "." else [Path(context)]:
        name = os.path.relpath(match, context)
        real = match.resolve()
        if not real.is_relative_to(root):
            raise ContextEscape(f"COPY {pattern}: {name} resolves outside the build context "
                                f"(-> {real})")
        if real.is_dir():
            _check_links_inside(real, root, pattern)
        out.append(Source(name, real))
    return out


def _check_links_inside(directory: Path, root: Path, pattern: str) -> None:
    for dirpath, dirnames, filenames in os.walk(directory, followlinks=False):
        for entry in dirnames + filenames:
            path = Path(dirpath) / entry
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                raise ContextEscape(f"COPY {pattern}: the link {path.relative_to(root)} "
                                    f"points outside the build context "
                                    f"(-> {path.resolve()})")


def source_files(sources: list[Source]) -> list[tuple[str, Path]]:
    """(name in the context, path) of every file and link a list of sources copies, in
    order: what an image key hashes. Links inside a directory are not followed."""
    files: list[tuple[str, Path]] = []
    for src in sources:
        if not src.real.is_dir():
            files.append((src.name, src.real))
            continue
        for dirpath, dirnames, filenames in os.walk(src.real, followlinks=False):
            dirnames.sort()
            links = [d for d in dirnames if (Path(dirpath) / d).is_symlink()]
            for entry in sorted(filenames + links):
                path = Path(dirpath) / entry
                files.append((f"{src.name}/{path.relative_to(src.real).as_posix()}", path))
    return files


__all__ = ["ContextEscape", "Source", "copy_sources", "source_files"]
