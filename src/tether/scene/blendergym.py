"""Read BlenderGym / BlenderBench task directories a user has locally (not redistributable).

Assumed layout (BlenderGym's bench data, one directory per task, named by family and
number, e.g. `placement12/`, `blendshape3/`):

    blender_file.blend      the base scene (Blender 3.6 era)
    start.py, goal.py       programs run on it
    renders/start/*.png     the shipped renders (render1.png, ...), kept as references
    renders/goal/*.png

The family is the directory name's alphabetic prefix (`blendshape`, `geometry`,
`lighting`, `material`, `placement`). The description is the generic BlenderGym
instruction (the benchmark shows goal images, not words) unless the directory has a
`description.md`. Renders for scoring are made here with the task's settings (Cycles,
64x64, 8 samples unless a `task.json` says otherwise), never read from `renders/`.

Blender 4.0 renamed Principled BSDF sockets; a 3.6 program that indexes the old names
(`inputs["Specular"]`) raises KeyError on bpy 4.2. They are reported per task as notes
(file, line, old name, 4.x name), never rewritten: the program is the benchmark's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.scene.tasks import FAMILIES, SceneTask

DEFAULT_DESCRIPTION = ("Edit the Blender Python program so that the scene it builds renders "
                       "like the goal render.")
#: Principled BSDF input names of Blender 3.6 that 4.0 renamed (4.0 release notes).
RENAMED_SOCKETS = {
    "Subsurface": "Subsurface Weight",
    "Specular": "Specular IOR Level",
    "Transmission": "Transmission Weight",
    "Clearcoat": "Coat Weight",
    "Clearcoat Roughness": "Coat Roughness",
    "Clearcoat Normal": "Coat Normal",
    "Sheen": "Sheen Weight",
    "Emission": "Emission Color",
}
_SOCKET = re.compile(r"""inputs\s*\[\s*(['"])(?P<name>[^'"]+)\1\s*\]""")


def socket_renames(source: str, filename: str) -> list[dict[str, Any]]:
    """Every `inputs["<3.6 name>"]` in a program, with the 4.x name (nothing is fixed)."""
    notes = []
    for lineno, line in enumerate(source.splitlines(), 1):
        for m in _SOCKET.finditer(line):
            new = RENAMED_SOCKETS.get(m.group("name"))
            if new is not None:
                notes.append({
                    "kind": "socket_renamed", "file": filename, "line": lineno,
                    "old": m.group("name"), "new": new,
                    "message": f"{filename}:{lineno}: socket {m.group('name')!r} is "
                               f"{new!r} in Blender 4.x",
                })  # fmt: skip
    return notes


def is_blendergym_task(directory: Path) -> bool:
    return all((directory / n).is_file() for n in ("blender_file.blend", "start.py", "goal.py"))


def load_blendergym_task(directory: Path) -> SceneTask:
    directory = Path(directory)
    if not is_blendergym_task(directory):
        raise ConfigError(f"{directory}: not a BlenderGym task directory",
                          hint="expected blender_file.blend, start.py and goal.py")
    family = re.match(r"[a-z_]*", directory.name.lower()).group(0).rstrip("_")
    if family not in FAMILIES:
        raise ConfigError(f"{directory}: family {family!r} (from the directory name) is not one "
                          f"of {', '.join(FAMILIES)}")
    spec: dict[str, Any] = {"id": directory.name, "family": family,
                            "render": {"size": 64, "samples": 8, "seed": 0}}
    if (directory / "task.json").is_file():
        spec.update(json.loads((directory / "task.json").read_text()))
    spec["layout"] = "blendergym"
    spec["shipped_renders"] = {
        which: sorted(str(p) for p in (directory / "renders" / which).glob("*.png"))
        for which in ("start", "goal")
    }
    desc = directory / "description.md"
    start = (directory / "start.py").read_text()
    goal = (directory / "goal.py").read_text()
    return SceneTask(
        dir=directory, id=directory.name, family=family,
        description=desc.read_text().strip() if desc.is_file() else DEFAULT_DESCRIPTION,
        start=start, goal=goal, spec=spec, base_blend=directory / "blender_file.blend",
        notes=socket_renames(start, "start.py") + socket_renames(goal, "goal.py"),
    )  # fmt: skip


def blendergym_task_dirs(root: Path) -> list[Path]:
    """A task directory itself, or the task directories directly under root."""
    root = Path(root)
    if is_blendergym_task(root):
        return [root]
    found = sorted(p for p in root.iterdir() if p.is_dir() and is_blendergym_task(p))
    if not found:
        raise ConfigError(f"{root}: no BlenderGym task directories (blender_file.blend, "
                          "start.py, goal.py) found")
    return found
