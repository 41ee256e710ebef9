"""A task dir's own paths stay inside it: no link may lead out of the task dir.

The host reads a task's `instruction.md` (the model's prompt) and `task.toml`, copies
`environment/files/` into /app as root and binds `environment/`, `tests/` and
`solution/` into sandboxes. Each of those is named by the task's author: a link among
them to a host path would hand the host's file to the model, the agent or the
verifier. So every link in the task dir must resolve inside it, with one exception:
the links *inside* `environment/files/`, which are copied as links (never followed on
the host) and resolve in the sandbox's own filesystem, as they would in a container.
"""

from __future__ import annotations

import os
from pathlib import Path

from tether.errors import ConfigError
from tether.textio import resolved

__all__ = ["LINK_HINT", "TaskLinkEscape", "check_task_links", "link_escape"]

#: the one part of a task whose inner links are kept as links (never followed)
COPIED_AS_LINKS = Path("environment") / "files"
LINK_HINT = ("copy the file into the task dir; only links inside environment/files/ are "
             "allowed to point elsewhere (they are copied as links)")


class TaskLinkEscape(ConfigError):
    """A path of a task dir is a link that resolves outside the task dir."""


def link_escape(task_dir: Path) -> str | None:
    """Why `task_dir` is refused (its first link that leaves it), or None."""
    root = resolved(task_dir, what="task dir")
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        rel_dir = here.relative_to(root)
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = here / name
            if not path.is_symlink():
                continue
            try:
                target = path.resolve()
            except (RuntimeError, OSError):  # a loop resolves nowhere: refused as well
                return f"{rel_dir / name} is a link that loops (-> {os.readlink(path)})"
            if not target.is_relative_to(root):
                return (f"{rel_dir / name} is a link that leaves the task dir "
                        f"(-> {os.readlink(path)})")
        if rel_dir == COPIED_AS_LINKS.parent:
            # environment/files itself was checked above; what is inside it is copied
            # as it is (links as links), never followed on the host
            dirnames[:] = [d for d in dirnames if d != COPIED_AS_LINKS.name]
    return None


def check_task_links(task_dir: Path) -> None:
    """TaskLinkEscape (one line naming the link) when a link leaves `task_dir`."""
    why = link_escape(task_dir)
    if why is not None:
        raise TaskLinkEscape(f"{task_dir}: {why}", hint=LINK_HINT)
