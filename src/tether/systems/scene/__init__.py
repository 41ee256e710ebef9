"""Scene programs (VETR): Blender execution, write traces, state, metrics.

The public API: other packages (suites, report, cli) import from here, not from the
modules, which may change.

The exports load on first use (tether.lazy): importing this package imports none of
its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.lazy import exports

if TYPE_CHECKING:
    from tether.systems.scene.blendergym import (
        blendergym_task_dirs as blendergym_task_dirs,
        load_any_task as load_any_task,
        load_blendergym_task as load_blendergym_task,
    )
    from tether.systems.scene.check import TaskCheck as TaskCheck, check_task as check_task
    from tether.systems.scene.executor import (
        Execution as Execution,
        RenderSettings as RenderSettings,
        SceneExecutor as SceneExecutor,
    )
    from tether.systems.scene.learned import LearnedMetrics as LearnedMetrics
    from tether.systems.scene.loop.facts import (
        SceneFacts as SceneFacts,
        scene_facts_of as scene_facts_of,
    )
    from tether.systems.scene.metrics import SceneScores as SceneScores, score as score
    from tether.systems.scene.record import (
        Refinement as Refinement,
        Refiner as Refiner,
        SceneRecord as SceneRecord,
    )
    from tether.systems.scene.refiner import refine as refine
    from tether.systems.scene.scenes import TaskScenes as TaskScenes
    from tether.systems.scene.spec_check import spec_problems as spec_problems
    from tether.systems.scene.state import capture as capture
    from tether.systems.scene.tasks import (
        SceneTask as SceneTask,
        bundled_task_dirs as bundled_task_dirs,
        bundled_tasks_dir as bundled_tasks_dir,
        load_task as load_task,
        png_rgb as png_rgb,
    )
    from tether.systems.scene.trace import (
        TRACER_NAME as TRACER_NAME,
        Tracer as Tracer,
        compile_traced as compile_traced,
        program_error as program_error,
        run_program as run_program,
    )

_HOMES: dict[str, str] = {
    "Execution": "tether.systems.scene.executor",
    "LearnedMetrics": "tether.systems.scene.learned",
    "Refinement": "tether.systems.scene.record",
    "Refiner": "tether.systems.scene.record",
    "RenderSettings": "tether.systems.scene.executor",
    "SceneExecutor": "tether.systems.scene.executor",
    "SceneFacts": "tether.systems.scene.loop.facts",
    "SceneRecord": "tether.systems.scene.record",
    "SceneScores": "tether.systems.scene.metrics",
    "SceneTask": "tether.systems.scene.tasks",
    "TRACER_NAME": "tether.systems.scene.trace",
    "TaskCheck": "tether.systems.scene.check",
    "TaskScenes": "tether.systems.scene.scenes",
    "Tracer": "tether.systems.scene.trace",
    "blendergym_task_dirs": "tether.systems.scene.blendergym",
    "bundled_task_dirs": "tether.systems.scene.tasks",
    "bundled_tasks_dir": "tether.systems.scene.tasks",
    "capture": "tether.systems.scene.state",
    "check_task": "tether.systems.scene.check",
    "compile_traced": "tether.systems.scene.trace",
    "load_any_task": "tether.systems.scene.blendergym",
    "load_blendergym_task": "tether.systems.scene.blendergym",
    "load_task": "tether.systems.scene.tasks",
    "png_rgb": "tether.systems.scene.tasks",
    "program_error": "tether.systems.scene.trace",
    "refine": "tether.systems.scene.refiner",
    "run_program": "tether.systems.scene.trace",
    "scene_facts_of": "tether.systems.scene.loop.facts",
    "score": "tether.systems.scene.metrics",
    "spec_problems": "tether.systems.scene.spec_check",
}
__all__ = [
    "Execution",
    "LearnedMetrics",
    "Refinement",
    "Refiner",
    "RenderSettings",
    "SceneExecutor",
    "SceneFacts",
    "SceneRecord",
    "SceneScores",
    "SceneTask",
    "TRACER_NAME",
    "TaskCheck",
    "TaskScenes",
    "Tracer",
    "blendergym_task_dirs",
    "bundled_task_dirs",
    "bundled_tasks_dir",
    "capture",
    "check_task",
    "compile_traced",
    "load_any_task",
    "load_blendergym_task",
    "load_task",
    "png_rgb",
    "program_error",
    "refine",
    "run_program",
    "scene_facts_of",
    "score",
    "spec_problems",
]
__getattr__, __dir__ = exports(__name__, _HOMES)
