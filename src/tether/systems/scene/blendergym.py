"""Read task folders in BlenderGym's layout: BlenderGym / BlenderBench data a user has
locally (not redistributable), and a user's own scenes laid out the same way.

One folder per task:

    blender_file.blend      the base scene B (any one `.blend` in the folder will do)
    start.py                the program p0 run on it
    goal.py                 optional: the goal program (rendered here)
    renders/goal/render1.png  the goal image y* (render2.png for Camera2, ...); needed
                            when there is no goal.py, kept as a reference otherwise
    renders/start/render1.png optional: the start image r0 the models are shown
    task.json               optional: `family`, `level`, `description`, `render` (size,
                            samples, seed: 64, 8, 0 unless it says otherwise)
    description.md          optional: the edit in words

Without task.json's `family`, the family is the folder name's prefix when the name is
letters and a number (BlenderGym's `placement12` is `placement`), else `custom`
(tasks.family_of). Without a description the generic BlenderGym instruction is used (the
benchmark shows goal images, not words). A supplied goal image is the goal, as the
benchmark publishes it: a view with `renders/goal/render<i>.png` is scored against that
image, rendered at its resolution (goals.py), even when goal.py exists too; goal.py is then
checked to run, and scores only the views without an image.

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
from tether.systems.scene.tasks import SceneTask, family_of, load_task, shipped_images

DEFAULT_DESCRIPTION = ("Edit the Blender Python program so that the scene it builds renders "
                       "like the goal render.")
BLEND_NAME = "blender_file.blend"
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
#: keys load_blendergym_task adds to the spec (never written back into task.json)
DERIVED_KEYS = ("layout", "shipped_renders")


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


def blend_of(directory: Path) -> Path | None:
    """The folder's base scene: blender_file.blend, else its only .blend, else None."""
    named = directory / BLEND_NAME
    if named.is_file():
        return named
    found = [p for p in directory.glob("*.blend") if p.is_file()]
    return found[0] if len(found) == 1 else None


def is_blendergym_task(directory: Path) -> bool:
    directory = Path(directory)
    return (blend_of(directory) is not None and (directory / "start.py").is_file()
            and ((directory / "goal.py").is_file() or 1 in shipped_images(directory, "goal")))


def _spec(directory: Path) -> dict[str, Any]:
    path = directory / "task.json"
    if not path.is_file():
        return {}
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if not isinstance(spec, dict):
        raise ConfigError(f"{path}: expected a JSON object")
    return spec


def load_blendergym_task(directory: Path) -> SceneTask:
    directory = Path(directory)
    if not is_blendergym_task(directory):
        raise ConfigError(f"{directory}: not a scene task folder",
                          hint="expected a .blend, start.py, and goal.py or "
                               "renders/goal/render1.png")
    user = _spec(directory)
    family, family_from = family_of(user, directory / "task.json", directory.name)
    spec: dict[str, Any] = {"id": directory.name, "family": family,
                            "render": {"size": 64, "samples": 8, "seed": 0}}
    spec.update(user)
    spec["family"] = family
    spec["layout"] = "blendergym"
    goals, starts = shipped_images(directory, "goal"), shipped_images(directory, "start")
    spec["shipped_renders"] = {"start": [str(p) for p in starts.values()],
                               "goal": [str(p) for p in goals.values()]}
    desc = directory / "description.md"
    description = (desc.read_text().strip() if desc.is_file()
                   else str(user.get("description") or DEFAULT_DESCRIPTION))
    start = (directory / "start.py").read_text()
    goal_path = directory / "goal.py"
    goal = goal_path.read_text() if goal_path.is_file() else None
    notes = socket_renames(start, "start.py") + (socket_renames(goal, "goal.py") if goal else [])
    return SceneTask(
        dir=directory, id=str(user.get("id", directory.name)), family=family,
        family_from=family_from, description=description, start=start, goal=goal, spec=spec,
        base_blend=blend_of(directory), notes=notes, goal_images=goals, start_images=starts,
    )  # fmt: skip


def blendergym_task_dirs(root: Path) -> list[Path]:
    """A task directory itself, or the task directories directly under root."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError(f"{root}: no such folder")
    if is_blendergym_task(root):
        return [root]
    found = sorted(p for p in root.iterdir() if p.is_dir() and is_blendergym_task(p))
    if not found:
        raise ConfigError(f"{root}: no scene task folders (a .blend, start.py, and goal.py or "
                          "renders/goal/render1.png) found")
    return found


def load_any_task(directory: Path) -> SceneTask:
    """tether's layout, or BlenderGym's (a `.blend` and no base.py)."""
    directory = Path(directory)
    if not (directory / "base.py").is_file():
        if directory.is_dir() and blend_of(directory) is not None:
            return load_blendergym_task(directory)
    return load_task(directory)
