"""Scene programs (VETR): Blender execution, write traces, state, metrics.

The public API: other packages (suites, report, cli) import from here, not from the
modules, which may change.
"""

from tether.scene.blendergym import blendergym_task_dirs, load_any_task, load_blendergym_task
from tether.scene.check import TaskCheck, check_task
from tether.scene.executor import Execution, RenderSettings, SceneExecutor
from tether.scene.learned import LearnedMetrics
from tether.scene.loop.facts import SceneFacts, scene_facts_of
from tether.scene.metrics import SceneScores, score
from tether.scene.minibpy.executor import MiniBpyExecutor
from tether.scene.record import Refinement, Refiner, SceneRecord
from tether.scene.refine import refine
from tether.scene.scenes import TaskScenes
from tether.scene.tasks import (
    SceneTask,
    bundled_task_dirs,
    bundled_tasks_dir,
    load_task,
    png_rgb,
)

__all__ = [
    "Execution",
    "LearnedMetrics",
    "MiniBpyExecutor",
    "Refinement",
    "Refiner",
    "RenderSettings",
    "SceneExecutor",
    "SceneFacts",
    "SceneRecord",
    "SceneScores",
    "SceneTask",
    "TaskCheck",
    "TaskScenes",
    "blendergym_task_dirs",
    "bundled_task_dirs",
    "bundled_tasks_dir",
    "check_task",
    "load_any_task",
    "load_blendergym_task",
    "load_task",
    "png_rgb",
    "refine",
    "scene_facts_of",
    "score",
]
