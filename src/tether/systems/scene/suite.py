"""Scene suites (VETR): tether's own `scene` suite and the `blendergym:DIR` format.

Each task names its directory in `data["task_dir"]`; the `scene_render` instrument
(tether.systems.scene.instrument) renders the artifact program on the task's base and scores PL
against the goal render. The prompt gives the edit in words and the start program.
"""

from __future__ import annotations

from pathlib import Path

from tether.core import Task
from tether.suites import register_format, register_suite
from tether.systems.scene import (
    SceneTask,
    blendergym_task_dirs,
    bundled_task_dirs,
    load_blendergym_task,
    load_task,
)

SUITE = "scene"
SYSTEM = ("You edit Blender Python (bpy 4.2) scene programs. Reply with the whole edited "
          "program in one ```python fenced block.")


def to_task(t: SceneTask, suite: str) -> Task:
    prompt = (f"{t.description}\n\nThe program that builds the current scene (it runs on a "
              f"base scene that already holds the objects):\n\n```python\n{t.start}```\n")
    return Task(
        id=t.id, suite=suite, prompt=prompt, system=SYSTEM, artifact_kind="scene",
        metric="scene_render",
        data={"task_dir": str(t.dir), "family": t.family, "start": t.start,
              "shared": t.spec.get("shared"), "notes": t.notes},
    )  # fmt: skip


@register_suite(SUITE)
def load_scene_suite() -> list[Task]:
    return [to_task(load_task(d), SUITE) for d in bundled_task_dirs()]


@register_format("blendergym")
def load_blendergym(path: Path) -> list[Task]:
    return [to_task(load_blendergym_task(d), "blendergym") for d in blendergym_task_dirs(path)]
